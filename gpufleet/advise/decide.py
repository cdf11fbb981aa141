"""The premise's decision table, one pool at a time, as a pure function.

Called by :func:`gpufleet.advise.advise`. The four questions, answered from the model
and the jobs given:

1. **Contention or fragmentation?** Several teams (or a cohort) hold quota on the pool:
   the hard problem is contention between teams, which needs queues and quota (Kueue).
   One team: the hard problem is fragmentation within its own work.
2. **Larger than the contiguous free block?** A busy pool runs about
   ``1 - free_fraction`` allocated (default 90%), its free GPUs scattered over nodes:
   the block a job can routinely get is ``max(one node, free_fraction × capacity
   rounded down to whole nodes)``, and never more than one rack or block of
   ``BLOCK_NODES`` nodes (16): free capacity is scattered, so 10% of a 1,250-node pool
   is not 125 contiguous nodes (a single team's small pool is exempt: the team
   controls its own load, and a PodGroup waits for the whole gang). A job above it only
   starts if admission holds the whole gang back and placement finds one contiguous
   domain: Kueue with topology-aware scheduling (atomic placement), and
   ``topologyLevels`` on the pool. A shared pool of ``LARGE_POOL`` GPUs (1,024) or more
   gets that by default, jobs given or not: the essay's default for large shared
   research fleets is Kueue for admission plus a gang scheduler for placement.
3. **Elastic?** Jobs that opt into a smaller world size (``gpufleet.dev/elastic`` or a
   PyTorch ``elasticPolicy``) suit a gang minimum below the replica count: Volcano's
   ``minAvailable`` on a shared pool (Kueue admits a job at its full size).
4. **Who runs the control plane?** The mechanism's components, and whether the fleet
   already runs them (Kueue always; Volcano when enabled; scheduler-plugins when a pool
   uses it). A single small pool of one team gets the coscheduling plugin: one
   extra scheduler, no queues to run. One team elsewhere (a larger pool, or work on
   other pools too) still has fragmentation, not contention, as its problem (question 1):
   Volcano, where gang semantics and placement come together, not Kueue's queues.

Kubernetes' own gang scheduling (``native``; facts in :mod:`gpufleet.kubetypes.workload_api`,
read at kubernetes v1.37.2) is weighed only where the model's cluster runs it (``kubernetes``
1.36+ with ``GenericWorkload`` and ``WorkloadWithJob`` on; all off by default up to 1.37): it
needs no second scheduler (kube-scheduler's GangScheduling plugin and the Job controller's
PodGroups), but its Permit wait is a fixed 5 minutes, topology needs the alpha
``TopologyAwareWorkloadScheduling`` gate (one label key per PodGroup), a 1.37 Job must ask
with ``spec.scheduling`` (the admission controller adds it), and a PodGroup is preempted pod by
pod unless ``disruptionMode: all`` (GANG207). So on such a cluster the small one-team pool gets
``native`` instead of the coscheduling plugin, and a shared pool that would get plain ``kueue``
gets ``kueue+native`` (Kueue admits, kube-scheduler places the gang whole: the seed's
"Kueue for admission, a gang scheduler for placement" with one controller instead of two).
Larger pools keep Kueue's topology-aware admission (``kueue+tas``) and Volcano's binpacking,
which native placement does not replace.

Static partitioning is never inferred (isolation is a compliance decision the model
states with ``dedicatedTo``); the default kube-scheduler is never recommended for
synchronous gangs **per pod**: without the gates it binds pod by pod. Rows, in order (first match wins):

| pool | jobs | recommendation |
|---|---|---|
| ``dedicatedTo`` set | any | static (keep) |
| no quota | any | none |
| one team, ≤ ``small_pool`` GPUs, no quota elsewhere, cluster runs native gangs | any | native |
| one team, ≤ ``small_pool`` GPUs, no quota elsewhere | any | coscheduling |
| any | largest job > free block, at least half of them Volcano Jobs | volcano (Kueue never admits a Volcano Job) |
| any | largest job > free block | kueue+tas (the reason says what any Volcano Jobs would have to become) |
| ≥2 teams or cohort quota | some elastic | volcano |
| ≥2 teams or cohort quota | Volcano Jobs, or the pool is Volcano's already | volcano |
| ≥2 teams or cohort quota, ≥ ``LARGE_POOL`` GPUs | otherwise | kueue+tas |
| ≥2 teams or cohort quota, cluster runs native gangs | otherwise | kueue+native |
| ≥2 teams or cohort quota | otherwise | kueue |
| one team | otherwise | volcano |

A pool that would get ``kueue`` and already has ``topologyLevels`` keeps ``kueue+tas``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from gpufleet.advise.jobs import Job
from gpufleet.advise.topology import propose
from gpufleet.kubetypes import workload_api
from gpufleet.kubetypes.vocab import QUEUE_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool

FREE_FRACTION = Decimal("0.10")
SMALL_POOL = Decimal(64)
BLOCK_NODES = 16
"""Nodes of one rack or block: the most a busy pool's scattered free capacity is realistically contiguous (an assumption)."""
LARGE_POOL = Decimal(1024)
"""GPUs from which a shared pool defaults to Kueue + gang placement (topology-aware admission)."""
COMPONENTS = {
    "kueue": "kueue-controller-manager (admission, quota, webhooks)",
    "kueue+tas": "kueue-controller-manager with topology-aware scheduling",
    "volcano": "volcano-scheduler, volcano-controllers, volcano-admission",
    "coscheduling": "scheduler-plugins scheduler and controller (a second scheduler)",
    "native": "none beyond kube-scheduler's GangScheduling plugin and the Job controller (no second scheduler)",
    "kueue+native": "kueue-controller-manager; kube-scheduler's GangScheduling plugin places the admitted gangs (no second scheduler)",
    "static": "none beyond the default scheduler and the gpufleet admission controller",
    "none": "none",
}


