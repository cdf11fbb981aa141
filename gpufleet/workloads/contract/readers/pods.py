"""Reader of a bare Pod: the kubelet, and Kueue's pod integration for pods in a Kueue pod group.

Follows ``kubernetes v1.37.2`` (a bare pod has no controller: the kubelet restarts its containers
under ``restartPolicy`` ``Always`` (the default) or ``OnFailure``, and nothing replaces a failed
pod) and ``kueue v0.19.2 pkg/controller/jobs/pod/pod_controller.go``:

- a pod labelled ``kueue.x-k8s.io/pod-group-name`` joins a Kueue pod group; its Workload counts
  ``kueue.x-k8s.io/pod-group-total-count`` pods, one PodSet per role (``constructGroupPodSets``),
  and is built only once that many pods exist (``validatePodGroupMetadata``), unless
  ``kueue.x-k8s.io/pod-group-fast-admission: "true"``;
- Kueue never creates a replacement pod; with ``kueue.x-k8s.io/retriable-in-group: "false"`` a
  failed pod ends the group (``isUnretriableGroup``);
- a pod naming a Volcano (``scheduling.k8s.io/group-name``), scheduler-plugins
  (``scheduling.x-k8s.io/pod-group``) or Kubernetes (``spec.schedulingGroup``) group joins that group
  (:mod:`..membership`).

The pod set is the group's pods in this input (the pod itself when it joins none).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.workloads import build_view
from gpufleet.workloads.contract import common
from gpufleet.workloads.contract.gpus import pod_gpus
from gpufleet.workloads.contract.membership import group_pods, template_group, volcano_owner_group
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import Contract, FailureStep, PodSet, Provenance, RankFailure, Success, Terminal
from gpufleet.workloads.pods import effective_scheduler
from gpufleet.workloads.types import METADATA, annotation_path

KUEUE_POD = "kueue v0.19.2 pkg/controller/jobs/pod/pod_controller.go"
FAST_ADMISSION = "kueue.x-k8s.io/pod-group-fast-admission"
RETRIABLE = "kueue.x-k8s.io/retriable-in-group"


@reader("", "Pod", source=f"kubernetes v1.37.2 (kubelet); {KUEUE_POD}")
def pod(obj: Mapping[str, Any], run: Run) -> Contract:
    view = build_view(obj)
    assert view is not None
    template = view.templates[0]
    route = common.kueue_route(view, run)
    name = view.pod_group or "pod"
    group = template_group(
        view.labels,
        view.annotations,
        template.spec,
        METADATA,
        (name,),
        run.objects,
        view.namespace,
        route[0] if route else None,
        route[1] if route else Provenance(),
    )
    notes: list[str] = []
    if view.pod_group:
        count = max(group_pods(run.objects, view.namespace, view.pod_group), 1)
        count_from = Provenance(note=f"the pods of this input in group {view.pod_group}")
    else:
        count, count_from = 1, Provenance(note="one pod")
    if group is None:
        group = volcano_owner_group(effective_scheduler(view, template), (name,), view.name)
    groups = (group,) if group is not None else ()
    gpus, names, gpu_notes = pod_gpus(template.spec, run.objects, run.fleet, view.namespace)
    policy, policy_from = common.restart_policy(template.spec, template.spec_path, "Always", common.POD_DEFAULTS)
    steps = [s for s in (common.kubelet_step(policy, policy_from),) if s is not None]
    kueue_group = group is not None and group.backend == "kueue"
    if kueue_group and str(view.annotations.get(RETRIABLE, "")).lower() == "false":
        steps.append(
            FailureStep(
                "operator", "stop", 0, Provenance(annotation_path(RETRIABLE), f"{KUEUE_POD} isUnretriableGroup")
            )
        )
    else:
        note = "Kueue never creates a replacement pod" if kueue_group else "a bare pod: nothing replaces it"
        steps.append(
            FailureStep(
                "podController", "notReplaced", None, Provenance(derived=KUEUE_POD if kueue_group else None, note=note)
            )
        )
    if kueue_group and str(view.annotations.get(FAST_ADMISSION, "")).lower() == "true":
        notes.append("pod-group-fast-admission: Kueue admits the group before all its pods exist")
    return common.header(
        obj,
        f"kubernetes v1.37.2 (kubelet); {KUEUE_POD}",
        pod_sets=(PodSet(name, "rank", count, count_from, None, gpus, names),),
        groups=groups,
        admission=common.admission(view, count, groups, route),
        rank_failures=(RankFailure(name, tuple(steps)),),
        terminal=Terminal(False, Provenance(note="no controller stops the other pods of the group")),
        success=Success("every pod of the group succeeds" if view.pod_group else "the pod succeeds", (name,)),
        placement=common.placement([(name, effective_scheduler(view, template))], [obj]),
        notes=(*notes, *gpu_notes),
    )
