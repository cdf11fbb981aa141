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

With ``jobs`` other than 1 (``gpufleet lint --jobs``; 0, the CLI's default, is one process
per CPU), a run of many files is shared with forked worker processes (:mod:`gpufleet.lint.pool`):
the first pass by chunks of files, whose objects come back to this process in file order;
in the second this process runs the rules (every object against the whole run, as in one
process) while the workers place the findings of documents whose text they read again.
The report is the same, finding for finding and in the same order
(tests/lint/test_parallel.py compares it with the one-process report).
"""

from __future__ import annotations

from collections import deque
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from itertools import chain, islice
from typing import Iterable, Iterator, Sequence

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.lint import firstpass, pool
from gpufleet.lint.firstpass import Loads
from gpufleet.lint.loader import Loaded
from gpufleet.lint.locate import TextDoc
from gpufleet.lint.located import Located, lines_of, place, placed, problem_finding
from gpufleet.lint.namespaces import DEFAULT_NAMESPACE
from gpufleet.lint.sources import Source, entries, read
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext, Finding, Severity
from gpufleet.util import gcpause, lifetime

GANG000 = "GANG000"
__all__ = ["Located", "Report", "lint", "lint_sources", "place", "problem_finding", "unknown_codes"]


@dataclass
class Report:
    files: int = 0
    objects: int = 0
    skipped: list[str] = field(default_factory=list)  # readable files with no Kubernetes-like document
    charts: list[str] = field(default_factory=list)  # Helm chart sources (Chart.yaml, templates), not linted
    unreadable: list[tuple[str, str]] = field(
        default_factory=list
    )  # (file, why) for files that could not be read at all
    results: list[Located] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return [r.finding for r in self.results]

    def summary(self) -> dict[str, int]:
        found = self.findings
        return {
            "files": self.files,
            "objects": self.objects,
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


def _selection(
    select: Iterable[str] | None, ignore: Iterable[str] | None
) -> tuple[engine.Patterns, engine.Patterns, bool]:
    """The frozen select and ignore patterns, and whether GANG000 (load problems) is reported."""
    sel, ign = engine.freeze(list(select) if select is not None else None), engine.freeze(list(ignore or ()))
    return sel, ign, _wanted(GANG000, sel, ign)


def lint_sources(
    sources: Iterable[Source],
    ctx: CheckContext | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    namespace: str = DEFAULT_NAMESPACE,
) -> Report:
    """Lint sources (see :func:`lint`), consumed once and in order: a generator is read one file at a time."""
    with gcpause.paused():  # the loader's objects and texts are acyclic: the collector would only walk them
        return _lint_sources(sources, ctx, select, ignore, namespace)


def _lint_sources(
    sources: Iterable[Source],
    ctx: CheckContext | None,
    select: Iterable[str] | None,
    ignore: Iterable[str] | None,
    namespace: str,
) -> Report:
    sel, ign, problems = _selection(select, ignore)
    loads = Loads()
    for source in sources:  # one at a time: a generator is read one file at a time
        firstpass.add(loads, source, problems, namespace)
    report = _second_pass(loads, ctx, sel, ign, None)
    lifetime.keep(loads)  # a process that ends next does not free the run object by object
    return report


def _second_pass(
    loads: Loads,
    ctx: CheckContext | None,
    sel: engine.Patterns,
    ign: engine.Patterns,
    workers: pool.ProcessPoolExecutor | None,
) -> Report:
    report = Report(
        files=loads.files,
        objects=len(loads.objects),
        skipped=loads.skipped,
        charts=loads.charts,
        unreadable=loads.unreadable,
        results=loads.problems,
    )
    ctx = replace(ctx or CheckContext(), objects=tuple(item.obj for item in loads.objects))  # the run: one RunIndex
    if workers is None:
        _check_all(loads.objects, ctx, sel, ign, report)
    else:
        _check_shared(loads.objects, ctx, sel, ign, report, workers)
    # No stack-level hooks (Rule.check_run) here: they judge a closed world (a Pulumi stack
    # declares every queue it uses), and the files of one lint run are not one (a LocalQueue
    # may come from the fleet's stack or another repository). With --fleet, GANG104 checks
    # each queue against the fleet model instead.
    report.results.sort(key=lambda r: (r.finding.file or "", r.finding.line or 0, r.finding.code, r.finding.path))
    lifetime.keep(ctx)  # the run's objects and views, for a process that ends next (gpufleet.util.lifetime)
    return report


def _check_all(
    loaded: deque[Loaded], ctx: CheckContext, sel: engine.Patterns, ign: engine.Patterns, report: Report
) -> None:
    """The second pass: check each object against the whole run and place its findings, then drop its text.

    The run (``ctx.objects``) keeps every object; what only placing needs (each document's
    text, the nodes composed for it, the walk's memo) goes as soon as its object is done.
    """
    while loaded:
        item = loaded.popleft()
        for finding in engine.check_object(item.obj, ctx, sel, ign):
            report.results.append(Located(place(finding, item), item.template))


BATCH = 128  # documents with findings per placing job sent to a worker


Batch = list[tuple[Loaded, list[Finding]]]
Job = list[tuple[TextDoc, list[FieldPath]]]


@dataclass
class _Sent:
    """A batch of documents whose findings a worker places: the batch, the job sent for it, its future."""

    batch: Batch
    job: Job
    future: pool.Future[list[list[int | None]]]


def _check_shared(
    loaded: deque[Loaded],
    ctx: CheckContext,
    sel: engine.Patterns,
    ign: engine.Patterns,
    report: Report,
    workers: pool.ProcessPoolExecutor,
) -> None:
    """The second pass with workers placing the findings of released documents; results kept in object order."""
    slots: deque[list[Located] | _Sent] = deque()  # placed here, or sent to a worker
    batch: Batch = []

    def send() -> None:
        job = [(item.node, [f.path for f in found]) for item, found in batch]
        slots.append(_Sent(batch, job, workers.submit(lines_of, job)))

    while loaded:
        item = loaded.popleft()
        found = engine.check_object(item.obj, ctx, sel, ign)
        if not found:
            continue
        if isinstance(item.node, TextDoc) and item.node.text is None:
            batch.append((item, found))
            if len(batch) >= BATCH:
                send()
                batch = []
        else:
            if batch:  # keep the order: what came before this object goes first
                send()
                batch = []
            slots.append([Located(place(f, item), item.template) for f in found])
        while slots and (isinstance(slots[0], list) or slots[0].future.done()):
            _settle(slots.popleft(), None, report)
    if batch:
        send()
    sent = [slot for slot in slots if isinstance(slot, _Sent)]
    lines = iter(pool.collect([s.future for s in sent], lines_of, [s.job for s in sent]))  # unstarted ones placed here
    for slot in slots:
        _settle(slot, None if isinstance(slot, list) else next(lines), report)


def _settle(slot: list[Located] | _Sent, lines: list[list[int | None]] | None, report: Report) -> None:
    """Add a slot's findings to the report (a sent batch's at ``lines``, else at its future's)."""
    if isinstance(slot, list):
        report.results.extend(slot)
        return
    for (item, found), at in zip(slot.batch, lines if lines is not None else slot.future.result()):
        report.results.extend(Located(placed(f, item, line), item.template) for f, line in zip(found, at))


CHUNK = 128  # files per first-pass job


def _lint_shared(
    found: Iterator[str | Source],
    ctx: CheckContext | None,
    select: Iterable[str] | None,
    ignore: Iterable[str] | None,
    namespace: str,
    workers: int,
) -> Report:
    """The run shared with ``workers`` forked processes (both passes); the workers load while the walk goes on."""
    sel, ign, problems = _selection(select, ignore)
    with gcpause.paused(), pool.executor(workers) as shared:
        jobs: list[tuple[list[str | Source], bool, str]] = []
        futures = []
        while chunk := list(islice(found, CHUNK)):
            jobs.append((chunk, problems, namespace))
            futures.append(shared.submit(firstpass.load_chunk, jobs[-1]))
        loads = Loads()
        for part in pool.collect(futures, firstpass.load_chunk, jobs):
            loads.extend(part)
        jobs.clear()  # every file's name, no longer needed (11 MB at 100,000 objects): each object has its own
        report = _second_pass(loads, ctx, sel, ign, shared)
        lifetime.keep(futures, loads)  # each chunk's objects, as the workers sent them
        return report


def lint(
    paths: Sequence[str],
    ctx: CheckContext | None = None,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    stdin_text: str | None = None,
    namespace: str = DEFAULT_NAMESPACE,
    jobs: int = 1,
) -> Report:
    """Lint files, directories and ``-`` (``stdin_text``); see :class:`Report`.

    Namespaced objects without ``metadata.namespace`` are judged in ``namespace``
    (``gpufleet lint --namespace``; kubectl's ``default`` unless told otherwise). ``jobs``:
    processes to share a large run with (0: one per CPU; 1: this process alone), see
    :mod:`gpufleet.lint.pool`.
    """
    found = entries(paths, stdin_text)
    head = list(islice(found, pool.MIN_FILES))  # enough to tell whether the run is large
    workers = pool.workers(jobs, len(head))
    if workers:
        try:
            return _lint_shared(chain(head, found), ctx, select, ignore, namespace, workers)
        except BrokenProcessPool:  # a worker died (killed, out of memory): the run again, in this process alone
            found, head = entries(paths, stdin_text), []
    return lint_sources(
        (read(e) if isinstance(e, str) else e for e in chain(head, found)), ctx, select, ignore, namespace
    )
