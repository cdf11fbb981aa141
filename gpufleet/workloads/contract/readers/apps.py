"""Reader of Deployment, ReplicaSet, StatefulSet and DaemonSet: the Kubernetes apps controllers at v1.37.2.

Follows ``kubernetes v1.37.2``:

- ``pkg/apis/apps/v1/defaults.go``: ``replicas`` 1, ``podManagementPolicy: OrderedReady``; the pods'
  ``restartPolicy`` must be ``Always`` (``pkg/apis/apps/validation``), so the kubelet restarts a failed
  container in place, and a pod that is deleted or evicted is replaced alone by the controller
  (``pkg/controller/replicaset/replica_set.go`` ``manageReplicas``; ``pkg/controller/statefulset
  /stateful_set_control.go`` ``updateStatefulSet``). None of them ever fails or succeeds: they serve.
- A StatefulSet under ``OrderedReady`` creates ordinal i+1 only once ordinal i is Running and Ready
  (``stateful_set_control.go``): when it is first scheduled only ordinal 0 exists.
- Their pods are ranks of a gang only when they name a pod group (:mod:`..membership`); else serving.
- Kueue (``kueue v0.19.2 pkg/controller/jobs/statefulset``, ``.../deployment``; its "Run StatefulSet"
  and "Run Deployment" guides): a StatefulSet with a queue label is one pod group of ``replicas`` pods,
  admitted whole; a Deployment's pods are admitted one by one.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.workloads import build_view
from gpufleet.workloads.contract import common
from gpufleet.workloads.contract.gpus import pod_gpus
from gpufleet.workloads.contract.membership import template_group, volcano_owner_group
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import (
    Admission,
    After,
    Contract,
    FailureStep,
    PodSet,
    Provenance,
    RankFailure,
    Success,
    Terminal,
)
from gpufleet.workloads.pods import effective_scheduler
from gpufleet.workloads.types import SPEC, as_map

TAG = "kubernetes v1.37.2"
DEFAULTS = f"{TAG} pkg/apis/apps/v1/defaults.go"
SOURCES = {
    "Deployment": f"{TAG} pkg/controller/deployment/deployment_controller.go",
    "ReplicaSet": f"{TAG} pkg/controller/replicaset/replica_set.go manageReplicas",
    "StatefulSet": f"{TAG} pkg/controller/statefulset/stateful_set_control.go",
    "DaemonSet": f"{TAG} pkg/controller/daemon/daemon_controller.go",
}
KUEUE_STATEFULSET = "kueue v0.19.2 pkg/controller/jobs/statefulset (one pod group of replicas pods)"


def _pod_sets(
    kind: str, spec: Mapping[str, Any], replicas: int, replicas_from: Provenance, role: Any, template: Any, gpus: Any
) -> tuple[PodSet, ...]:
    base = dict(role=role, template_path=template.path, gpus_per_pod=gpus[0], gpu_resources=gpus[1])
    if kind == "StatefulSet" and replicas > 1 and spec.get("podManagementPolicy", "OrderedReady") == "OrderedReady":
        origin = (
            Provenance(SPEC.child("podManagementPolicy"), SOURCES[kind])
            if "podManagementPolicy" in spec
            else Provenance(
                derived=SOURCES[kind],
                note="podManagementPolicy defaults to OrderedReady: each ordinal waits for the one before",
            )
        )
        return (
            PodSet("ordinal-0", count=1, count_from=replicas_from, **base),
            PodSet(
                "ordinals",
                count=replicas - 1,
                count_from=replicas_from,
                created_after=(After(("ordinal-0",), "Ready", origin),),
                **base,
            ),
        )
    return (PodSet("replicas", count=replicas, count_from=replicas_from, **base),)


@reader("apps", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", source=f"{TAG} pkg/controller (apps)")
def apps(obj: Mapping[str, Any], run: Run) -> Contract:
    view = build_view(obj)
    assert view is not None
    kind = view.kind
    spec = as_map(obj.get("spec"))
    template = view.templates[0]
    if kind == "DaemonSet":
        replicas, replicas_from = 1, Provenance(derived=SOURCES[kind], note="one pod per node it selects")
    elif "replicas" in spec:
        replicas, replicas_from = template.replicas, Provenance(SPEC.child("replicas"))
    else:
        replicas, replicas_from = template.replicas, Provenance(derived=DEFAULTS, note="replicas defaults to 1")
    gpus = pod_gpus(template.spec, run.objects, run.fleet, view.namespace)
    route = common.kueue_route(view, run, managed=kind in ("Deployment", "StatefulSet"))
    names = ("replicas",)
    group = template_group(
        template.labels,
        template.annotations,
        template.spec,
        template.metadata_path,
        names,
        run.objects,
        view.namespace,
        route[0] if route else None,
        route[1] if route else Provenance(),
    )
    role = "rank" if group is not None else "serving"
    if group is None:
        group = volcano_owner_group(effective_scheduler(view, template), names, None)
    pod_sets = _pod_sets(kind, spec, replicas, replicas_from, role, template, gpus)
    groups = (group,) if group is not None else ()
    if route is not None and kind == "Deployment":
        admission = Admission("perPod", "kueue", 1, 1, route[1])
    elif route is not None:
        admission = Admission("whole", "kueue", replicas, replicas, Provenance(route[1].path, KUEUE_STATEFULSET))
    else:
        admission = common.admission(view, replicas, groups, None)
    policy, policy_from = common.restart_policy(template.spec, template.spec_path, "Always", common.POD_DEFAULTS)
    steps = [s for s in (common.kubelet_step(policy, policy_from),) if s is not None]
    steps.append(
        FailureStep(
            "podController",
            "pod",
            None,
            Provenance(derived=SOURCES[kind], note="a deleted or evicted pod is replaced alone"),
        )
    )
    return common.header(
        obj,
        SOURCES[kind],
        pod_sets=pod_sets,
        groups=groups,
        admission=admission,
        rank_failures=tuple(RankFailure(p.name, tuple(steps)) for p in pod_sets),
        terminal=Terminal(
            False, Provenance(derived=SOURCES[kind], note="never fails: keeps its replicas until scaled down")
        ),
        success=Success("none: long-running"),
        placement=common.placement(
            [(p.name, effective_scheduler(view, template)) for p in pod_sets], [template.template]
        ),
        notes=gpus[2],
    )
