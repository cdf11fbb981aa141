"""YAML input and its limits, and the issues and errors bad input is reported with.

Part of the core (no adapter imports it back); see docs/architecture.md."""
