"""Small process-wide helpers: a bounded cache, pausing the garbage collector around bulk work.

Part of the core (no adapter imports it back); see docs/architecture.md."""
