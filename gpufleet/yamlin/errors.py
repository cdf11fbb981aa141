"""Error types shared by every layer.

Validation never stops at the first problem: it collects :class:`Issue` objects,
each naming the exact path of the bad field (``teams[2].quota.h100.borrowingLimit``),
what is wrong and how to fix it. Loaders raise :class:`ModelError` carrying all of
them plus the file they came from; adapters (CLI, Pulumi program) print one line
per issue and never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from gpufleet.kubetypes.fieldpath import FieldPath


@dataclass(frozen=True, order=True)
class Issue:
    """One problem at one path of an input document.

    ``path`` is a :class:`~gpufleet.kubetypes.fieldpath.FieldPath` wherever the issue has a field: model
    validation (checks, pydantic's error ``loc``, duplicate keys), settings and context files,
    CRD validation (whose paths rules report and the linter places). A plain string is only a
    label for a place that is no field: ``(file)``, ``(document)``, ``(more)``, ``line 3``.
    """

    path: FieldPath | str
    message: str
    fix: str = ""
    at: tuple[int, int] | None = field(default=None, compare=False)
    """1-based (line, column) where the path is written in the source, when known: ``file:line:column:``."""

    def render(self, source: str | None = None) -> str:
        where = f"{source}:{self.at[0]}:{self.at[1]}: " if source and self.at else f"{source}: " if source else ""
        hint = f" (fix: {self.fix})" if self.fix else ""
        at = f"{self.path}: " if str(self.path) else ""
        return f"{where}{at}{self.message}{hint}"


@dataclass
class ModelError(Exception):
    """A model file that cannot be used; carries every issue found in it."""

    source: str
    issues: Sequence[Issue] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(self.__str__())

    def lines(self) -> list[str]:
        return [issue.render(self.source) for issue in self.issues]

    def __str__(self) -> str:
        return "\n".join(self.lines()) or f"{self.source}: invalid"
