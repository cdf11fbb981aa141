"""Lint inputs: load every object, run the rule engine, place findings at file:line.

Called by the CLI (``gpufleet lint``), the benchmark and tests. :func:`lint` is pure
apart from reading the named files: it takes the standard input's text as an
argument and returns a :class:`Report` that the output modules
(:mod:`gpufleet.lint.text`, :mod:`gpufleet.lint.jsonout`, :mod:`gpufleet.lint.sarif`)
render. Each finding gets the file, the line of the field its path names (or of the
object), and, for ``List`` items, the item's path prefix (``items[2].spec...``).

Two passes, so a run holds its objects but not their texts: the first reads the sources
one at a time (a generator is consumed as it goes) and keeps each object with where it
came from, the text of a file read from disk released (:mod:`gpufleet.lint.filetext`);
the second checks the objects in order against the whole run (the cross-object rules see
every object through ``ctx.run``) and places each one's findings, reading a file's text
again for that, then drops what placing needed. tests/lint/test_two_pass.py compares the
report with the one-pass linter's.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Iterable, Sequence

from gpufleet.util import gcpause
from gpufleet.lint import helm, locate
from gpufleet.lint.filetext import FileText
from gpufleet.lint.locate import TextDoc
from gpufleet.lint.namespaces import DEFAULT_NAMESPACE, with_namespace
from gpufleet.lint.loader import Loaded, Problem, load
from gpufleet.lint.sources import Source, stream
from gpufleet.rules import engine, registry
from gpufleet.rules.api import CheckContext, Finding, Severity

GANG000 = "GANG000"


@dataclass(frozen=True, slots=True)
class Located:
    """A finding plus where it came from beyond file:line (the helm template, if any)."""

    finding: Finding
    template: str | None = None


@dataclass
class Report:
    files: int = 0
    objects: int = 0
    skipped: list[str] = field(default_factory=list)  # readable files with no Kubernetes-like document
    charts: list[str] = field(default_factory=list)  # Helm chart sources (Chart.yaml, templates), not linted
    results: list[Located] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return [r.finding for r in self.results]

    def summary(self) -> dict[str, int]:
        found = self.findings
        return {
            "files": self.files, "objects": self.objects,
            "errors": sum(1 for f in found if f.blocking),
            "warnings": sum(1 for f in found if f.severity is Severity.WARNING and not f.waived),
            "waived": sum(1 for f in found if f.waived),
        }

    @property
    def exit_code(self) -> int:
        return 1 if any(f.blocking for f in self.findings) else 0


def unknown_codes(patterns: Iterable[str]) -> list[str]:
    """Select/ignore patterns (codes or prefixes such as ``GANG4``) that match no rule."""
    return engine.unknown_selectors([p.strip() for p in patterns if p.strip()])


def _wanted(code: str, select: frozenset[str] | None, ignore: frozenset[str] | None) -> bool:
    return (select is None or engine.matches(code, select)) and not (ignore and engine.matches(code, ignore))


def problem_finding(problem: Problem) -> Finding:
    rule = registry.get(GANG000)
    obj = problem.obj or {}
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return Finding(code=rule.code, name=rule.name, severity=rule.severity, path=problem.path, message=problem.message,
                   fix=problem.fix, api_version=str(obj.get("apiVersion", "")), kind=str(obj.get("kind", "")),
                   namespace=meta.get("namespace"), object_name=meta.get("name"), file=problem.file, line=problem.line)


def place(finding: Finding, item: Loaded) -> Finding:
    """``finding`` at its file and line (the line of the field its path names), List prefix added."""
    line = locate.line_of(item.node, finding.path) if item.node is not None else None
    path = item.prefix + finding.path if item.prefix else finding.path
    f = finding  # every field spelt out: dataclasses.replace costs several times more on this hot path
    return Finding(code=f.code, name=f.name, severity=f.severity, path=path, message=f.message, fix=f.fix,
                   api_version=f.api_version, kind=f.kind, namespace=f.namespace, object_name=f.object_name,
                   waived=f.waived, waiver_reason=f.waiver_reason, file=item.file, line=line or item.line)


def lint_sources(sources: Iterable[Source], ctx: CheckContext | None = None, select: Iterable[str] | None = None,
                 ignore: Iterable[str] | None = None, namespace: str = DEFAULT_NAMESPACE) -> Report:
    """Lint sources (see :func:`lint`), consumed once and in order: a generator is read one file at a time."""
    with gcpause.paused():  # the loader's objects and texts are acyclic: the collector would only walk them
        return _lint_sources(sources, ctx, select, ignore, namespace)


def _lint_sources(sources: Iterable[Source], ctx: CheckContext | None, select: Iterable[str] | None,
                  ignore: Iterable[str] | None, namespace: str) -> Report:
    ctx = ctx or CheckContext()
    sel, ign = engine.freeze(list(select) if select is not None else None), engine.freeze(list(ignore or ()))
    report = Report()
    loaded = _load_all(sources, report, _wanted(GANG000, sel, ign), namespace)
    report.objects = len(loaded)
    ctx = replace(ctx, objects=tuple(item.obj for item in loaded))  # the run: one RunIndex for every object
    _check_all(loaded, ctx, sel, ign, report)
    # No stack-level hooks (Rule.check_run) here: they judge a closed world (a Pulumi stack
    # declares every queue it uses), and the files of one lint run are not one (a LocalQueue
    # may come from the fleet's stack or another repository). With --fleet, GANG104 checks
    # each queue against the fleet model instead.
    report.results.sort(key=lambda r: (r.finding.file or "", r.finding.line or 0, r.finding.code, r.finding.path))
    return report


def _load_all(sources: Iterable[Source], report: Report, problems: bool, namespace: str) -> deque[Loaded]:
    """The first pass: every object of every source, in order (a source's text is not kept past its load)."""
    loaded: deque[Loaded] = deque()
    for source in sources:
        report.files += 1
        if helm.is_chart_source(source.name, source.text):
            report.charts.append(source.name)
            continue
        result = load(source)
        if result.skipped:
            report.skipped.append(source.name)
        if source.from_file and source.text is not None:  # its text can be read again: keep none of it meanwhile
            file = FileText(source.name, source.text)
            for item in result.objects:
                if isinstance(item.node, TextDoc):
                    item.node.release(file)
        loaded.extend(item if item.obj is (placed := with_namespace(item.obj, namespace)) else replace(item, obj=placed)
                      for item in result.objects)
        if problems:
            report.results.extend(Located(problem_finding(p)) for p in result.problems)
    return loaded


def _check_all(loaded: deque[Loaded], ctx: CheckContext, sel: engine.Patterns, ign: engine.Patterns,
               report: Report) -> None:
    """The second pass: check each object against the whole run and place its findings, then drop its text.

    The run (``ctx.objects``) keeps every object; what only placing needs (each document's
    text, the nodes composed for it, the walk's memo) goes as soon as its object is done.
    """
    while loaded:
        item = loaded.popleft()
        for finding in engine.check_object(item.obj, ctx, sel, ign):
            report.results.append(Located(place(finding, item), item.template))


def lint(paths: Sequence[str], ctx: CheckContext | None = None, select: Iterable[str] | None = None,
         ignore: Iterable[str] | None = None, stdin_text: str | None = None,
         namespace: str = DEFAULT_NAMESPACE) -> Report:
    """Lint files, directories and ``-`` (``stdin_text``); see :class:`Report`.

    Namespaced objects without ``metadata.namespace`` are judged in ``namespace``
    (``gpufleet lint --namespace``; kubectl's ``default`` unless told otherwise).
    """
    return lint_sources(stream(paths, stdin_text), ctx, select, ignore, namespace)
