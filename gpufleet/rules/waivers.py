"""Waivers: ``waive.gpufleet.dev/<CODE>: "<reason>"`` annotations on the checked object.

Applied by the engine to every finding. A waived finding is still reported
(``waived=True`` with the reason) so audits see it, but it no longer blocks. A
waiver with an empty or blank reason does not waive: the reason is the point. It is not
dropped silently either: the finding it meant to waive becomes an error that says the
waiver needs a reason (:func:`blank_waivers`). A rule with ``waivable=False`` (GANG807)
is never waived by its own object.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from gpufleet.kubetypes.vocab import WAIVER_PREFIX
from gpufleet.rules.api import Finding, Severity
from gpufleet.workloads.types import as_map


def waiver_reasons(obj: Mapping[str, Any]) -> dict[str, str]:
    """``{CODE: reason}`` for every waiver annotation with a non-blank reason."""
    annotations = as_map(as_map(obj.get("metadata")).get("annotations"))
    reasons: dict[str, str] = {}
    for key, value in annotations.items():
        if isinstance(key, str) and key.startswith(WAIVER_PREFIX) and isinstance(value, str) and value.strip():
            reasons[key[len(WAIVER_PREFIX) :].strip().upper()] = value.strip()
    return reasons


def blank_waivers(obj: Mapping[str, Any]) -> set[str]:
    """The codes of waiver annotations whose reason is empty or blank (they waive nothing)."""
    annotations = as_map(as_map(obj.get("metadata")).get("annotations"))
    return {
        key[len(WAIVER_PREFIX) :].strip().upper()
        for key, value in annotations.items()
        if isinstance(key, str) and key.startswith(WAIVER_PREFIX) and not (isinstance(value, str) and value.strip())
    }


def _needs_reason(finding: Finding) -> Finding:
    key = waiver_key(finding.code)
    return replace(
        finding,
        severity=Severity.ERROR,
        message=f"{finding.message} (not waived: the annotation {key} has an empty reason, and a waiver needs one)",
        fix=f'write why the object is safe in the waiver ({key}: "<reason>"), or remove the annotation and {finding.fix}',
    )


def waiver_key(code: str) -> str:
    """The annotation key that waives ``code``."""
    return f"{WAIVER_PREFIX}{code}"


def apply(obj: Mapping[str, Any], findings: list[Finding]) -> list[Finding]:
    """``findings`` with those the object waives marked ``waived`` (with the reason).

    A rule that refuses waivers (``Finding.waivable`` False, GANG807) keeps blocking; its message says the
    annotation was not accepted.
    """
    reasons = waiver_reasons(obj)
    blank = blank_waivers(obj) if findings else set()
    if not reasons and not blank:
        return findings
    return [
        _waive(f, reasons[f.code]) if f.code in reasons else _needs_reason(f) if f.code in blank else f
        for f in findings
    ]


def _waive(finding: Finding, reason: str) -> Finding:
    if finding.waivable:
        return replace(finding, waived=True, waiver_reason=reason)
    return replace(
        finding,
        message=f"{finding.message} (the annotation {waiver_key(finding.code)} is not accepted: "
        f"{finding.code} cannot be waived)",
    )
