"""The PodGroups a set of manifests needs on coscheduling pools (``gpufleet podgroups``).

Nothing creates a scheduler-plugins PodGroup for a plain Job, JobSet or Kubeflow job
(the Trainer v2 runtime does, for TrainJobs): this derives one per gang from the
workload and the fleet model, with the rules of :mod:`gpufleet.render.coscheduling`
(``minMember`` = every pod, ``scheduleTimeoutSeconds`` = the permit wait ``engines.coscheduling.permitWait``, not the
cold-start budget: Permit runs before binding).
The group is named after the workload, as the admission controller's label
(:mod:`gpufleet.mutate.coscheduling`), unless a template already names one. Pure;
called by ``gpufleet.cli.advise_cmds``. Lives above ``gpufleet.workloads`` in the
layers (render may not read workloads).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from gpufleet import workloads
from gpufleet.kubetypes import vocab
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.render.coscheduling import render_pod_group, timeout_seconds


def _group_name(view: workloads.WorkloadView) -> str | None:
    for template in view.templates:
        name = template.labels.get(vocab.COSCHEDULING_GROUP)
        if name:
            return str(name)
    name = workloads.as_map(view.obj.get("metadata")).get("name")
    return str(name) if name else None


def _coscheduling_pool(fleet: Fleet, namespace: str | None) -> tuple[str, Pool] | None:
    for team in fleet.teams:
        if namespace in team.namespaces:
            pool = next((p for p in fleet.pools_of("coscheduling") if p.name in team.quota), None)
            return (team.name, pool) if pool else None
    return None


def render_pod_groups(fleet: Fleet, objects: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The PodGroup each multi-pod workload in a coscheduling team's namespace needs (one per group name)."""
    out: dict[tuple[str | None, str], dict[str, Any]] = {}
    for obj in objects:
        view = workloads.view(obj)
        if view is None or view.kind == "PodGroup" or view.total_pods < 2:
            continue
        found = _coscheduling_pool(fleet, view.namespace)
        name = _group_name(view)
        if found is None or name is None:
            continue
        team, pool = found
        minimum = view.gang_min if view.elastic and view.gang_min else view.total_pods
        out.setdefault(
            (view.namespace, name),
            render_pod_group(fleet, name, view.namespace, minimum, timeout_seconds(fleet, pool), team),
        )
    return list(out.values())
