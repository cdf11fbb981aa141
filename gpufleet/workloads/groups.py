"""Views of the kinds that run gangs as groups: LeaderWorkerSet and KubeRay's RayCluster/RayJob.

Called by ``kinds.build_view`` (registered in ``kinds.BUILDERS``), with its ``_base`` builder.

- LeaderWorkerSet (``leaderworkerset.x-k8s.io/v1``, read at kubernetes-sigs/lws v0.10.0
  ``api/leaderworkerset/v1/leaderworkerset_types.go``): ``spec.replicas`` groups (default 1),
  each of ``spec.leaderWorkerTemplate.size`` pods (default 1) - one leader (from
  ``leaderTemplate``, else ``workerTemplate``) and ``size - 1`` workers. The gang is one
  group: LWS gang scheduling makes one PodGroup per group with ``minMember = size``
  (``pkg/schedulerprovider/volcano_provider.go``), so the view describes one group
  (``total_pods = size``), never all groups together.
- RayCluster and RayJob (``ray.io/v1``, KubeRay v1.7.0 ``ray-operator/apis/ray/v1/raycluster_types.go``):
  the head (``headGroupSpec.template``, one pod) and each ``workerGroupSpecs[i]`` with
  ``replicas`` (default 0) × ``numOfHosts`` (default 1) pods; a RayJob's cluster is
  ``spec.rayClusterSpec``. A cluster with ``enableInTreeAutoscaling: true`` resizes its
  worker groups and is not a fixed gang.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads.types import SPEC, PodTemplate, WorkloadView, as_int, as_list, as_map, is_map

Base = Callable[..., WorkloadView]
Template = Callable[[FieldPath, Any, int, str, FieldPath | None], PodTemplate]
_LWT = SPEC.child("leaderWorkerTemplate")


def _count(value: Any, default: int) -> int:
    return max(as_int(value, default) or 0, 0)


def lws_view(base: Base, template: Template, obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    lwt = as_map(as_map(obj.get("spec")).get("leaderWorkerTemplate"))
    size = max(_count(lwt.get("size"), 1), 1)
    leader = lwt.get("leaderTemplate")
    templates = [
        template(
            _LWT.child("workerTemplate"),
            lwt.get("workerTemplate"),
            size - 1 if is_map(leader) else size,
            "worker",
            _LWT.child("size"),
        )
    ]
    if is_map(leader):
        templates.insert(0, template(_LWT.child("leaderTemplate"), leader, 1, "leader", None))
    return base(obj, group, kind, tuple(templates), is_gang=size > 1)


def _ray_cluster(
    base: Base,
    template: Template,
    obj: Mapping[str, Any],
    group: str,
    kind: str,
    spec: Mapping[str, Any],
    path: FieldPath,
) -> WorkloadView:
    templates = [
        template(
            path.child("headGroupSpec", "template"), as_map(spec.get("headGroupSpec")).get("template"), 1, "head", None
        )
    ]
    for i, worker in enumerate(as_list(spec.get("workerGroupSpecs"))):
        if is_map(worker):
            at = path.child("workerGroupSpecs").index(i)
            pods = _count(worker.get("replicas"), 0) * max(_count(worker.get("numOfHosts"), 1), 1)
            templates.append(
                template(
                    at.child("template"),
                    worker.get("template"),
                    pods,
                    str(worker.get("groupName") or ""),
                    at.child("replicas"),
                )
            )
    fixed = spec.get("enableInTreeAutoscaling") is not True
    return base(obj, group, kind, tuple(templates), is_gang=fixed and sum(t.replicas for t in templates) > 1)


def ray_view(base: Base, template: Template, obj: Mapping[str, Any], group: str, kind: str) -> WorkloadView:
    spec = as_map(obj.get("spec"))
    if kind == "RayJob":
        return _ray_cluster(
            base, template, obj, group, kind, as_map(spec.get("rayClusterSpec")), SPEC.child("rayClusterSpec")
        )
    return _ray_cluster(base, template, obj, group, kind, spec, SPEC)
