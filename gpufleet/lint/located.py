"""Findings at file:line: :class:`Located`, the GANG000 finding of a load problem, and placing a finding.

Called by :mod:`gpufleet.lint.runner` (which re-exports :class:`Located` for the output
modules), :mod:`gpufleet.lint.firstpass` (load problems) and, in a run shared with worker
processes (:mod:`gpufleet.lint.pool`), by the workers: :func:`lines_of` finds the lines of
a batch of findings from their documents' texts, which a worker reads again itself, and the
caller puts each finding at its line with :func:`placed`, exactly as :func:`place` does in
one process.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.lint import locate
from gpufleet.lint.loader import Loaded, Problem
from gpufleet.lint.locate import TextDoc
from gpufleet.rules import registry
from gpufleet.rules.api import Finding, Violation
from gpufleet.rules.engine import make_finding

GANG000 = "GANG000"


@dataclass(frozen=True, slots=True)
class Located:
    """A finding plus where it came from beyond file:line (the helm template, if any)."""

    finding: Finding
    template: str | None = None


def problem_finding(problem: Problem) -> Finding:
    """The GANG000 finding of a load problem at its file and line, made as the engine makes every finding (the
    object it names is the List the problem is in, if any)."""
    violation = Violation(problem.path, problem.message, problem.fix)
    found = make_finding(registry.get(GANG000), problem.obj or {}, violation)
    return replace(found, file=problem.file, line=problem.line)


def placed(finding: Finding, item: Loaded, line: int | None) -> Finding:
    """``finding`` at its file and ``line`` (the line of the field its path names; the object's when None), List prefix added."""
    path = item.prefix + finding.path if item.prefix else finding.path
    f = finding  # every field spelt out: dataclasses.replace costs several times more on this hot path
    return Finding(
        code=f.code,
        name=f.name,
        severity=f.severity,
        path=path,
        message=f.message,
        fix=f.fix,
        api_version=f.api_version,
        kind=f.kind,
        namespace=f.namespace,
        object_name=f.object_name,
        waived=f.waived,
        waiver_reason=f.waiver_reason,
        file=item.file,
        line=line or item.line,
        internal=f.internal,
        waivable=f.waivable,
    )


def place(finding: Finding, item: Loaded) -> Finding:
    """``finding`` at its file and line (the line of the field its path names), List prefix added."""
    return placed(finding, item, locate.line_of(item.node, finding.path) if item.node is not None else None)


def lines_of(batch: Sequence[tuple[TextDoc, Sequence[FieldPath]]]) -> list[list[int | None]]:
    """Per document of ``batch``, the line of each of its paths (a worker's share of placing; texts read again here)."""
    return [[doc.line_of(path) for path in paths] for doc, paths in batch]