@dataclass(frozen=True)
class Facts:
    teams: tuple[str, ...]
    cohort_quota: bool
    capacity: Decimal
    gpus_per_node: Decimal
    free_block: Decimal
    largest_job: Decimal
    elastic_jobs: tuple[str, ...]
    volcano_jobs: int
    jobs: int
    owner_elsewhere: bool
    """The only team also holds quota on other pools (so coscheduling would route all its work away)."""


def free_block(pool: Pool, fraction: Decimal = FREE_FRACTION) -> Decimal:
    per_node = pool.gpus_per_node
    if per_node <= 0:
        return Decimal(0)
    nodes = min(int(pool.node_count * fraction), BLOCK_NODES)
    return max(per_node, per_node * nodes)


def facts(fleet: Fleet, pool: Pool, jobs: list[Job], fraction: Decimal = FREE_FRACTION) -> Facts:
    teams = tuple(t.name for t in fleet.teams if pool.name in t.quota)
    mine = [j for j in jobs if j.pool == pool.name]
    owner = next((t for t in fleet.teams if teams and t.name == teams[0]), None)
    return Facts(
        teams=teams,
        cohort_quota=any(pool.name in c.quota for c in fleet.cohorts),
        capacity=pool.capacity,
        gpus_per_node=pool.gpus_per_node,
        free_block=free_block(pool, fraction),
        largest_job=max((j.gpus for j in mine), default=Decimal(0)),
        elastic_jobs=tuple(f"{j.namespace}/{j.name}" for j in mine if j.elastic),
        volcano_jobs=sum(1 for j in mine if j.volcano),
        jobs=len(mine),
        owner_elsewhere=owner is not None and any(name != pool.name for name in owner.quota),
    )


