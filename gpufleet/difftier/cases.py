"""The differential tier's cases: one workload and the objects it needs, from fixtures, examples or the generator.

Called by tests/e2e/test_difftier_e2e.py and bench/difftier_bench.py (through
:mod:`gpufleet.sandbox.difftrial`). A YAML file (a rule's ``allowed.yaml`` or
``disallowed.yaml``, an upstream example) holds several documents; each document that
makes pods becomes one case, together with the file's documents that make none but
that the workload may join or read (PodGroups, ConfigMaps, Services, Secrets).
Everything else in the file (queues, cluster-wide configuration, namespaces) stays out:
a trial must not change the sandbox it shares with the next case. Every case has an
id that says where it came from (``fixture:GANG001/disallowed.yaml#1``,
``example:volcano/example/job.yaml#0``, ``gen:7:12`` for seed 7, shape 12).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from gpufleet import workloads
from gpufleet.yamlin import yamlio

COMPANIONS = frozenset({"PodGroup", "ConfigMap", "Service", "Secret"})
"""Kinds that ride along with each workload of their file (PodGroups of any group)."""


@dataclass(frozen=True)
class Case:
    id: str
    docs: tuple[Mapping[str, Any], ...]
    seed: int | None = None
    """The generator's seed (generated cases): ``gen:SEED:N`` is shape N of ``generate.shapes(fleet, SEED, ...)``."""
    notes: tuple[str, ...] = field(default=())
    """What the generator varied, in words (generated cases)."""


def makes_pods(doc: Mapping[str, Any]) -> bool:
    v = workloads.view(doc)
    return v is not None and v.kind != "PodGroup" and v.total_pods > 0


def split(docs: Iterable[Mapping[str, Any]], prefix: str) -> list[Case]:
    """One case per pod-making document (``prefix#index``, the index among the file's documents), with its companions."""
    docs = [d for d in docs if isinstance(d, Mapping)]
    companions = tuple(d for d in docs if d.get("kind") in COMPANIONS and not makes_pods(d))
    return [Case(f"{prefix}#{i}", (*companions, d)) for i, d in enumerate(docs) if makes_pods(d)]


def from_file(path: Path, prefix: str) -> list[Case]:
    """The cases of one YAML file (unreadable documents are left out: GANG000's fixtures are not objects)."""
    try:
        docs = [d.value for d in yamlio.load_documents(path.read_text(encoding="utf-8"))]
    except Exception:  # noqa: BLE001 - malformed on purpose (GANG000): no object to try
        return []
    return split(docs, prefix)


def fixtures(root: Path) -> list[Case]:
    """Every rule fixture's cases: ``root/<CODE>/{allowed,disallowed}.yaml`` (tests/rules/fixtures)."""
    return [
        case
        for folder in sorted(p for p in root.iterdir() if p.is_dir())
        for name in ("allowed.yaml", "disallowed.yaml")
        if (folder / name).exists()
        for case in from_file(folder / name, f"fixture:{folder.name}/{name}")
    ]


def examples(root: Path) -> list[Case]:
    """Every upstream example's cases (``root`` is ../shared/examples/upstream)."""
    return [
        case
        for path in sorted(root.rglob("*.yaml"))
        for case in from_file(path, f"example:{path.relative_to(root).as_posix()}")
    ]
