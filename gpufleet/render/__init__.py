"""Rendering: the fleet model to plain Kubernetes objects, chart values and the fleet context.

Pure functions (model in, plain dicts out, deterministic order, quantities as
canonical strings). :func:`render_all` is the one entry point the Pulumi components
(``gpufleet/pulumi/``), the CLI (``gpufleet render``/``plan``) and the benchmark use; the
per-kind functions live in ``kueue``, ``kueue_config``, ``volcano``, ``priority`` and
``context``. See docs/rendering.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpufleet.kubetypes.vocab import TEAM_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.render import kueue, tree
from gpufleet.render.context import render_context
from gpufleet.render.coscheduling import render_coscheduling_values
from gpufleet.render.kueue_config import render_kueue_values
from gpufleet.render.namespace_guard import render_namespace_guard
from gpufleet.render.namespaces import render_namespaces
from gpufleet.render.partition import render_partition_policies
from gpufleet.render.priority import render_priority_classes
from gpufleet.render.volcano import render_volcano_queues, render_volcano_values

__all__ = ["RenderedObject", "Rendered", "render_all"]


@dataclass(frozen=True)
class RenderedObject:
    key: str
    """Stable, unique Pulumi resource name (``clusterqueue-research``)."""
    manifest: dict[str, Any]
    engine: str
    """Which chart must be installed first: ``kueue``, ``volcano`` or ``core``."""
    protect: bool
    """True for quota objects that may hold admitted work (teams not retired, cohorts with such teams)."""
    retain: bool = False
    """Leave the object in the cluster when it leaves the stack (team namespaces: they hold the team's workloads)."""


@dataclass(frozen=True)
class Rendered:
    objects: tuple[RenderedObject, ...]
    """In apply order: team Namespaces, PriorityClasses, WorkloadPriorityClasses, Topologies, ResourceFlavors,
    Cohorts (parents first), ClusterQueues, LocalQueues, Volcano Queues (parents first), the admission policies
    (static partitioning, the namespace-label guard) and their bindings."""
    kueue_values: dict[str, Any]
    volcano_values: dict[str, Any] | None
    """None when Volcano is disabled."""
    context: dict[str, Any]
    coscheduling_values: dict[str, Any] | None = None
    """scheduler-plugins chart values; None when no pool has system: coscheduling."""


def _objects(fleet: Fleet) -> list[RenderedObject]:
    live_teams = {t.name for t in fleet.teams if t.lifecycle != "retired"}
    live_cohorts = tree.protected_cohorts(fleet)
    team_of = {t.name: t for t in fleet.teams}

    def plain(prefix: str, engine: str, manifests: list[dict[str, Any]]) -> list[RenderedObject]:
        return [RenderedObject(f"{prefix}-{m['metadata']['name']}", m, engine, False) for m in manifests]

    out = [
        RenderedObject(
            f"namespace-{m['metadata']['name']}",
            m,
            "core",
            m["metadata"]["labels"][TEAM_LABEL] in live_teams,
            retain=True,
        )
        for m in render_namespaces(fleet)
    ]
    out += plain("priorityclass", "core", render_priority_classes(fleet))
    out += plain("workloadpriorityclass", "kueue", kueue.render_workload_priority_classes(fleet))
    out += plain("topology", "kueue", kueue.render_topologies(fleet))
    out += plain("resourceflavor", "kueue", kueue.render_resource_flavors(fleet))
    out += [
        RenderedObject(f"cohort-{m['metadata']['name']}", m, "kueue", m["metadata"]["name"] in live_cohorts)
        for m in kueue.render_cohorts(fleet)
    ]
    out += [
        RenderedObject(f"clusterqueue-{m['metadata']['name']}", m, "kueue", m["metadata"]["name"] in live_teams)
        for m in kueue.render_cluster_queues(fleet)
    ]
    for m in kueue.render_local_queues(fleet):
        team = team_of[m["spec"]["clusterQueue"]]
        out.append(
            RenderedObject(f"localqueue-{team.name}-{m['metadata']['namespace']}", m, "kueue", team.name in live_teams)
        )
    if fleet.engines.volcano.enabled:
        for m in render_volcano_queues(fleet):
            name = m["metadata"]["name"]
            is_team = TEAM_LABEL in m["metadata"]["labels"]
            protect = name in live_teams if is_team else False  # a parent queue holds no jobs (leaf queues only)
            out.append(RenderedObject(f"volcanoqueue-{name}", m, "volcano", protect))
    out += [
        RenderedObject(f"{m['kind'].lower()}-{m['metadata']['name']}", m, "core", False)
        for m in [*render_partition_policies(fleet), *render_namespace_guard(fleet)]
    ]
    return out


def render_all(fleet: Fleet) -> Rendered:
    """Render every object, both charts' values and the fleet context of a validated fleet."""
    objects = _objects(fleet)
    keys = [o.key for o in objects]
    duplicates = sorted({k for k in keys if keys.count(k) > 1}) if len(set(keys)) != len(keys) else []
    if duplicates:
        raise ValueError(f"rendered objects share resource names {duplicates}: rename the teams, cohorts or namespaces")
    return Rendered(
        objects=tuple(objects),
        kueue_values=render_kueue_values(fleet),
        volcano_values=render_volcano_values(fleet) if fleet.engines.volcano.enabled else None,
        context=render_context(fleet),
        coscheduling_values=render_coscheduling_values(fleet),
    )
