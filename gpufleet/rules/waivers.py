"""Waivers: ``waive.gpufleet.dev/<CODE>: "<reason>"`` annotations on the checked object.

Applied by the engine to every finding. A waived finding is still reported
(``waived=True`` with the reason) so audits see it, but it no longer blocks. A
waiver with an empty or blank reason does not waive: the reason is the point.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from gpufleet.rules.api import Finding
from gpufleet.workloads.keys import WAIVER_PREFIX
from gpufleet.workloads.types import as_map


def waiver_reasons(obj: Mapping[str, Any]) -> dict[str, str]:
    """``{CODE: reason}`` for every waiver annotation with a non-blank reason."""
    annotations = as_map(as_map(obj.get("metadata")).get("annotations"))
    reasons: dict[str, str] = {}
    for key, value in annotations.items():
        if isinstance(key, str) and key.startswith(WAIVER_PREFIX) and isinstance(value, str) and value.strip():
            reasons[key[len(WAIVER_PREFIX):].strip().upper()] = value.strip()
    return reasons


def waiver_key(code: str) -> str:
    """The annotation key that waives ``code``."""
    return f"{WAIVER_PREFIX}{code}"


def apply(obj: Mapping[str, Any], findings: list[Finding]) -> list[Finding]:
    """``findings`` with those the object waives marked ``waived`` (with the reason)."""
    reasons = waiver_reasons(obj)
    if not reasons:
        return findings
    return [replace(f, waived=True, waiver_reason=reasons[f.code]) if f.code in reasons else f for f in findings]
