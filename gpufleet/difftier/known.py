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

from gpufleet import workloads
from gpufleet.difftier.compare import FALSE_ALARM, MISS, Disagreement
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
    events = {p.get("event") for p in as_list(spec.get("policies"))} | {
        p.get("event") for t in as_list(spec.get("tasks")) for p in as_list(as_map(t).get("policies"))
    }
    return "PodFailed" in events and "PodEvicted" not in events


def _specs(docs: Docs) -> list[Mapping[str, Any]]:
    view = workloads.view(docs[-1]) if docs else None
    return [t.spec for t in view.templates] if view is not None else []


def _one_pod(docs: Docs, fleet: FleetContext | None) -> bool:
    view = workloads.view(docs[-1]) if docs else None
    return view is not None and view.total_pods == 1


def _restarts_in_place(docs: Docs, fleet: FleetContext | None) -> bool:
    """A pod template whose containers a kubelet restarts in place (``restartPolicy`` other than Never)."""
    return any(s.get("restartPolicy", "Always") != "Never" for s in _specs(docs))


def _unpinned(docs: Docs, fleet: FleetContext | None) -> bool:
    """No pod template selects nodes (no nodeSelector, no node affinity): its pods reach any node they tolerate."""
    specs = _specs(docs)
    return bool(specs) and not any(
        s.get("nodeSelector") or as_map(s.get("affinity")).get("nodeAffinity") for s in specs
    )


def _selects_a_non_volcano_pool(docs: Docs, fleet: FleetContext | None) -> bool:
    """Pods Volcano places (its scheduler, a Volcano Job) whose node selector picks a pool of another system."""
    view = workloads.view(docs[-1]) if docs else None
    if view is None or fleet is None:
        return False
    volcano = (view.group, view.kind) == ("batch.volcano.sh", "Job") or any(
        workloads.effective_scheduler(view, t) == "volcano" for t in view.templates
    )
    picked = [
        p
        for s in _specs(docs)
        for p in fleet.pools
        if as_map(s.get("nodeSelector")) and p.node_labels.items() >= as_map(s.get("nodeSelector")).items()
    ]
    return volcano and any(p.system != "volcano" for p in picked)


def _kueue_selects_another_pool(docs: Docs, fleet: FleetContext | None) -> bool:
    """A job with a Kueue queue label whose node selector picks a pool of another system."""
    view = workloads.view(docs[-1]) if docs else None
    if view is None or fleet is None or not view.queue_label:
        return False
    return any(
        p.system != "kueue"
        for s in _specs(docs)
        for p in fleet.pools
        if as_map(s.get("nodeSelector")) and p.node_labels.items() >= as_map(s.get("nodeSelector")).items()
    )


def _volcano_queue(docs: Docs, fleet: FleetContext | None) -> bool:
    view = workloads.view(docs[-1]) if docs else None
    return view is not None and bool(view.volcano_queue)


def _job_without_restart_policy(docs: Docs, fleet: FleetContext | None) -> bool:
    """A batch Job whose pod template sets no restartPolicy (the API server requires OnFailure or Never)."""
    return (
        bool(docs)
        and docs[-1].get("apiVersion") == "batch/v1"
        and docs[-1].get("kind") == "Job"
        and any("restartPolicy" not in spec for spec in _specs(docs))
    )


