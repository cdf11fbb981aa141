"""The linter's first pass: read sources, keep their objects and GANG000 problems, release their texts.

Called by :mod:`gpufleet.lint.runner`, once over a stream of sources in one process, or
per chunk of files (:func:`load_chunk`) in the worker processes and the caller of a shared
run (:mod:`gpufleet.lint.pool`), whose :class:`Loads` are joined in file order
(:meth:`Loads.extend`): either way the same objects, problems and counts in the same order.
A file's text is released after its load (:meth:`gpufleet.lint.locate.TextDoc.release`):
placing a finding reads it again (:mod:`gpufleet.lint.filetext`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Sequence

from gpufleet.lint import helm
from gpufleet.lint.filetext import FileText
from gpufleet.lint.loader import Loaded, load
from gpufleet.lint.locate import TextDoc
from gpufleet.lint.located import Located, problem_finding
from gpufleet.lint.namespaces import with_namespace
from gpufleet.lint.sources import Source, read


@dataclass
class Loads:
    """What the first pass found in some sources, in their order."""

    files: int = 0
    charts: list[str] = field(default_factory=list)  # Helm chart sources, not linted
    skipped: list[str] = field(default_factory=list)  # readable files with no Kubernetes-like document
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (name, why): the file could not be read at all
    objects: deque[Loaded] = field(default_factory=deque)
    problems: list[Located] = field(default_factory=list)  # GANG000 findings (when GANG000 is selected)

    def extend(self, other: Loads) -> None:
        """Add ``other``'s findings after this one's (``other`` read later sources)."""
        self.files += other.files
        self.charts.extend(other.charts)
        self.skipped.extend(other.skipped)
        self.unreadable.extend(other.unreadable)
        self.objects.extend(other.objects)
        self.problems.extend(other.problems)


def add(loads: Loads, source: Source, problems: bool, namespace: str) -> None:
    """Load one source into ``loads`` (its text is not kept when it can be read again from its file)."""
    loads.files += 1
    if source.unreadable:
        loads.unreadable.append((source.name, source.error or "cannot be read"))
    if helm.is_chart_source(source.name, source.text):
        loads.charts.append(source.name)
        return
    result = load(source)
    if result.skipped:
        loads.skipped.append(source.name)
    if source.from_file and source.text is not None:  # its text can be read again: keep none of it meanwhile
        file = FileText(source.name, source.text)
        for item in result.objects:
            if isinstance(item.node, TextDoc):
                item.node.release(file)
    loads.objects.extend(
        item if item.obj is (placed := with_namespace(item.obj, namespace)) else replace(item, obj=placed)
        for item in result.objects
    )
    if problems:
        loads.problems.extend(Located(problem_finding(p)) for p in result.problems)


def load_chunk(job: tuple[Sequence[str | Source], bool, str]) -> Loads:
    """The first pass over a chunk of entries (files to read, or sources made already), in order."""
    entries, problems, namespace = job
    loads = Loads()
    for entry in entries:
        add(loads, read(entry) if isinstance(entry, str) else entry, problems, namespace)
    return loads
