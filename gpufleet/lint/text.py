"""Plain-text output of ``gpufleet lint`` (the default format).

Called by the CLI, which adds colour with rich when writing to a terminal; this
module stays free of rich and returns ``(severity, line)`` pairs. One finding reads::

    jobs/train.yaml:14: GANG301 liveness-or-readiness-probe [error] Job research/train
      at spec.tasks[0].template.spec.containers[0].livenessProbe
      container trainer of gang pod template worker has a livenessProbe: ...
      fix: remove the livenessProbe (a startupProbe is fine)
"""

from __future__ import annotations

from typing import Iterator

from gpufleet.lint import helm
from gpufleet.lint.runner import Located, Report
from gpufleet.rules.api import Finding


def identity(finding: Finding) -> str:
    """``Kind namespace/name`` (or just ``Kind name``, or nothing for file-level problems)."""
    name = "/".join(p for p in (finding.namespace, finding.object_name) if p)
    return " ".join(p for p in (finding.kind, name) if p)


def finding_lines(located: Located) -> list[str]:
    f = located.finding
    where = f"{f.file or '<input>'}:{f.line}" if f.line else (f.file or "<input>")
    state = f"waived: {f.waiver_reason}" if f.waived else f.severity.value
    head = " ".join(p for p in (f"{where}:", f.code, f.name, f"[{state}]", identity(f)) if p)
    lines = [head]
    if located.template:
        lines.append(f"  from helm template {located.template}")
    if f.path:
        lines.append(f"  at {f.path}")
    lines.append(f"  {f.message}")
    if f.fix:
        lines.append(f"  fix: {f.fix}")
    return lines


def summary_line(report: Report) -> str:
    s = report.summary()
    skipped = f" ({len(report.skipped)} without Kubernetes objects, skipped)" if report.skipped else ""
    line = (
        f"{s['files']} file(s){skipped}, {s['objects']} object(s): {s['errors']} error(s), "
        f"{s['warnings']} warning(s), {s['waived']} waived"
    )
    if report.charts:
        line += f"\n{len(report.charts)} Helm chart source(s) skipped ({report.charts[0]}, ...): {helm.HOW_TO}"
    return line


def render(report: Report) -> Iterator[tuple[str, str]]:
    """``(style, line)`` pairs; style is ``error``, ``warning``, ``waived``, ``detail`` or ``summary``."""
    for located in report.results:
        f = located.finding
        style = "waived" if f.waived else f.severity.value
        first, *rest = finding_lines(located)
        yield style, first
        for line in rest:
            yield "detail", line
    yield "summary", summary_line(report)


def render_plain(report: Report) -> str:
    return "\n".join(line for _, line in render(report)) + "\n"