WHEN: dict[str, Callable[[Docs, FleetContext | None], bool]] = {
    "": lambda docs, fleet: True,
    "namespace outside Kueue": _outside_kueue,
    "PodEvicted unhandled": _evicted_unhandled,
    "one pod": _one_pod,
    "restartPolicy not Never": _restarts_in_place,
    "no node selector": _unpinned,
    "Volcano pods selecting another system's pool": _selects_a_non_volcano_pool,
    "a Volcano queue": _volcano_queue,
    "Kueue job selecting another system's pool": _kueue_selects_another_pool,
    "a batch Job without restartPolicy": _job_without_restart_policy,
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
        return (
            fnmatchcase(case_id, self.case)
            and self.rule == d.rule
            and self.kind == d.kind
            and self.outcome == d.outcome
            and WHEN[self.when](docs, fleet)
        )


CONTENTION = (
    "the gang may start partially, and does so only where the cluster lacks room for all of it; the tier "
    "tries each case alone on an idle sandbox, where a gang that fits is bound whole by any scheduler"
)

IGNORED = (
    "in a namespace Kueue does not manage its webhooks are never called: Kueue ignores the workload, which runs "
    "at once outside every quota and all-or-nothing admission (the finding says so); that harm needs contention, "
    "which a trial alone does not create"
)

UNPINNED = "pods that select no nodes reach every node whose taints they tolerate: "
"""How the reason of a false alarm on pods without a node selector begins (what the rule measured follows)."""

KNOWN: tuple[Known, ...] = (
    *(
        Known("*", code, FALSE_ALARM, O.RAN_WHOLE, CONTENTION)
        for code in ("GANG001", "GANG005", "GANG101", "GANG102", "GANG805")
    ),
    Known("*", "GANG103", FALSE_ALARM, O.RAN_WHOLE, IGNORED, when="namespace outside Kueue"),
    Known("*", "GANG104", FALSE_ALARM, O.RAN_WHOLE, IGNORED, when="namespace outside Kueue"),
    Known(
        "*",
        "GANG104",
        FALSE_ALARM,
        O.RAN_WHOLE,
        "Volcano runs a job on any open queue, `default` or another team's (volcano.md §8): the harm is capacity taken "
        "from another team's quota, not a hang, and a trial alone takes nobody's",
        when="a Volcano queue",
    ),
    Known(
        "fixture:GANG805/*",
        "GANG801",
        FALSE_ALARM,
        O.RAN_WHOLE,
        "the pods go to a scheduler that ignores the pod-group label (GANG805's finding on the same pods), so the "
        "missing PodGroup is never consulted; GANG801's denial holds for pods the coscheduler places",
    ),
    Known(
        "fixture:GANG806/*",
        None,
        MISS,
        O.NEVER_ADMITTED,
        "the fixture's pods name the scheduler-plugins scheduler, which the dev stack does not run (it has no "
        "coscheduling pool): they wait forever. No rule checks that a schedulerName is one the fleet runs (a gap, "
        "left open: GANG806 judges coscheduling pools' namespaces only)",
    ),
    *(
        Known(
            "*",
            code,
            FALSE_ALARM,
            O.STOPPED_WHOLE,
            "a one-pod job: the rules judge a Volcano Job as a gang whatever its size (gpufleet.rules.gangs), but with "
            "one rank nothing is left running short-handed when it fails",
            when="one pod",
        )
        for code in ("GANG201", "GANG204")
    ),
    *(
        Known(
            "*",
            "GANG204",
            FALSE_ALARM,
            outcome,
            "with restartPolicy OnFailure a kubelet restarts a crashed container in place and the pod never fails, so "
            "the job-level reaction the trial saw (it writes the pod Failed, as a kubelet does only under Never) would "
            "not happen on a cluster: the rank restarts alone, as GANG204 says",
            when="restartPolicy not Never",
        )
        for outcome in (O.RESTARTED_WHOLE, O.STOPPED_WHOLE)
    ),
    Known(
        "*",
        "GANG201",
        FALSE_ALARM,
        O.RESTARTED_WHOLE,
        "the trial fails a pod, it does not evict one: the job handles PodFailed (its only task restarted whole) but "
        "not PodEvicted, and a preempted or drained rank would leave the others running short-handed",
        when="PodEvicted unhandled",
    ),
    *(
        Known("*", code, FALSE_ALARM, O.RAN_WHOLE, UNPINNED + why, when="no node selector")
        for code, why in (
            (
                "GANG402",
                "GANG402 measures the nodes of the pools of the system it expects to place them (Volcano's, for pods "
                "naming the volcano scheduler), and the engines put the pod on a larger node of a Kueue pool "
                "(gpufleet.rules.placement; not changed here)",
            ),
            (
                "GANG403",
                "GANG403 measures the pool the namespace's team routes to, and the engines placed the gang on another "
                "pool's nodes (out of its pool, which is its own hazard)",
            ),
        )
    ),
    Known(
        "*",
        "GANG403",
        FALSE_ALARM,
        O.RAN_WHOLE,
        "Volcano placed the pods on the nodes their selector names, a pool of another system (Kueue's); GANG403 "
        "counts only Volcano's pools for a job Volcano places (gpufleet.rules.placement, which ignores such a "
        "selector on purpose: tests/rules/gpus/test_placement.py). Not changed here: the same selector on a job Kueue "
        "admits makes it never admitted (no flavor matches), so which pools count depends on the placing system",
        when="Volcano pods selecting another system's pool",
    ),
    Known(
        "gen:*",
        None,
        MISS,
        O.NEVER_ADMITTED,
        "Kueue assigns only its ClusterQueue's flavors, and a node selector for another system's pool matches none "
        "(\"flavor l4 doesn't match node affinity\"): never admitted. No rule checks that a Kueue job's node selector "
        "matches a flavor of its queue (a gap, left open; GANG403 counts the Kueue pools)",
        when="Kueue job selecting another system's pool",
    ),
    Known(
        "fixture:GANG102/allowed.yaml#2",
        None,
        MISS,
        O.NEVER_ADMITTED,
        "a Pod for Volcano in group `pair` (scheduling.k8s.io/group-name) with no such Volcano PodGroup: Volcano never "
        "schedules it. GANG801 checks the coscheduling PodGroups a run lacks, no rule Volcano's (a gap, left open)",
    ),
    Known(
        "fixture:*",
        None,
        MISS,
        O.REFUSED,
        "the fixture's batch Job sets no restartPolicy, which the API server's built-in validation requires "
        "(OnFailure or Never) and no rule repeats (the schema rules read CRDs only): the refusal comes at "
        "submission, with its message; the fixture was written for the rule it tests",
        when="a batch Job without restartPolicy",
    ),
    Known(
        "fixture:GANG202/disallowed.yaml#1",
        None,
        MISS,
        O.REFUSED,
        "Volcano's webhook refuses a `*` event policy beside other policies (\"if there's * here, no other policy "
        "should be here\"), a check outside the CRD schema that no rule repeats; the fixture tests GANG202's "
        "task-level action, and the refusal comes at submission with its message",
    ),
    Known(
        "example:volcano/example/invalid_jobs/*",
        None,
        MISS,
        O.REFUSED,
        "Volcano's webhook refuses what the upstream example is about (duplicated policy events), a check outside "
        "the CRD schema that no rule repeats: the refusal, with its message, comes at submission; nothing hangs",
    ),
)


def explain(case_id: str, d: Disagreement, docs: Docs = (), fleet: FleetContext | None = None) -> Known | None:
    """The entry that lists this disagreement of this case, or None."""
    return next((k for k in KNOWN if k.covers(case_id, d, docs, fleet)), None)
