"""The LeaderWorkerSet controller's contract (``sigs.k8s.io/lws v0.9.0``, the version the sandbox can build).

Registered for ``leaderworkerset.x-k8s.io/LeaderWorkerSet``. v0.10.0's source zip is refused by the Go
module proxy; its types, Volcano provider and ``handleRestartPolicy`` match v0.9.0 (the research note
compared them). The contract describes **one group** (as the workload view does): every group is
admitted and gang-scheduled alone, ``spec.replicas`` times. Each fact follows, at v0.9.0:

- pod sets: a leader (``leaderTemplate``, else ``workerTemplate``) and ``size`` − 1 workers
  (``api/leaderworkerset/v1/leaderworkerset_types.go``; one worker StatefulSet per group,
  ``pkg/controllers/pod_controller.go`` ``constructWorkerStatefulSetApplyConfiguration``);
- stages: the pod controller creates a group's worker StatefulSet once its leader pod exists
  (``startupPolicy: LeaderCreated``, the default), is Ready (``LeaderReady``), or, with the
  ``leaderworkerset.sigs.k8s.io/exclusive-topology`` annotation, is scheduled (``pod_controller.go`` ``Reconcile``);
- gang group: only when the manager's ``gangSchedulingManagement.schedulerProvider`` is ``volcano``: one
  PodGroup per group, ``<lws>-<group>-<revision>``, ``minMember`` = ``size``, or 1 under ``LeaderReady``
  (``pkg/schedulerprovider/volcano_provider.go`` ``CreatePodGroupIfNotExists``), queue from the LWS's
  ``scheduling.volcano.sh/queue-name`` annotation; Kueue makes one Workload per group
  (kueue v0.19.2 ``jobs/leaderworkerset/leaderworkerset_reconciler.go``);
- failure: ``leaderWorkerTemplate.restartPolicy`` (webhook default ``RecreateGroupOnPodRestart``): a
  container restart or a deleted pod makes the controller recreate the whole group, kubelet restarts
  included (``pod_controller.go`` ``handleRestartPolicy``); ``None`` (and the deprecated ``Default``): the
  kubelet restarts in place and the StatefulSet replaces the pod alone;
- terminal and success: none; an LWS serves until it is deleted.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.workloads.contract import podsets
from gpufleet.workloads.contract.podsets import count, identity, pod_set
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import (
    After,
    Condition,
    Contract,
    FailureStep,
    GangGroup,
    Placement,
    Provenance,
    RankFailure,
    Success,
    Terminal,
)
from gpufleet.workloads.kinds import build_view
from gpufleet.workloads.types import SPEC, annotation_path, as_map

TAG = "lws v0.9.0"
SOURCE = f"{TAG} pkg/controllers/pod_controller.go"
EXCLUSIVE = "leaderworkerset.sigs.k8s.io/exclusive-topology"
_LWT = SPEC.child("leaderWorkerTemplate")
_PROVIDER = f"{TAG} pkg/schedulerprovider/volcano_provider.go CreatePodGroupIfNotExists"
_WEBHOOK = f"{TAG} pkg/webhooks/leaderworkerset_webhook.go Default"


@reader("leaderworkerset.x-k8s.io", "LeaderWorkerSet", source=SOURCE)
def read_lws(obj: Mapping[str, Any], run: Run) -> Contract:
    """The contract of one group of a LeaderWorkerSet (see the module docstring)."""
    spec, meta = as_map(obj.get("spec")), as_map(obj.get("metadata"))
    lwt = as_map(spec.get("leaderWorkerTemplate"))
    annotations = as_map(meta.get("annotations"))
    size = max(count(lwt.get("size"), 1), 1)
    view = build_view(obj)
    templates = {t.role: t for t in (view.templates if view else ())}
    worker_t = templates.get("worker")
    leader_t = templates.get("leader") or worker_t
    startup = spec.get("startupPolicy") or "LeaderCreated"
    startup_from = (
        Provenance(SPEC.child("startupPolicy"))
        if "startupPolicy" in spec
        else Provenance(derived=_WEBHOOK, note="startupPolicy LeaderCreated")
    )
    exclusive = annotations.get(EXCLUSIVE)
    condition: Condition = "Scheduled" if exclusive else "Ready" if startup == "LeaderReady" else "Created"
    stage_from = (
        Provenance(
            annotation_path(EXCLUSIVE), derived=f"{SOURCE} Reconcile", note="workers once the leader is scheduled"
        )
        if exclusive
        else Provenance(
            startup_from.path, derived=f"{SOURCE} Reconcile", note=f"workers once the leader is {condition}"
        )
    )
    per_group = Provenance(
        _LWT.child("size"), note=f"per group; spec.replicas = {count(spec.get('replicas'), 1)} groups"
    )
    pod_sets = []
    if leader_t is not None:
        pod_sets.append(pod_set(leader_t, "leader", "rank", 1, per_group, run.fleet))
    if worker_t is not None and size > 1:
        pod_sets.append(
            pod_set(
                worker_t, "worker", "rank", size - 1, per_group, run.fleet, (After(("leader",), condition, stage_from),)
            )
        )
    names = tuple(p.name for p in pod_sets)
    groups: tuple[GangGroup, ...] = ()
    if run.operators.get("leaderworkerset").gang_scheduler == "volcano" and pod_sets:
        minimum, why = (
            (1, "1 under startupPolicy LeaderReady (minResources stay the whole group)")
            if startup == "LeaderReady"
            else (size, "size")
        )
        queue_key = vocab.VOLCANO_QUEUE
        queue = annotations.get(queue_key)
        queue_from = Provenance(annotation_path(queue_key)) if queue else Provenance()
        groups = (
            GangGroup(
                f"{identity(obj)['name']}-<group>-<revision>",
                "volcano",
                "operator",
                "perGroup",
                names,
                minimum,
                Provenance(
                    startup_from.path if startup == "LeaderReady" else _LWT.child("size"), derived=_PROVIDER, note=why
                ),
                str(queue) if queue else None,
                queue_from,
            ),
        )
    admission = podsets.admission(
        obj,
        groups,
        size,
        "kueue v0.19.2 pkg/controller/jobs/leaderworkerset/leaderworkerset_reconciler.go constructWorkload (one Workload per group)",
        "no gang scheduling provider: no PodGroup",
    )
    return Contract(
        **identity(obj),
        reader=SOURCE,
        pod_sets=tuple(pod_sets),
        groups=groups,
        admission=admission,
        rank_failures=tuple(RankFailure(n, _steps(lwt)) for n in names),
        terminal=Terminal(
            True, Provenance(derived=SOURCE, note="an LWS serves until deleted; failed groups are recreated")
        ),
        success=Success("none: a LeaderWorkerSet serves until it is deleted", origin=Provenance(derived=SOURCE)),
        placement=Placement(
            tuple(
                (p.name, t.spec.get("schedulerName") if isinstance(t.spec.get("schedulerName"), str) else None)
                for p, t in zip(pod_sets, (leader_t, worker_t))
                if t is not None
            ),
            exclusive_topology=str(exclusive) if exclusive else None,
            origin=Provenance(annotation_path(EXCLUSIVE)) if exclusive else Provenance(),
        ),
    )


def _steps(lwt: Mapping[str, Any]) -> tuple[FailureStep, ...]:
    """``handleRestartPolicy``: the group is recreated, or (``None``) each pod is restarted and replaced alone."""
    policy = lwt.get("restartPolicy") or "RecreateGroupOnPodRestart"
    origin = (
        Provenance(_LWT.child("restartPolicy"), derived=f"{SOURCE} handleRestartPolicy")
        if "restartPolicy" in lwt
        else Provenance(derived=_WEBHOOK, note="restartPolicy RecreateGroupOnPodRestart")
    )
    if policy in ("RecreateGroupOnPodRestart", "RecreateGroupAfterStart"):
        return (FailureStep("operator", "group", None, origin),)
    kubelet = Provenance(derived="kubernetes v1.37.2 StatefulSet pods restart Always")
    statefulset = Provenance(
        _LWT.child("restartPolicy"),
        derived="kubernetes v1.37.2 pkg/controller/statefulset",
        note="the StatefulSet replaces the pod alone",
    )
    return (FailureStep("kubelet", "inPlace", None, kubelet), FailureStep("podController", "pod", None, statefulset))
