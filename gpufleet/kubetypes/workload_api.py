"""Kubernetes' own gang scheduling (the Workload API, ``scheduling.k8s.io``): the facts, spelled once.

Read at the tags named below in kubernetes/kubernetes (module ``k8s.io/kubernetes``) and
``k8s.io/api``; read by the fleet model (``gpufleet.model.cluster`` and its check), the
fleet context (the gates a cluster runs), the workload views (``gpufleet.workloads.native``),
the rules, the mutator and ``advise``. A leaf module (standard library only).

Feature gates, ``pkg/features/kube_features.go`` (``defaultVersionedKubernetesFeatureGates``)
at v1.37.2, as (first minor, default, stage) steps:

- ``GenericWorkload``: 1.35 alpha off, 1.37 beta **still off**. The Workload and PodGroup
  APIs, pods' ``spec.schedulingGroup`` and kube-scheduler's GangScheduling plugin (and its
  PodGroup preemption, ``defaultpreemption/default_preemption.go``) all sit behind it.
- ``WorkloadWithJob`` (KEP-5547, needs GenericWorkload): 1.36 alpha off, still alpha at 1.37.
  The Job controller creates the Workload and PodGroup itself.
- ``TopologyAwareWorkloadScheduling`` (KEP-5732, needs GenericWorkload): 1.36 alpha off, still
  alpha at 1.37 (a PodGroup's ``schedulingConstraints.topology``, one label key).
- ``PodGroupPreemptionPolicy`` 1.37 alpha off; ``CompositePodGroup`` 1.37 alpha off;
  ``DRAWorkloadResourceClaims`` 1.36 alpha off, 1.37 beta off.

API versions (``pkg/controlplane/instance.go``, ``pkg/registry/scheduling/rest``): 1.35
``v1alpha1`` (a Workload's ``spec.podGroups[].policy.gang.minCount``; pods join with
``spec.workloadRef: {name, podGroup}``), 1.36 ``v1alpha2`` (static Workload with
``spec.podGroupTemplates[].schedulingPolicy.gang.minCount``, runtime PodGroup with
``spec.schedulingPolicy.gang.minCount``; pods join with ``spec.schedulingGroup.podGroupName``),
1.37 ``v1beta1`` (same shape) and ``v1alpha3``. None is served by default: alpha versions are
off, and ``scheduling.k8s.io/v1beta1`` is in ``betaAPIGroupVersionsDisabledByDefault``, so the
API server needs ``--runtime-config=scheduling.k8s.io/<version>=true``. The 1.37 Job
controller writes ``v1beta1`` objects.

Which Jobs the Job controller gang-schedules (only when ``WorkloadWithJob`` is on):

- 1.36 (``pkg/controller/job/job_scheduling_manager.go`` ``shouldManageWorkloadForJob`` and
  ``pkg/controller/job/util/utils.go`` ``IsGangSchedulingCandidate`` at v1.36.0): a Job with
  ``parallelism`` > 1, ``completionMode: Indexed``, ``completions == parallelism`` and no
  ``schedulingGroup`` in its pod template gets a Workload with one gang template,
  ``minCount = parallelism``, and a PodGroup its pods join.
- 1.37 (same file at v1.37.2, and ``pkg/api/job/util.go`` ``WorkloadItemForJob``): every Job
  without a controller owner and without ``schedulingGroup`` gets a Workload and PodGroup, but
  the policy is **basic** (pod by pod) unless the Job sets ``spec.scheduling.schedulingPolicy.gang``
  (an alpha field behind ``WorkloadWithJob``); its ``minCount`` defaults to ``parallelism`` and
  may not exceed it (``pkg/apis/batch/validation/validation.go`` ``validateGangMinCount``).
  The 1.36 shape rule is gone: an Indexed Job with ``parallelism == completions`` is no gang
  at 1.37 without ``spec.scheduling``.
- Both: objects are created only for a Job that has never started (``isNewJob``); a Job Kueue
  creates suspended gets them on its first sync, before the Suspended condition is set.

kube-scheduler (``pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go`` at v1.37.2):
pods of a gang wait in PreEnqueue until ``minCount`` of them exist, and at Permit until
``minCount`` are assumed; ``permitTimeoutDuration`` is a constant 5 minutes, not configurable.
A PodGroup's ``status.conditions`` type ``PodGroupInitiallyScheduled`` says why it waits
(reason ``Unschedulable`` or ``SchedulerError``; ``k8s.io/api`` ``scheduling/v1beta1/types.go``).
Preemption (``pkg/scheduler/framework/preemption/types.go`` ``getHighestAllAncestor``): a
PodGroup's ``disruptionMode`` defaults to ``single``, so a victim is one pod; only
``disruptionMode: {all: {}}`` makes the whole group one preemption unit.
"""

