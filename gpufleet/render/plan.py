"""The plan: who holds how much of each pool, and what looks wrong, as plain data.

``gpufleet plan`` prints it as tables (the CLI only formats); numbers are in each
pool's quota resource (GPUs) and come from the same model fields the renderers use.
Warnings are advice, not errors (validation has already passed): unassigned capacity,
borrowing limits that oversubscribe a pool, teams without a cohort or without quota,
and the stranded GPUs of a statically partitioned (dedicated) pool. A pool whose gangs
kube-scheduler places whole (``system: native``, ``placement: native``) renders no object of
its own: the plan says what the control plane needs instead (:func:`cluster_needs`).

The objects to apply are every Kubernetes object the stack creates from the model:
the quota objects, the engine ConfigMaps, the gang-admission controller's objects (with the
rules' admission policies) and, when the stack says prometheus-operator
(``ControllerSettings.prometheus_operator``), the gang alerts' PodMonitors and PrometheusRules;
the same renderers as ``gpufleet/pulumi/`` (``render_monitoring``, ``volcano_admission``), so the
count cannot drift from what ``pulumi up`` creates. The controller's manifests come in from the
caller (:func:`gpufleet.stack.controller.controller_manifests`, which this layer may not import):
a required argument, so no caller can leave them out. Each
engine adds its namespace and one "Helm chart" (the objects inside a chart are the chart's).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Mapping

from gpufleet.kubetypes import workload_api
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.model.quota import PoolQuota
from gpufleet.render import Rendered, volcano_admission
from gpufleet.render.controller import ControllerSettings
from gpufleet.render.files import engine_config_maps
from gpufleet.render.monitoring import render_monitoring
from gpufleet.render.volcano import hierarchical


@dataclass(frozen=True)
class Row:
    owner: str
    """Team name, or ``cohort <name>`` for a cohort's shared quota."""
    nominal: Decimal
    borrowable: Decimal | None
    """nominal + borrowing limit; None = unlimited (a cohort member without a limit)."""
    lendable: Decimal
    """What the owner may lend to its cohort (0 without a cohort)."""
    share: Decimal
    """nominal as a percentage of the pool."""
    cohort: str | None = None
    """The cohort the owner belongs to (a cohort's parent for a cohort row)."""
    lifecycle: str = "active"
    """A team's lifecycle (``active``, ``draining``, ``retired``); cohorts are ``active``."""


@dataclass(frozen=True)
class PoolPlan:
    pool: Pool
    capacity: Decimal
    rows: tuple[Row, ...]
    warnings: tuple[str, ...]
    mode: str = "shared"
    """``shared``, ``shared, native gangs`` (a Kueue pool with ``placement: native``), ``dedicated to <team>``
    (static partitioning), ``one team`` (coscheduling) or ``one team, native gangs`` (``system: native``)."""
    stranded: Decimal = Decimal(0)
    """GPUs of a dedicated pool no other team can ever use (its whole capacity)."""


@dataclass(frozen=True)
class Plan:
    pools: tuple[PoolPlan, ...]
    warnings: tuple[str, ...]
    objects: dict[str, int] = field(default_factory=dict)
    """Rendered objects per kind, in apply order."""


def _percent(part: Decimal, whole: Decimal) -> Decimal:
    return (part * 100 / whole).quantize(Decimal("0.1")) if whole else Decimal(0)


def _row(
    owner: str, pq: PoolQuota, in_cohort: bool, capacity: Decimal, cohort: str | None = None, lifecycle: str = "active"
) -> Row:
    if not in_cohort:
        borrowable: Decimal | None = pq.nominal
    else:
        borrowable = None if pq.borrowing_limit is None else pq.nominal + pq.borrowing_limit
    lendable = Decimal(0) if not in_cohort else (pq.nominal if pq.lending_limit is None else pq.lending_limit)
    return Row(owner, pq.nominal, borrowable, lendable, _percent(pq.nominal, capacity), cohort, lifecycle)


def _ceiling(fleet: Fleet, pool: Pool) -> tuple[str, str]:
    """What bounds borrowing on ``pool``, in the words of the engine that enforces it: (why a limit above the
    pool has no effect, what the limits share)."""
    if pool.system == "volcano" and hierarchical(fleet):
        return (
            "Volcano caps a team's queue at its cohort's queue, which holds at most the cohort's quota",
            "the cohort's idle quota (Volcano caps the cohort's queue at what the cohort holds)",
        )
    if pool.system == "volcano":
        return (
            "Volcano places no more than the pool's idle GPUs",
            "the pool's idle GPUs (each team's Volcano queue sits under root: no cohort caps them together)",
        )
    return (
        "Kueue never admits beyond the cohort's unused quota",
        "the cohort's unused quota (Kueue never admits beyond the cohort's total)",
    )


