"""Seeded shapes for the differential tier: workloads that vary the fields the rules read, from a fleet model.

Called by tests/e2e/test_difftier_e2e.py and bench/difftier_bench.py. Shape ``n`` of seed
``s`` is drawn from its own ``random.Random(f"{s}:{n}")``, so ``gen:s:n`` reproduces alone,
whatever else ran. What varies, each drawn from the model's own names (and one wrong name
where a wrong name is what a rule reads): the kind (batch Indexed Job or Volcano Job);
the namespace (a team's Kueue or Volcano namespace, or one no team owns); ranks, GPUs per
rank and the pool (node selector and tolerations, or none); the Kueue queue label and the
Volcano queue (the team's, another, a missing one, none); the PriorityClass; for a Job,
completions versus parallelism, ``backoffLimit``, ``restartPolicy`` and the scheduler;
for a Volcano Job, ``minAvailable`` against the ranks, the failure policies, a launcher
task that ``dependsOn`` the workers. Only kinds whose controllers the sandbox runs are
generated (no JobSet or Kubeflow controller runs there).
"""

from __future__ import annotations

import random
from typing import Any

from gpufleet.difftier.cases import Case
from gpufleet.kubetypes.vocab import NVIDIA_GPU, QUEUE_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool

UNOWNED = "scratch"
"""A namespace no team of the model owns (the trial creates it when missing)."""
VC_API = "batch.volcano.sh/v1alpha1"
POLICIES = {
    "none": [],
    "restartJob": [{"event": "PodFailed", "action": "RestartJob"}, {"event": "PodEvicted", "action": "RestartJob"}],
    "restartTask": [{"event": "PodFailed", "action": "RestartTask"}],
    "evictedOnly": [{"event": "PodEvicted", "action": "RestartJob"}],
}


def _pod_spec(r: random.Random, pool: Pool | None, gpus: int, resource: str, notes: list[str]) -> dict[str, Any]:
    limits = {resource: str(gpus)}
    requests = {**limits, "cpu": "1"}
    if r.random() < 0.1:
        requests[resource] = str(max(gpus - 1, 1) if gpus > 1 else 2)
        notes.append("GPU request differs from its limit")
    spec: dict[str, Any] = {
        "containers": [{"name": "trainer", "image": "trainer:1", "resources": {"requests": requests, "limits": limits}}]
    }
    if pool is not None:
        spec["nodeSelector"] = dict(pool.node_labels)
        if pool.tolerations and r.random() < 0.85:
            spec["tolerations"] = [t.model_dump(by_alias=True, exclude_none=True) for t in pool.tolerations]
        elif pool.tolerations:
            notes.append(f"no tolerations for pool {pool.name}")
    else:
        spec["tolerations"] = [{"key": resource, "operator": "Exists", "effect": "NoSchedule"}]
    return spec


def _place(r: random.Random, fleet: Fleet, volcano: bool) -> tuple[str, Any]:
    """A namespace for the shape and the team owning it (None for the unowned namespace)."""
    choices: list[tuple[str, Any]] = [(UNOWNED, None)]
    for team in fleet.teams:
        vc = set(team.volcano_namespaces)
        choices += [(ns, team) for ns in team.namespaces if (ns in vc) == volcano]
        if r.random() < 0.15:  # the other engine's namespace: GANG108 and the routing rules read it
            choices += [(ns, team) for ns in team.namespaces if (ns in vc) != volcano]
    return r.choice(choices)


def _job(r: random.Random, fleet: Fleet, n: str, notes: list[str]) -> dict[str, Any]:
    namespace, team = _place(r, fleet, volcano=False)
    pool = r.choice([*fleet.pools, None])
    resource = pool.gpu_resource if pool else NVIDIA_GPU
    ranks = r.randint(1, 5)
    gpus = r.choice([1, 2, 4, int(pool.gpus_per_node) if pool else 8])
    spec = _pod_spec(r, pool, gpus, resource, notes)
    spec["restartPolicy"] = r.choice(["Never", "Never", "OnFailure"])
    if r.random() < 0.15:
        spec["schedulerName"] = "volcano"
    labels: dict[str, str] = {}
    queue = r.choice(["team", "team", "missing", "none"])
    if queue == "team" and team is not None:
        labels[QUEUE_LABEL] = team.local_queue_name
    elif queue == "missing":
        labels[QUEUE_LABEL] = "no-such-queue"
    _priority(r, fleet, spec, notes)
    body: dict[str, Any] = {
        "parallelism": ranks,
        "completions": ranks if r.random() < 0.8 else ranks + 1,
        "completionMode": "Indexed",
        "template": {"metadata": {"labels": {"app": f"gen-{n}"}}, "spec": spec},
    }
    backoff = r.choice([0, 0, 6, None])
    if backoff is not None:
        body["backoffLimit"] = backoff
    notes.append(
        f"Job in {namespace}, {ranks} x {gpus} GPUs, pool {pool.name if pool else '-'}, queue {labels.get(QUEUE_LABEL, '-')}, "
        f"backoffLimit {backoff}, restartPolicy {spec['restartPolicy']}, scheduler {spec.get('schedulerName', '-')}"
    )
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": f"gen-{n}", "namespace": namespace, "labels": labels},
        "spec": body,
    }


