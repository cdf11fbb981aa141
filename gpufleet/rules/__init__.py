"""The gang-safety rules: a registry, an engine and one module per rule.

Rules are grouped by family like ruff's: ``<family>/gangNNN_<name>.py``, with the
family's helpers in underscore modules beside them (``<family>/_helpers.py``).

Adapters import the engine: ``from gpufleet.rules.engine import check_object,
check_objects, remediate``; the registry (``gpufleet.rules.registry``) lists the
rules. Both are also reachable lazily from this package (``gpufleet.rules.check_object``)
without importing every rule module when only ``gpufleet.rules.api`` is needed.
"""

from __future__ import annotations

from typing import Any

from gpufleet.rules.api import CheckContext, Finding, Rule, Severity, Violation

_LAZY = {
    "check_object": "engine",
    "check_objects": "engine",
    "remediate": "engine",
    "REGISTRY": "registry",
    "all_rules": "registry",
    "get": "registry",
}

__all__ = ["CheckContext", "Finding", "Rule", "Severity", "Violation", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"gpufleet.rules.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'gpufleet.rules' has no attribute {name!r}")