def _pool_warnings(fleet: Fleet, pool: Pool, capacity: Decimal, rows: list[Row], teams: int) -> list[str]:
    out = []
    no_effect, shared = _ceiling(fleet, pool)
    nominal = sum((r.nominal for r in rows), Decimal(0))
    unit = pool.gpu_resource
    if nominal > capacity:
        out.append(f"nominal quota {nominal} exceeds the pool's {capacity} {unit}")
    elif nominal < capacity:
        spare = capacity - nominal
        out.append(
            f"{spare} {unit} ({_percent(spare, capacity)}%) are in no team's or cohort's nominal quota (unused unless borrowed)"
        )
    team_rows = rows[:teams]
    for r in team_rows:
        if r.borrowable is not None and r.borrowable > capacity:
            out.append(
                f"{r.owner}'s nominal + borrowing limit is {r.borrowable} {unit}, more than the pool's {capacity}: "
                f"{no_effect}, so the limit above that has no effect"
            )
    capped = [r.borrowable for r in team_rows if r.borrowable is not None]
    unlimited = [r.owner for r in team_rows if r.borrowable is None]
    reach = sum(capped, Decimal(0))
    if reach > capacity and len(team_rows) > 1:
        out.append(
            f"nominal + borrowing limits add up to {reach} of the pool's {capacity} {unit}: the limits are first come, "
            f"first served within {shared}"
        )
    if unlimited:
        out.append(
            f"{len(unlimited)} team(s) may borrow without limit: {', '.join(unlimited[:5])}{' ...' if len(unlimited) > 5 else ''}"
        )
    return out


def _pool_plan(fleet: Fleet, pool: Pool) -> PoolPlan:
    capacity = pool.capacity
    rows = [
        _row(
            t.name, t.quota[pool.name], t.cohort is not None and not _single_team(pool), capacity, t.cohort, t.lifecycle
        )
        for t in fleet.teams
        if pool.name in t.quota
    ]
    teams = len(rows)
    rows += [
        _row(f"cohort {c.name}", c.quota[pool.name], c.parent is not None, capacity, c.parent)
        for c in fleet.cohorts
        if pool.name in c.quota
    ]
    warnings = _pool_warnings(fleet, pool, capacity, rows, teams)
    if pool.dedicated_to:
        warnings.insert(
            0,
            f"dedicated to team {pool.dedicated_to}: {capacity} {pool.gpu_resource} stranded (no other team can use them, "
            "even while they are idle)",
        )
        return PoolPlan(pool, capacity, tuple(rows), tuple(warnings), f"dedicated to {pool.dedicated_to}", capacity)
    mode = "one team" if pool.system in ("coscheduling", "native") else "shared"
    if pool.system == "native" or pool.placement == "native":
        mode += ", native gangs"
    return PoolPlan(pool, capacity, tuple(rows), tuple(warnings), mode)


def _single_team(pool: Pool) -> bool:
    """Pools no cohort reaches: dedicated, coscheduling and native pools (validation enforces it)."""
    return pool.dedicated_to is not None or pool.system in ("coscheduling", "native")


def cluster_needs(fleet: Fleet) -> list[str]:
    """What the control plane must run for the model's native gang pools (gpufleet renders no object for them)."""
    native = [p.name for p in fleet.pools if p.system == "native" or p.placement == "native"]
    if not native:
        return []
    k8s = fleet.kubernetes
    gates = ",".join(f"{g}=true" for g in sorted(k8s.gates_on))
    return [
        f"native gang pools {', '.join(native)}: no object is rendered for them (no second scheduler, no PodGroup "
        f"to write: the Job controller creates the Workload and PodGroup); Kubernetes {k8s.version} needs "
        f"--feature-gates={gates} on kube-apiserver, kube-controller-manager and kube-scheduler, and "
        f"--runtime-config={workload_api.runtime_config(k8s.minor)} on kube-apiserver"
    ]


def _isolated(fleet: Fleet, team_quota: dict[str, Any]) -> bool:
    pools = [fleet.pool(name) for name in team_quota]
    return bool(pools) and all(p is not None and _single_team(p) for p in pools)