def decide(fleet: Fleet, pool: Pool, f: Facts, small_pool: Decimal = SMALL_POOL) -> tuple[str, str]:
    """(mechanism, reason) for ``pool``: the first row of the module's table that matches."""
    shared = len(f.teams) > 1 or f.cohort_quota
    who = (
        f"{len(f.teams)} teams{' and a cohort' if f.cohort_quota else ''} share it"
        if shared
        else f"only team {f.teams[0]!r} uses it"
        if f.teams
        else "no team uses it"
    )
    if pool.dedicated_to:
        return "static", (
            f"The model dedicates it to team {pool.dedicated_to!r} (isolation as a compliance requirement); "
            f"its {f.capacity} GPUs are stranded for everyone else, so keep it only while that requirement holds."
        )
    if not f.teams and not f.cohort_quota:
        return "none", "No team or cohort holds quota on it: give it to a team before choosing a mechanism."
    if not shared and f.capacity <= small_pool and not f.owner_elsewhere and fleet.kubernetes.native_jobs:
        return "native", (
            f"{who.capitalize()} on a small pool ({f.capacity} GPUs): the problem is fragmentation within one team, "
            f"and Kubernetes {fleet.kubernetes.version} with {workload_api.GENERIC_WORKLOAD} and "
            f"{workload_api.WORKLOAD_WITH_JOB} gang-schedules it itself, with no second scheduler to run. "
            + native_caveats(fleet)
        )
    if not shared and f.capacity <= small_pool and not f.owner_elsewhere:
        return "coscheduling", (
            f"{who.capitalize()} on a small pool ({f.capacity} GPUs): the problem is fragmentation within one "
            "team, which the coscheduling plugin's PodGroups solve with the least to operate."
        )
    if f.largest_job > f.free_block:
        return _large_job(who, f)
    if shared and f.elastic_jobs:
        return "volcano", (
            f"{who.capitalize()} (contention), and {len(f.elastic_jobs)} job(s) may run with a smaller world size: "
            "Volcano queues share the pool and minAvailable below the replica count serves the elastic jobs."
        )
    if shared and (f.volcano_jobs or pool.system == "volcano"):
        why = (
            f"{f.volcano_jobs} of its jobs are Volcano Jobs"
            if f.volcano_jobs
            else "the pool already runs Volcano queues"
        )
        return "volcano", (
            f"{who.capitalize()} (contention), which Kueue and Volcano both solve; {why}, "
            "so Volcano's queues and minAvailable gangs stay the cheaper choice."
        )
    if shared and f.capacity >= LARGE_POOL:
        return "kueue+tas", (
            f"{who.capitalize()} on a large pool ({f.capacity} GPUs): contention between teams needs Kueue's quota "
            "and gang admission, and placement of gangs larger than one rack needs a gang scheduler "
            "(topology-aware, atomic), the default for large shared research fleets."
        )
    if shared:
        sizes = (
            "no job outgrows the routine free block" if f.jobs else "no jobs were given, so job sizes were not weighed"
        )
        reason = (
            f"{who.capitalize()}: the hard problem is contention between teams, which Kueue's quota, borrowing "
            f"and gang admission (waitForPodsReady) solve; {sizes}."
        )
        if fleet.kubernetes.native_jobs and not (pool.system == "kueue" and pool.topology_levels):
            return "kueue+native", (
                reason + f" Kubernetes {fleet.kubernetes.version} places each admitted gang whole itself "
                "(kube-scheduler's GangScheduling), so no pod binds while its gang waits: Kueue for "
                "admission and a gang scheduler for placement, with one controller. " + native_caveats(fleet)
            )
        return _keep_tas(pool, reason)
    scope = (
        "one of several pools this team uses"
        if f.owner_elsewhere
        else f"a {f.capacity}-GPU pool, more than a small cluster"
    )
    return "volcano", (
        f"{who.capitalize()}, so there is no contention between teams: the hard problem is fragmentation within "
        f"its own work on {scope}. That needs gang semantics and placement together (all-or-nothing PodGroups, "
        "binpacking), which Volcano gives in one scheduler; quota between teams (Kueue) would solve a problem "
        "this pool does not have."
    )


