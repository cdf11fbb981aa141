"""The fleet context: what the rule engine and the admission controller know of a fleet.

It is a plain, JSON-serialisable digest of a validated fleet model, produced by
``gpufleet.render.context.render_context(fleet)`` and read back here. The linter
(``--fleet MODEL``), the policy pack (stack config) and the admission controller (a
ConfigMap the stack mounts, reloaded when it changes) all hand the same object to the
engine, so none of them needs the pydantic model at run time.

Its JSON is declared once, typed, in :class:`gpufleet.fleetctx.contextschema.FleetContextDoc`
(the renderer writes through it; ``docs/fleet-context.schema.json`` is generated from
it). :meth:`FleetContext.from_dict` is the lenient reader the rules run on: no pydantic (a
plain lint run stays fast), every key optional but the names (a partial context that sets
only what one rule reads is a documented way to lint), the defaults those classes declare.

A context without ``kubernetesVersion`` (an older digest) knows no cluster: no Job counts as
gang-scheduled by Kubernetes itself (the rules judge it as before native gang scheduling).
A context without the two Kueue keys (an older digest) leaves both unknown (None): the
rules then say what happens under either setting. A context without
``partitionExemptNamespaces`` exempts :data:`PARTITION_ALWAYS_EXEMPT` alone. A team without
``quota`` (an older digest) has unknown quota ceilings: the rules comparing a gang against them skip it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import cached_property
from typing import Any, Mapping

from gpufleet.fleetctx.operators import NO_PROFILE, OperatorProfile
from gpufleet.kubetypes import quantity, workload_api
from gpufleet.kubetypes.durations import COLD_START_FLOOR_SECONDS
from gpufleet.kubetypes.vocab import (
    KNOWN_GPUS,
    KUBELET_NODE_LABELS,
    KUEUE_NAMESPACE,
    NVIDIA_GPU,
    PARTITION_ALWAYS_EXEMPT,
    QUEUE_LABEL,
    VOLCANO_NAMESPACE,
)

CONTEXT_VERSION = 1


@dataclass(frozen=True)
class TeamQuota:
    """The most of ``resource`` the team's admitting system will ever grant it on ``pool`` (the context's ``quota``).

    ``ceiling``: Kueue's maximum capacity for the team's ClusterQueue on the pool's flavor, or the team's
    Volcano queue capability; ``ceiling_from`` says what sets it (``nominal``, ``borrowingLimit``,
    ``cohort``, ``capability``, ``ancestorCapability``, ``pools``); ``scope`` ``queue`` when one ceiling
    covers every pool of the system (Volcano). See :mod:`gpufleet.render.quota_ceiling`.
    """

    pool: str
    resource: str
    system: str
    nominal: Decimal
    borrowing_limit: Decimal | None
    ceiling: Decimal
    ceiling_from: str
    scope: str = "flavor"


@dataclass(frozen=True)
class TeamContext:
    name: str
    namespaces: tuple[str, ...]
    local_queue: str | None
    volcano_queue: str | None
    pools: tuple[str, ...]
    volcano_namespaces: tuple[str, ...] = ()
    """The team's namespaces owned by Volcano (docs/architecture.md, "Who owns a namespace")."""
    quota: tuple[TeamQuota, ...] | None = None
    """The team's quota ceilings per pool and resource; None = unknown (an older context)."""

    def quota_on(self, pool: str, resource: str) -> TeamQuota | None:
        """The team's ceiling for ``resource`` on ``pool`` (None: unknown, or no quota there)."""
        return next((q for q in self.quota or () if q.pool == pool and q.resource == resource), None)

    def in_namespace(self, namespace: str) -> TeamContext:
        """The team as seen from one of its namespaces: only the owning engine's queue is kept."""
        if not self.volcano_namespaces:
            return self
        if namespace in self.volcano_namespaces:
            return replace(self, local_queue=None)
        return replace(self, volcano_queue=None)