def _fleet_warnings(fleet: Fleet) -> list[str]:
    out = cluster_needs(fleet)
    no_cohort = [t.name for t in fleet.teams if t.cohort is None and t.quota and not _isolated(fleet, t.quota)]
    if no_cohort:
        out.append(
            f"{len(no_cohort)} team(s) have no cohort and can neither borrow idle quota nor lend theirs: {', '.join(no_cohort[:10])}{' ...' if len(no_cohort) > 10 else ''}"
        )
    no_quota = [t.name for t in fleet.teams if not t.quota]
    if no_quota:
        out.append(
            f"{len(no_quota)} team(s) have no quota on any pool: {', '.join(no_quota[:10])}{' ...' if len(no_quota) > 10 else ''}"
        )
    used = {name for owner in fleet.quota_owners for name in owner.quota}
    for pool in fleet.pools:
        if pool.name not in used:
            out.append(f"pool {pool.name} has no quota at all: its {pool.capacity} {pool.gpu_resource} are unused")
    return out


SECRET = {"kind": "Secret"}  # a serving certificate's Secret, whose data pulumi-tls makes at deploy time
CHART = {"kind": "Helm chart"}  # an engine's chart release (its own objects are the chart's)


def stack_objects(
    fleet: Fleet, rendered: Rendered, controller: Mapping[str, Mapping[str, Any]], settings: ControllerSettings
) -> list[Mapping[str, Any]]:
    """The manifests the stack creates besides the quota objects: engines (unless installed already), the
    ``controller`` manifests (and its serving certificate's Secret), gang alerts."""
    out: list[Mapping[str, Any]] = []
    if not settings.engines_installed:
        out += engine_config_maps(fleet)  # what the charts make from gpufleet's values
        engines = 1 + (rendered.volcano_values is not None) + (rendered.coscheduling_values is not None)
        out += [*({"kind": "Namespace"}, CHART) * engines]  # gpufleet/pulumi/engine.py: a namespace and a chart each
        if rendered.volcano_values is not None:  # gpufleet/pulumi/volcano.py: its admission certificate
            out += list(volcano_admission.cert_manager_objects(fleet).values()) if settings.cert_manager else [SECRET]
    manifests = list(controller.values())
    if manifests and not settings.cert_manager:  # gpufleet/pulumi/controller.py
        manifests.append(SECRET)
    alerts = render_monitoring(fleet) if settings.prometheus_operator else []  # gpufleet/pulumi/observability.py
    return [*out, *manifests, *alerts]


def build_plan(
    fleet: Fleet,
    rendered: Rendered,
    controller: Mapping[str, Mapping[str, Any]],
    settings: ControllerSettings | None = None,
) -> Plan:
    """The plan of ``fleet`` as a stack with these controller ``settings`` applies it (default: the stack defaults).

    ``controller``: the controller component's manifests rendered with the same settings
    (:func:`gpufleet.stack.controller.controller_manifests`)."""
    objects = Counter("Volcano Queue" if o.engine == "volcano" else o.manifest["kind"] for o in rendered.objects)
    objects.update(m["kind"] for m in stack_objects(fleet, rendered, controller, settings or ControllerSettings()))
    return Plan(
        pools=tuple(_pool_plan(fleet, p) for p in fleet.pools if any(p.name in o.quota for o in fleet.quota_owners)),
        warnings=tuple(_fleet_warnings(fleet)),
        objects=dict(objects),
    )


def _num(value: Decimal | None) -> int | float | None:
    return None if value is None else (int(value) if value == value.to_integral_value() else float(value))


def plan_dict(plan: Plan) -> dict[str, Any]:
    """The plan as JSON-ready data (``gpufleet plan --format json``); None = unlimited."""
    return {
        "pools": [
            {
                "name": pp.pool.name,
                "system": pp.pool.system,
                "mode": pp.mode,
                "nodeCount": pp.pool.node_count,
                "resource": pp.pool.gpu_resource,
                "capacity": _num(pp.capacity),
                "stranded": _num(pp.stranded),
                "rows": [
                    {
                        "owner": r.owner,
                        "cohort": r.cohort,
                        "lifecycle": r.lifecycle,
                        "nominal": _num(r.nominal),
                        "nominalPlusBorrowing": _num(r.borrowable),
                        "lendable": _num(r.lendable),
                        "sharePercent": _num(r.share),
                    }
                    for r in pp.rows
                ],
                "warnings": list(pp.warnings),
            }
            for pp in plan.pools
        ],
        "warnings": list(plan.warnings),
        "objects": dict(plan.objects),
    }