def _large_job(who: str, f: Facts) -> tuple[str, str]:
    """A job above the free block: Kueue with TAS, unless the pool's jobs are mostly Volcano Jobs, which Kueue never admits."""
    above = f"{who.capitalize()}, and a {f.largest_job}-GPU job exceeds the {f.free_block}-GPU contiguous block a busy pool routinely has free"
    become = (
        f"To move to Kueue with topology-aware admission, its {f.volcano_jobs} Volcano Job(s) would have to become JobSets "
        f"(or batch Jobs, PyTorchJobs) labelled {QUEUE_LABEL}: <LocalQueue>, since Kueue has no integration "
        "for batch.volcano.sh Jobs and a Kueue pool has no Volcano queue to place them."
    )
    if f.volcano_jobs and 2 * f.volcano_jobs >= f.jobs:
        return "volcano", (
            f"{above}; {f.volcano_jobs} of its {f.jobs} jobs are Volcano Jobs, so keep Volcano: its gang holds the "
            "whole job back until it fits (minAvailable), and spec.networkTopology over HyperNodes places it in one "
            f"rack or block. {become}"
        )
    reason = f"{above}: only atomic, topology-aware admission starts it without deadlock or fragmentation."
    return "kueue+tas", reason + (f" {become}" if f.volcano_jobs else "")


def native_caveats(fleet: Fleet) -> str:
    """What native gang placement costs on this cluster: the fixed Permit wait, topology, how Jobs ask, preemption."""
    k8s = fleet.kubernetes
    topology = (
        "topology-aware placement is on (one label key per PodGroup)"
        if workload_api.TOPOLOGY_AWARE in k8s.gates_on
        else f"no topology-aware placement ({workload_api.TOPOLOGY_AWARE} is alpha and off)"
    )
    ask = (
        "a Job is a gang only when Indexed with completions = parallelism"
        if workload_api.jobs_gang_by_shape(k8s.minor)
        else "a Job is a gang only with spec.scheduling.schedulingPolicy.gang (the admission controller adds it)"
    )
    return (
        f"Costs: a gang waits at most {workload_api.PERMIT_TIMEOUT_SECONDS // 60} minutes at Permit (fixed, not "
        f"configurable), {topology}, {ask}, and set disruptionMode all or its pods are preempted one by one (GANG207)."
    )


def _keep_tas(pool: Pool, reason: str) -> tuple[str, str]:
    """Kueue; a Kueue pool that already places by topology keeps it (it costs nothing when jobs fit)."""
    if pool.system == "kueue" and pool.topology_levels:
        return "kueue+tas", reason + " Its topologyLevels already give atomic placement: keep them."
    return "kueue", reason


def change(fleet: Fleet, index: int, pool: Pool, mechanism: str) -> str:
    """The model edit that applies ``mechanism`` to ``pools[index]`` ('none' when the model already does)."""
    at = f"pools[{index}]"
    if mechanism in ("static", "none"):
        return "none"
    if mechanism == "kueue+native":
        edits = ([] if pool.system == "kueue" else [f"{at}.system: kueue"]) + (
            [] if pool.placement == "native" else [f"{at}.placement: native"]
        )
        return "; ".join(edits) or "none"
    if mechanism == "kueue+tas":
        edits = [] if pool.system == "kueue" else [f"{at}.system: kueue"]
        if not pool.topology_levels:
            edits.append(f"{at}.topologyLevels: {propose(pool).yaml()}")
        return "; ".join(edits) or "none"
    edits = [] if pool.system == mechanism else [f"{at}.system: {mechanism}"]
    if mechanism == "volcano" and not fleet.engines.volcano.enabled:
        edits.append("engines.volcano.enabled: true")
    if mechanism != "kueue" and pool.topology_levels:
        edits.append(f"remove {at}.topologyLevels")
    if pool.placement != "per-pod":
        edits.append(f"remove {at}.placement")
    return "; ".join(edits) or "none"


def control_plane(fleet: Fleet, mechanism: str) -> str:
    """Answer to question 4: what runs the mechanism, and whether the fleet runs it already."""
    running = {"kueue", "kueue+tas", "static", "none"}
    if fleet.engines.volcano.enabled and fleet.pools_of("volcano"):
        running.add("volcano")
    if fleet.pools_of("coscheduling"):
        running.add("coscheduling")
    if fleet.kubernetes.native_jobs:
        running.update({"native", "kueue+native"})  # the gates are on: kube-scheduler and the Job controller do it
    already = "already running in this fleet" if mechanism in running else "new for this fleet"
    return f"{COMPONENTS[mechanism]} ({already}; installed and upgraded by gpufleet's Pulumi components)"
