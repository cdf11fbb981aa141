"""Reader of the Volcano Job and the Volcano PodGroup: Volcano's job controller, webhook and scheduler at v1.14.1.

Follows ``volcano.sh/volcano v1.14.1`` (APIs ``volcano.sh/apis v1.14.0``):

- pod sets: one per ``spec.tasks[i]``, ``replicas`` pods (absent is 0, the Go zero value);
- stages: a task with ``dependsOn`` is created once the tasks it names run
  (``pkg/controllers/job/job_controller_actions.go`` ``waitDependsOnTaskMeetCondition``;
  :mod:`gpufleet.workloads.stages`);
- the group: the job controller's PodGroup (``createOrUpdatePodGroup``), ``minMember`` =
  ``spec.minAvailable``, which the webhook defaults to Σ task ``minAvailable``-or-``replicas``
  (``pkg/webhooks/admission/jobs/mutate/mutate_job.go`` ``patchDefaultMinAvailable``;
  :func:`gpufleet.workloads.volcano.default_min_available`) and its queue to ``default``
  (``patchDefaultQueue``);
- failure: the pod's ``restartPolicy`` is the API default ``Always`` (Volcano's webhook sets none),
  so the kubelet restarts a failed container in place first; a pod that fails reaches the
  policies, task-level before job-level (``pkg/controllers/job/job_controller_util.go``
  ``applyPolicies``; :func:`gpufleet.workloads.volcano.effective_policy`): ``RestartJob`` restarts
  the whole job, ``RestartTask`` the task, ``RestartPod`` the pod, ``RestartPartition`` the
  partition (a group), ``AbortJob``/``TerminateJob``/``CompleteJob`` stop it, each restart
  bounded by ``maxRetry`` (default 3, ``batch/v1alpha1/job.go``). No matching policy: the pod
  stays Failed and the others run on;
- success: ``minSuccess`` when set, else ``minAvailable`` pods succeeded
  (``pkg/controllers/job/state/running.go``);
- a PodGroup written by the user (``scheduling.volcano.sh``) is a group with no pod sets: its pods
  come from the workloads that name it (``scheduling.k8s.io/group-name``).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.workloads import build_view
from gpufleet.workloads.contract import common
from gpufleet.workloads.contract.gpus import pod_gpus
from gpufleet.workloads.contract.groupobjects import group_contract
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import (
    After,
    Contract,
    FailureStep,
    GangGroup,
    PodSet,
    Provenance,
    RankFailure,
    Scope,
    Success,
    Terminal,
)
from gpufleet.workloads.pods import effective_scheduler
from gpufleet.workloads.stages import depends_on_names
from gpufleet.workloads.types import SPEC, as_int, as_list, as_map
from gpufleet.workloads.volcano import all_policies, default_min_available, effective_policy, uncovered_events

TAG = "volcano v1.14.1"
SOURCE = f"{TAG} pkg/controllers/job/job_controller.go"
MUTATE = f"{TAG} pkg/webhooks/admission/jobs/mutate/mutate_job.go"
DEPENDS = f"{TAG} pkg/controllers/job/job_controller_actions.go waitDependsOnTaskMeetCondition"
POLICIES = f"{TAG} pkg/controllers/job/job_controller_util.go applyPolicies"
MAX_RETRY = "volcano apis v1.14.0 pkg/apis/batch/v1alpha1/job.go (maxRetry default 3)"
SCOPES: dict[str, Scope] = {
    "RestartJob": "whole",
    "RestartTask": "task",
    "RestartPod": "pod",
    "RestartPartition": "group",
    "AbortJob": "stop",
    "TerminateJob": "stop",
    "CompleteJob": "stop",
}
"""The rank-failure scope of each Volcano action (``volcano apis pkg/apis/bus/v1alpha1/actions.go``)."""


def _minimum(spec: Mapping[str, Any], tasks: list[Any]) -> tuple[int, Provenance]:
    written = as_int(spec.get("minAvailable"))
    if written:
        return written, Provenance(SPEC.child("minAvailable"))
    note = "minAvailable is unset: the webhook writes Σ task minAvailable (else replicas)"
    return default_min_available(tasks), Provenance(derived=f"{MUTATE} patchDefaultMinAvailable", note=note)


def _max_retry(spec: Mapping[str, Any]) -> tuple[int, Provenance]:
    written = as_int(spec.get("maxRetry"))
    if written is not None:
        return written, Provenance(SPEC.child("maxRetry"))
    return 3, Provenance(derived=MAX_RETRY)


def _failure(obj: Mapping[str, Any], index: int, name: str, pod_spec: Mapping[str, Any], spec_path: Any) -> RankFailure:
    spec = as_map(obj.get("spec"))
    policy, policy_from = common.restart_policy(pod_spec, spec_path, "Always", common.POD_DEFAULTS)
    steps: list[FailureStep] = []
    kubelet = common.kubelet_step(policy, policy_from)
    if kubelet is not None:
        steps.append(kubelet)
    found = effective_policy(obj, index, "PodFailed")
    if found is None:
        steps.append(
            FailureStep("operator", "notReplaced", None, Provenance(derived=POLICIES, note="no policy maps PodFailed"))
        )
        return RankFailure(name, tuple(steps))
    scope = SCOPES.get(found.action, "notReplaced")
    retry, retry_from = _max_retry(spec)
    restarts = found.action.startswith("Restart")
    note = f"bounded by maxRetry ({retry_from})" if restarts else None
    origin = Provenance(found.path.child("action"), POLICIES, note)
    bound = retry if restarts else 0
    steps.append(FailureStep("operator", scope, bound, origin))
    return RankFailure(name, tuple(steps))


def _policy_notes(obj: Mapping[str, Any], pod_sets: list[PodSet]) -> list[str]:
    """What the failure path above leaves out: uncovered evictions, exit-code policies, per-task minimums."""
    notes = [
        f"no policy maps {event}: such a pod stays down, the others run on"
        for event in uncovered_events(obj, ("PodEvicted",))
    ]
    if any(p.exit_code is not None for p in all_policies(obj)):
        notes.append(
            "exitCode policies act first on the exit codes they name (the path above is for any other failure)"
        )
    for i, task in enumerate(as_list(as_map(obj.get("spec")).get("tasks"))):
        task_min = as_int(as_map(task).get("minAvailable"))
        if task_min is not None and i < len(pod_sets):
            notes.append(
                f"task {pod_sets[i].name} needs {task_min} of its pods placed together (the PodGroup's minTaskMember)"
            )
    return notes


@reader("batch.volcano.sh", "Job", source=SOURCE)
def volcano_job(obj: Mapping[str, Any], run: Run) -> Contract:
    view = build_view(obj)
    assert view is not None
    spec = as_map(obj.get("spec"))
    tasks = as_list(spec.get("tasks"))
    pod_sets: list[PodSet] = []
    failures: list[RankFailure] = []
    schedulers: list[tuple[str, str | None]] = []
    notes: list[str] = []
    for template in view.templates:
        index = template.path.segments[2] if len(template.path.segments) > 2 else 0
        assert isinstance(index, int)
        task = as_map(tasks[index])
        name = template.role or f"task{index}"
        replicas_from = (
            Provenance(template.replicas_path)
            if "replicas" in task
            else Provenance(derived=f"{SOURCE} (absent replicas is 0)")
        )
        after = depends_on_names(task)
        created_after = (
            (After(after, "Running", Provenance(template.path.parent.child("dependsOn"), DEPENDS)),) if after else ()
        )
        gpus, names, gpu_notes = pod_gpus(template.spec, run.objects, run.fleet, view.namespace)
        notes.extend(gpu_notes)
        pod_sets.append(
            PodSet(name, "rank", template.replicas, replicas_from, template.path, gpus, names, created_after)
        )
        failures.append(_failure(obj, index, name, template.spec, template.spec_path))
        schedulers.append((name, effective_scheduler(view, template)))
    notes.extend(_policy_notes(obj, pod_sets))
    minimum, minimum_from = _minimum(spec, tasks)
    queue = view.volcano_queue or "default"
    queue_from = (
        Provenance(view.volcano_queue_path) if view.volcano_queue else Provenance(derived=f"{MUTATE} patchDefaultQueue")
    )
    members = tuple(p.name for p in pod_sets)
    group = GangGroup(view.name, "volcano", "operator", "workload", members, minimum, minimum_from, queue, queue_from)
    count = sum(p.count for p in pod_sets)
    min_success = as_int(spec.get("minSuccess"))
    success = (
        Success("minSuccess pods succeed", members, min_success, Provenance(SPEC.child("minSuccess")))
        if min_success
        else Success(
            "minAvailable pods succeed",
            members,
            minimum,
            Provenance(derived=f"{TAG} pkg/controllers/job/state/running.go"),
        )
    )
    topology = as_map(spec.get("networkTopology"))
    return common.header(
        obj,
        SOURCE,
        pod_sets=tuple(pod_sets),
        groups=(group,),
        admission=common.admission(view, count, (group,), None),
        rank_failures=tuple(failures),
        terminal=Terminal(
            True, Provenance(derived=f"{TAG} pkg/controllers/job/state (Aborting, Terminating, Failed kill the pods)")
        ),
        success=success,
        placement=common.placement(
            schedulers,
            [t.template for t in view.templates],
            f"networkTopology {topology.get('mode', 'hard')}" if topology else None,
        ),
        notes=tuple(notes),
    )


@reader("scheduling.volcano.sh", "PodGroup", source=f"{TAG} pkg/scheduler/plugins/gang/gang.go")
def volcano_pod_group(obj: Mapping[str, Any], run: Run) -> Contract:
    return group_contract(obj, run, "volcano", f"{TAG} pkg/scheduler/plugins/gang/gang.go")
