"""Findings -> Pulumi policy violations, and rule severities -> enforcement levels.

Called by ``build`` and ``stack``. One violation per unwaived finding; the message
(Pulumi prints it under the policy's description) reads::

    GANG001 min-below-replicas: Job research/train at `spec.minAvailable`: <message> Fix: <fix>

The path sits between backticks so tools (and the contract tests) can read it back
with :func:`parse`. Waived findings are not reported: a waiver's point is that the
finding no longer blocks, and ``gpufleet lint`` still lists them for audits.
"""

from __future__ import annotations

import re
from typing import Iterable

from pulumi_policy import EnforcementLevel

from gpufleet.rules.api import Finding, Rule, Severity

LINE = re.compile(r"^(?P<code>GANG\d{3}) (?P<rule>[a-z0-9-]+): (?P<object>.*?) at `(?P<path>[^`]*)`: ", re.MULTILINE)


def default_level(rule: Rule) -> EnforcementLevel:
    """Errors block (mandatory); warnings advise."""
    return EnforcementLevel.MANDATORY if rule.severity is Severity.ERROR else EnforcementLevel.ADVISORY


def object_label(finding: Finding) -> str:
    """``Job research/train`` (kind, namespace/name), the way a reader finds the resource."""
    name = finding.object_name or "<unnamed>"
    where = f"{finding.namespace}/{name}" if finding.namespace else name
    return f"{finding.kind or 'object'} {where}"


def message(finding: Finding, path: str | None = None, label: str | None = None) -> str:
    """One violation message; ``path``/``label`` override the finding's (chart values, for example)."""
    shown = str(finding.path) if path is None else path
    text = (
        f"{finding.code} {finding.name}: {label or object_label(finding)} at `{shown}`: {finding.message.rstrip('.')}."
    )
    return f"{text} Fix: {finding.fix}" if finding.fix else text


def reportable(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if not f.waived]


def parse(text: str) -> list[tuple[str, str]]:
    """(code, path) of every violation line in a diagnostic message."""
    return [(m["code"], m["path"]) for m in LINE.finditer(text)]