@dataclass(frozen=True)
class PoolContext:
    name: str
    system: str
    node_count: int
    gpu_resource: str
    allocatable: Mapping[str, Decimal]
    node_labels: Mapping[str, str]
    dedicated_to: str | None = None
    cold_start_budget_seconds: int | None = None
    placement: str = "per-pod"
    """How a Kueue pool's admitted gangs are placed: ``per-pod`` or ``native`` (kube-scheduler's GangScheduling)."""
    topology_levels: tuple[str, ...] = ()
    """Node labels every node of the pool carries, one value per topology domain (block, rack, host)."""

    def carries(self, label: str) -> bool:
        """Whether every node of the pool carries ``label``: its ``nodeLabels``, its topology levels, or one the
        kubelet sets on every node (``kubernetes.io/hostname``, ``kubernetes.io/os``, ``kubernetes.io/arch``)."""
        return label in self.node_labels or label in self.topology_levels or label in KUBELET_NODE_LABELS

    @property
    def native_gangs(self) -> bool:
        """Whether kube-scheduler's own GangScheduling places this pool's gangs (``system: native`` or ``placement: native``)."""
        return self.system == "native" or self.placement == "native"

    @property
    def gpus_per_node(self) -> Decimal:
        return self.allocatable.get(self.gpu_resource, Decimal(0))

    @property
    def total_gpus(self) -> Decimal:
        return self.gpus_per_node * self.node_count


@dataclass(frozen=True)
class PriorityClassContext:
    name: str
    value: int
    preemption_policy: str


@dataclass(frozen=True)
class FleetIndex:
    """Lookups derived from one :class:`FleetContext`, built once per context (``FleetContext.index``)."""

    gpu_resources: frozenset[str]
    """Resources counted as GPUs: :data:`KNOWN_GPUS` and every pool's ``gpuResource``."""
    sorted_gpu_resources: tuple[str, ...]
    pools_by_system: Mapping[str, tuple[PoolContext, ...]]
    """The pools of each system (``kueue``, ``volcano``), in model order."""

    @classmethod
    def build(cls, pools: tuple[PoolContext, ...]) -> FleetIndex:
        names = {*KNOWN_GPUS, *(p.gpu_resource for p in pools)}
        systems: dict[str, list[PoolContext]] = {}
        for pool in pools:
            systems.setdefault(pool.system, []).append(pool)
        return cls(frozenset(names), tuple(sorted(names)), {k: tuple(v) for k, v in systems.items()})


NO_FLEET_INDEX = FleetIndex.build(())
"""The lookups without a fleet context (the known GPU names only)."""


