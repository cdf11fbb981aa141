"""The differential tier's known disagreements: a case, a rule, and why the engines' behaviour is not the whole story.

Read by tests/e2e/test_difftier_e2e.py (a disagreement not listed here fails it) and by
bench/difftier_bench.py (which reports listed and unlisted ones apart); docs/sandbox.md
shows the table. ``case`` is a case id or an ``fnmatch`` pattern of ids; ``rule`` is the
rule of a false alarm, or None for a miss (no rule that fired foretold the outcome);
``when`` names a condition on the case's manifests (:data:`WHEN`) that must hold too, so
that an entry covering many cases covers only the shape its reason is about.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Callable, Mapping, Sequence

from gpufleet.difftier.compare import FALSE_ALARM, Disagreement
from gpufleet.fleetctx.context import FleetContext
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.types import as_list, as_map

Docs = Sequence[Mapping[str, Any]]


def _outside_kueue(docs: Docs, fleet: FleetContext | None) -> bool:
    """The workload's namespace is not one Kueue manages (its job webhooks are never called there)."""
    managed = fleet.kueue_managed_namespaces if fleet is not None else None
    if not docs:
        return False
    namespace = as_map(docs[-1].get("metadata")).get("namespace")
    return managed is not None and namespace not in managed


def _evicted_unhandled(docs: Docs, fleet: FleetContext | None) -> bool:
    """A Volcano Job whose policies handle PodFailed but not PodEvicted (job- or task-level)."""
    if not docs:
        return False
    spec = as_map(docs[-1].get("spec"))
    events = {p.get("event") for p in as_list(spec.get("policies"))} | \
             {p.get("event") for t in as_list(spec.get("tasks")) for p in as_list(as_map(t).get("policies"))}
    return "PodFailed" in events and "PodEvicted" not in events


WHEN: dict[str, Callable[[Docs, FleetContext | None], bool]] = {
    "": lambda docs, fleet: True,
    "namespace outside Kueue": _outside_kueue,
    "PodEvicted unhandled": _evicted_unhandled,
}


@dataclass(frozen=True)
class Known:
    case: str
    rule: str | None
    kind: str
    outcome: str
    reason: str
    when: str = ""

    def covers(self, case_id: str, d: Disagreement, docs: Docs, fleet: FleetContext | None) -> bool:
        return (fnmatchcase(case_id, self.case) and self.rule == d.rule and self.kind == d.kind
                and self.outcome == d.outcome and WHEN[self.when](docs, fleet))


CONTENTION = ("the gang may start partially, and does so only where the cluster lacks room for all of it; the tier "
              "tries each case alone on an idle sandbox, where a gang that fits is bound whole by any scheduler")

KNOWN: tuple[Known, ...] = (
    *(Known("*", code, FALSE_ALARM, O.RAN_WHOLE, CONTENTION) for code in ("GANG001", "GANG005", "GANG101")),
    Known("*", "GANG104", FALSE_ALARM, O.RAN_WHOLE,
          "in a namespace Kueue does not manage its job webhooks are never called: the queue label is ignored and the "
          "job runs at once, outside every quota and all-or-nothing admission (the finding says so); that harm needs "
          "contention, which a trial alone does not create", when="namespace outside Kueue"),
    Known("*", "GANG201", FALSE_ALARM, O.RESTARTED_WHOLE,
          "the trial fails a pod, it does not evict one: the job handles PodFailed (its only task restarted whole) but "
          "not PodEvicted, and a preempted or drained rank would leave the others running short-handed",
          when="PodEvicted unhandled"),
)


def explain(case_id: str, d: Disagreement, docs: Docs = (), fleet: FleetContext | None = None) -> Known | None:
    """The entry that lists this disagreement of this case, or None."""
    return next((k for k in KNOWN if k.covers(case_id, d, docs, fleet)), None)