def _priority(r: random.Random, fleet: Fleet, spec: dict[str, Any], notes: list[str]) -> None:
    pick = r.random()
    if pick < 0.2 and fleet.priority_classes:
        spec["priorityClassName"] = r.choice(fleet.priority_classes).name
    elif pick < 0.25:
        spec["priorityClassName"] = "no-such-class"
        notes.append("missing PriorityClass")


def _vcjob(r: random.Random, fleet: Fleet, n: str, notes: list[str]) -> dict[str, Any]:
    namespace, team = _place(r, fleet, volcano=True)
    pools = fleet.pools_of("volcano") or fleet.pools
    pool = r.choice([*pools, None])
    resource = pool.gpu_resource if pool else NVIDIA_GPU
    ranks = r.randint(1, 4)
    gpus = r.choice([1, 2, int(pool.gpus_per_node) if pool else 4])
    spec = _pod_spec(r, pool, gpus, resource, notes)
    spec["restartPolicy"] = r.choice(["Never", "Never", "OnFailure"])
    _priority(r, fleet, spec, notes)
    tasks = [
        {"name": "worker", "replicas": ranks, "template": {"metadata": {"labels": {"app": f"gen-{n}"}}, "spec": spec}}
    ]
    launcher = r.random() < 0.3
    if launcher:
        tasks.append(
            {
                "name": "launcher",
                "replicas": 1,
                "dependsOn": {"name": ["worker"]},
                "template": {
                    "spec": {
                        "containers": [
                            {"name": "launcher", "image": "launcher:1", "resources": {"requests": {"cpu": "1"}}}
                        ],
                        "restartPolicy": "Never",
                        "tolerations": spec.get("tolerations", []),
                    }
                },
            }
        )
    pods = ranks + launcher
    minimum = r.choice([pods, pods, ranks, pods - 1, pods + 1, None])
    policy = r.choice(list(POLICIES))
    body: dict[str, Any] = {"schedulerName": "volcano", "tasks": tasks}
    if minimum is not None and minimum >= 0:
        body["minAvailable"] = minimum
    if POLICIES[policy]:
        body["policies"] = POLICIES[policy]
    queue = r.choice(["team", "team", "default", "missing", "none"])
    if queue == "team" and team is not None:
        body["queue"] = team.name
    elif queue == "default":
        body["queue"] = "default"
    elif queue == "missing":
        body["queue"] = "no-such-queue"
    notes.append(
        f"Volcano Job in {namespace}, {ranks} x {gpus} GPUs{' + launcher dependsOn workers' if launcher else ''}, "
        f"minAvailable {body.get('minAvailable', '-')}, policies {policy}, queue {body.get('queue', '-')}, "
        f"pool {pool.name if pool else '-'}, restartPolicy {spec['restartPolicy']}"
    )
    return {"apiVersion": VC_API, "kind": "Job", "metadata": {"name": f"gen-{n}", "namespace": namespace}, "spec": body}


def shape(fleet: Fleet, seed: int, n: int) -> Case:
    """Shape ``n`` of ``seed``: the same case every time."""
    r = random.Random(f"{seed}:{n}")
    notes: list[str] = []
    make = _vcjob if r.random() < 0.5 and (fleet.pools_of("volcano") or fleet.engines.volcano.enabled) else _job
    doc = make(r, fleet, f"{seed}-{n}", notes)  # unique across seeds: a case left behind never blocks another
    return Case(f"gen:{seed}:{n}", (doc,), seed=seed, notes=tuple(reversed(notes)))


def shapes(fleet: Fleet, seed: int, count: int, start: int = 0) -> list[Case]:
    return [shape(fleet, seed, n) for n in range(start, start + count)]
