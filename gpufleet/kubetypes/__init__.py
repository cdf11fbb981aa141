"""Kubernetes and engine value types: quantities, Go durations, field paths, the admission kinds, the engines' config keys
and the vocabulary (:mod:`gpufleet.kubetypes.vocab`: every label, annotation and queue key, the name patterns).

Part of the core (no adapter imports it back); see docs/architecture.md."""
