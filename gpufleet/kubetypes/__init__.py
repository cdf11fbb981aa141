"""Kubernetes and engine value types: quantities, Go durations, field paths, the admission kinds and the engines' config keys.

Part of the core (no adapter imports it back); see docs/architecture.md."""