from __future__ import annotations

from typing import Mapping

GROUP = "scheduling.k8s.io"
MIN_MINOR = 35
"""The first minor with the Workload API and the GangScheduling plugin."""
JOB_GANG_MIN_MINOR = 36
"""The first minor whose Job controller creates Workloads and PodGroups (WorkloadWithJob)."""
JOB_SCHEDULING_FIELD_MINOR = 37
"""From this minor a Job is a gang only with ``spec.scheduling.schedulingPolicy.gang``."""
NEWEST_MINOR = 37
"""The newest minor these facts were read at (v1.37.2)."""
PERMIT_TIMEOUT_SECONDS = 300
"""gangscheduling.go ``permitTimeoutDuration`` (a constant: 5 minutes)."""

GENERIC_WORKLOAD = "GenericWorkload"
WORKLOAD_WITH_JOB = "WorkloadWithJob"
TOPOLOGY_AWARE = "TopologyAwareWorkloadScheduling"
POD_GROUP_PREEMPTION_POLICY = "PodGroupPreemptionPolicy"
COMPOSITE_POD_GROUP = "CompositePodGroup"
DRA_WORKLOAD_CLAIMS = "DRAWorkloadResourceClaims"

GATES: Mapping[str, tuple[tuple[int, bool, str], ...]] = {
    GENERIC_WORKLOAD: ((35, False, "alpha"), (37, False, "beta")),
    WORKLOAD_WITH_JOB: ((36, False, "alpha"),),
    TOPOLOGY_AWARE: ((36, False, "alpha"),),
    POD_GROUP_PREEMPTION_POLICY: ((37, False, "alpha"),),
    COMPOSITE_POD_GROUP: ((37, False, "alpha"),),
    DRA_WORKLOAD_CLAIMS: ((36, False, "alpha"), (37, False, "beta")),
}
"""The workload-scheduling gates: (first minor, default, stage) steps, kube_features.go at v1.37.2."""

NEEDS: Mapping[str, tuple[str, ...]] = {
    WORKLOAD_WITH_JOB: (GENERIC_WORKLOAD,),
    TOPOLOGY_AWARE: (GENERIC_WORKLOAD,),
    POD_GROUP_PREEMPTION_POLICY: (GENERIC_WORKLOAD,),
    COMPOSITE_POD_GROUP: (GENERIC_WORKLOAD, TOPOLOGY_AWARE),
    DRA_WORKLOAD_CLAIMS: (GENERIC_WORKLOAD,),
}
"""``defaultKubernetesFeatureGateDependencies`` (kube_features.go at v1.37.2) for the gates above."""

API_VERSIONS: Mapping[int, str] = {35: "v1alpha1", 36: "v1alpha2", 37: "v1beta1"}
"""The version the Job controller and the scheduler use at each minor (none is served by default)."""


def minor_of(version: str) -> int | None:
    """The minor of ``1.37`` or ``1.37.2`` (None when it is not a 1.x version)."""
    parts = str(version).split(".")
    if len(parts) < 2 or parts[0] != "1" or not parts[1].isdigit():
        return None
    return int(parts[1])


def gate_step(gate: str, minor: int) -> tuple[int, bool, str] | None:
    """The gate's step in force at ``minor`` (None when the gate does not exist there)."""
    steps = [s for s in GATES.get(gate, ()) if s[0] <= minor]
    return steps[-1] if steps else None


def gates_on(minor: int, overrides: Mapping[str, bool]) -> frozenset[str]:
    """The workload-scheduling gates on at ``minor``: each gate's default, then ``overrides``."""
    on = {gate for gate in GATES if (step := gate_step(gate, minor)) is not None and step[1]}
    for gate, value in overrides.items():
        if gate in GATES and gate_step(gate, minor) is not None:
            (on.add if value else on.discard)(gate)
    return frozenset(on)


def runtime_config(minor: int) -> str | None:
    """The ``--runtime-config`` the API server needs to serve the Workload API at ``minor`` (None before 1.35)."""
    version = API_VERSIONS.get(min(minor, NEWEST_MINOR))
    return None if version is None else f"{GROUP}/{version}=true"


def jobs_gang_by_shape(minor: int) -> bool:
    """Whether the Job controller gangs a Job by its shape alone (1.36), rather than by ``spec.scheduling`` (1.37+)."""
    return JOB_GANG_MIN_MINOR <= minor < JOB_SCHEDULING_FIELD_MINOR