@dataclass(frozen=True)
class FleetContext:
    fleet: str
    teams: tuple[TeamContext, ...]
    pools: tuple[PoolContext, ...]
    priority_classes: tuple[PriorityClassContext, ...] = ()
    cold_start_floor_seconds: int = COLD_START_FLOOR_SECONDS
    kueue_namespace: str = KUEUE_NAMESPACE
    volcano_namespace: str = VOLCANO_NAMESPACE
    queue_label: str = QUEUE_LABEL
    coscheduling_scheduler: str | None = None
    gang_label: str | None = None
    """Label the admission controller stamps on gang pod templates (``gpufleet.dev/gang``); None = none."""
    manage_jobs_without_queue_name: bool | None = None
    """Kueue's ``manageJobsWithoutQueueName`` as rendered; None = unknown (an older context)."""
    kueue_managed_namespaces: tuple[str, ...] | None = None
    """The namespaces Kueue's ``managedJobsNamespaceSelector`` selects; None = unknown."""
    kueue_frameworks: tuple[str, ...] | None = None
    """Kueue's enabled ``integrations.frameworks`` as rendered; None = unknown (an older context)."""
    partition_exempt_namespaces: tuple[str, ...] = PARTITION_ALWAYS_EXEMPT
    """Namespaces static partitioning exempts (the model's list, rendered into the VAP too)."""
    kubernetes_minor: int | None = None
    """The cluster's Kubernetes minor (37 for 1.37); None = unknown (an older context)."""
    workload_gates: frozenset[str] = frozenset()
    """The workload-scheduling feature gates on (:mod:`gpufleet.kubetypes.workload_api`)."""
    operators: OperatorProfile = NO_PROFILE
    """The workload operators' settings (the model's ``workloadOperators``); upstream defaults when not said."""
    _by_namespace: dict[str, TeamContext] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for team in self.teams:
            for ns in team.namespaces:
                self._by_namespace.setdefault(ns, team.in_namespace(ns))

    def team_for_namespace(self, namespace: str | None) -> TeamContext | None:
        return self._by_namespace.get(namespace or "")

    def partition_exempt(self, namespace: str | None) -> bool:
        """Whether ``namespace`` is exempt from static partitioning (GANG807 and the rendered VAP agree)."""
        return (namespace or "") in self.partition_exempt_namespaces

    @property
    def native_jobs(self) -> bool:
        """Whether this cluster's Job controller creates Workloads and PodGroups (GenericWorkload and WorkloadWithJob on, 1.36+)."""
        return (
            self.kubernetes_minor is not None
            and self.kubernetes_minor >= workload_api.JOB_GANG_MIN_MINOR
            and {workload_api.GENERIC_WORKLOAD, workload_api.WORKLOAD_WITH_JOB} <= self.workload_gates
        )

    @property
    def native_gang_api(self) -> bool:
        """Whether kube-scheduler gang-schedules PodGroups here (GenericWorkload on, 1.35+)."""
        return (
            self.kubernetes_minor is not None
            and self.kubernetes_minor >= workload_api.MIN_MINOR
            and workload_api.GENERIC_WORKLOAD in self.workload_gates
        )

    def native_pools(self, namespace: str | None) -> list[PoolContext]:
        """The pools of ``namespace``'s team whose gangs kube-scheduler places whole (empty for no team)."""
        team = self.team_for_namespace(namespace)
        return [p for p in self.team_pools(team) if p.native_gangs] if team is not None else []

    @cached_property
    def index(self) -> FleetIndex:
        """The context's :class:`FleetIndex`, built on first use and kept on this (immutable) object."""
        return FleetIndex.build(self.pools)

    def kueue_holds_unlabelled(self, namespace: str | None) -> bool | None:
        """Whether Kueue suspends a job without a queue label in ``namespace`` (None = the context does not say).

        Kueue (``pkg/controller/jobframework/reconciler.go`` at v0.19.2) manages a job without
        ``kueue.x-k8s.io/queue-name`` only when ``manageJobsWithoutQueueName`` is true and the
        namespace matches ``managedJobsNamespaceSelector``; such a job is suspended and stays
        so until a queue is named (no LocalQueue admits an empty name).
        """
        if self.manage_jobs_without_queue_name is None or self.kueue_managed_namespaces is None:
            return None
        return self.manage_jobs_without_queue_name and (namespace or "") in self.kueue_managed_namespaces

    def kueue_integrates(self, framework: str | None) -> bool | None:
        """Whether Kueue's integration ``framework`` (``batch/job``, ``pod``, ...) is enabled (None = unknown)."""
        if framework is None:
            return False
        return None if self.kueue_frameworks is None else framework in self.kueue_frameworks

    def pool(self, name: str) -> PoolContext | None:
        return next((p for p in self.pools if p.name == name), None)

    def team_pools(self, team: TeamContext) -> list[PoolContext]:
        """The pools ``team`` holds quota on, in model order."""
        return [p for p in self.pools if p.name in team.pools]

    def local_queues(self) -> frozenset[tuple[str, str]]:
        """(namespace, LocalQueue name) pairs the model declares (built once per context)."""
        return self._queues[0]

    def local_queue_names(self) -> frozenset[str]:
        """The LocalQueue names the model declares, in any namespace."""
        return self._queues[1]

    def volcano_queues(self) -> frozenset[str]:
        return self._queues[2]

    def team_for_volcano_queue(self, queue: str) -> TeamContext | None:
        """The first team (model order) whose Volcano queue is ``queue``."""
        return self._queues[3].get(queue)

    @cached_property
    def _queues(self) -> tuple[frozenset[tuple[str, str]], frozenset[str], frozenset[str], dict[str, TeamContext]]:
        """The queue look-ups, built on first use and kept (the rules ask once per object)."""
        local = frozenset(
            (ns, t.local_queue)
            for t in self.teams
            if t.local_queue
            for ns in t.namespaces
            if ns not in t.volcano_namespaces
        )
        by_queue: dict[str, TeamContext] = {}
        for team in self.teams:
            if team.volcano_queue:
                by_queue.setdefault(team.volcano_queue, team)
        return local, frozenset(name for _, name in local), frozenset(by_queue), by_queue

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FleetContext:
        if data.get("version", CONTEXT_VERSION) != CONTEXT_VERSION:
            raise ValueError(
                f"fleet context version {data.get('version')!r} is not supported (expected {CONTEXT_VERSION})"
            )
        teams = tuple(
            TeamContext(
                name=t["name"],
                namespaces=tuple(t.get("namespaces", ())),
                local_queue=t.get("localQueue"),
                volcano_queue=t.get("volcanoQueue"),
                pools=tuple(t.get("pools", ())),
                volcano_namespaces=tuple(t.get("volcanoNamespaces", ())),
                quota=_team_quota(t.get("quota")),
            )
            for t in data.get("teams", ())
        )
        pools = tuple(
            PoolContext(
                name=p["name"],
                system=p["system"],
                node_count=int(p["nodeCount"]),
                gpu_resource=p.get("gpuResource", NVIDIA_GPU),
                allocatable={k: quantity.parse(v) for k, v in p.get("allocatable", {}).items()},
                node_labels=dict(p.get("nodeLabels", {})),
                dedicated_to=p.get("dedicatedTo"),
                cold_start_budget_seconds=p.get("coldStartBudgetSeconds"),
                placement=str(p.get("placement") or "per-pod"),
                topology_levels=tuple(str(x) for x in p.get("topologyLevels") or () if isinstance(x, str)),
            )
            for p in data.get("pools", ())
        )
        classes = tuple(
            PriorityClassContext(c["name"], int(c["value"]), c.get("preemptionPolicy", "Never"))
            for c in data.get("priorityClasses", ())
        )
        return cls(
            fleet=data.get("fleet", ""),
            teams=teams,
            pools=pools,
            priority_classes=classes,
            cold_start_floor_seconds=int(data.get("coldStartFloorSeconds", COLD_START_FLOOR_SECONDS)),
            kueue_namespace=data.get("kueueNamespace", KUEUE_NAMESPACE),
            volcano_namespace=data.get("volcanoNamespace", VOLCANO_NAMESPACE),
            queue_label=data.get("queueLabel", QUEUE_LABEL),
            coscheduling_scheduler=data.get("coschedulingScheduler"),
            gang_label=data.get("gangLabel"),
            manage_jobs_without_queue_name=_optional_bool(data.get("manageJobsWithoutQueueName")),
            kueue_managed_namespaces=(
                tuple(str(n) for n in data["kueueManagedNamespaces"])
                if isinstance(data.get("kueueManagedNamespaces"), list)
                else None
            ),
            kueue_frameworks=(
                tuple(str(n) for n in data["kueueFrameworks"])
                if isinstance(data.get("kueueFrameworks"), list)
                else None
            ),
            partition_exempt_namespaces=(
                tuple(str(n) for n in data["partitionExemptNamespaces"])
                if isinstance(data.get("partitionExemptNamespaces"), list)
                else PARTITION_ALWAYS_EXEMPT
            ),
            kubernetes_minor=workload_api.minor_of(str(data.get("kubernetesVersion") or "")),
            workload_gates=frozenset(str(g) for g in data.get("workloadGates") or () if isinstance(g, str)),
            operators=OperatorProfile.from_dict(data.get("workloadOperators")),
        )


def _team_quota(raw: Any) -> tuple[TeamQuota, ...] | None:
    """The ``quota`` list of a team, leniently: None when absent or not a list; malformed entries skipped."""
    if not isinstance(raw, list):
        return None
    out = []
    for q in raw:
        try:
            borrowing = q.get("borrowingLimit")
            out.append(
                TeamQuota(
                    pool=str(q["pool"]),
                    resource=str(q.get("resource") or NVIDIA_GPU),
                    system=str(q.get("system") or ""),
                    nominal=quantity.parse(q.get("nominal", 0)),
                    borrowing_limit=None if borrowing is None else quantity.parse(borrowing),
                    ceiling=quantity.parse(q["ceiling"]),
                    ceiling_from=str(q.get("ceilingFrom") or ""),
                    scope=str(q.get("scope") or "flavor"),
                )
            )
        except (AttributeError, KeyError, TypeError, ValueError, ArithmeticError):
            continue
    return tuple(out)


def _optional_bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None
