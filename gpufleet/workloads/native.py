"""Kubernetes' own gang scheduling as the workload views read it: Workload, PodGroup, pods' groups, Jobs.

Called by ``kinds.BUILDERS`` (the ``scheduling.k8s.io`` Workload and PodGroup views), by
``kinds._pod`` and :func:`gpufleet.workloads.pods.pod_group_name` (a pod's
``spec.schedulingGroup``), by :mod:`gpufleet.rules.gangs` (a batch Job the Job controller
gang-schedules counts as gang-placed), the gang-size rules (GANG001: a ``minCount`` below
the world size) and the mutator (:mod:`gpufleet.mutate.native`: the near miss made whole).
The facts, with the upstream file and tag of each, are :mod:`gpufleet.kubetypes.workload_api`'s:

- a Workload (1.36+, ``scheduling.k8s.io/v1alpha2``, ``v1beta1`` at 1.37) holds
  ``spec.podGroupTemplates[i].schedulingPolicy.gang.minCount`` (or ``.basic``); a 1.35 one
  (``v1alpha1``) ``spec.podGroups[i].policy.gang.minCount``;
- a PodGroup (1.36+) ``spec.schedulingPolicy.gang.minCount``; pods join it with
  ``spec.schedulingGroup.podGroupName`` (1.35: ``spec.workloadRef.name``);
- the Job controller gangs a Job (``WorkloadWithJob`` on): at 1.36 by its shape (Indexed,
  ``parallelism == completions > 1``, no ``schedulingGroup``), from 1.37 only with
  ``spec.scheduling.schedulingPolicy.gang`` (``minCount`` defaults to ``parallelism``), never
  one whose template names a ``schedulingGroup`` (the user brought the group) nor, at 1.37,
  one with a controller owner (a JobSet's child Jobs: their parent owns the Workload).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from gpufleet.kubetypes import workload_api as wa
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads.types import SPEC, as_int, as_list, as_map, is_map

GROUP = wa.GROUP
SCHEDULING = SPEC.child("scheduling")
JOB_GANG = SCHEDULING.child("schedulingPolicy", "gang")
INDEXED = "Indexed"


def scheduling_group(pod_spec: Any) -> str | None:
    """The group a pod (or pod template) joins: ``schedulingGroup.podGroupName`` (1.36+) or ``workloadRef.name`` (1.35)."""
    spec = as_map(pod_spec)
    name = as_map(spec.get("schedulingGroup")).get("podGroupName") or as_map(spec.get("workloadRef")).get("name")
    return str(name) if isinstance(name, str) and name else None


@dataclass(frozen=True)
class GangPolicy:
    """One gang policy of a Workload or PodGroup: its ``minCount`` (None when unset) and where it is written."""

    min_count: int | None
    path: FieldPath


def gang_policies(obj: Mapping[str, Any]) -> tuple[GangPolicy, ...]:
    """The gang policies a ``scheduling.k8s.io`` Workload or PodGroup declares, in order (basic ones left out)."""
    spec = as_map(obj.get("spec"))
    if obj.get("kind") == "PodGroup":
        gang = as_map(spec.get("schedulingPolicy")).get("gang")
        path = SPEC.child("schedulingPolicy", "gang", "minCount")
        return (GangPolicy(as_int(as_map(gang).get("minCount")), path),) if is_map(gang) else ()
    out = []
    for field, policy in (("podGroupTemplates", "schedulingPolicy"), ("podGroups", "policy")):
        for i, template in enumerate(as_list(spec.get(field))):
            gang = as_map(as_map(template).get(policy)).get("gang")
            if is_map(gang):
                out.append(
                    GangPolicy(
                        as_int(as_map(gang).get("minCount")),
                        SPEC.child(field).index(i).child(policy, "gang", "minCount"),
                    )
                )
    return tuple(out)


def _controlled(obj: Mapping[str, Any]) -> bool:
    refs = as_list(as_map(obj.get("metadata")).get("ownerReferences"))
    return any(is_map(ref) and ref.get("controller") is True for ref in refs)


def job_gang(job: Mapping[str, Any], minor: int) -> GangPolicy | None:
    """The gang the Job controller of ``minor`` gives ``job`` (a ``batch/v1`` Job), its gates on; None: pod by pod.

    The minimum is the ``minCount`` written (1.37+) or ``parallelism``, at the path that holds it
    (``spec.scheduling.schedulingPolicy.gang.minCount``, else ``spec.parallelism``).
    """
    spec = as_map(job.get("spec"))
    template_spec = as_map(as_map(spec.get("template")).get("spec"))
    if minor < wa.JOB_GANG_MIN_MINOR or scheduling_group(template_spec) is not None:
        return None
    parallelism = as_int(spec.get("parallelism"), 1)
    if wa.jobs_gang_by_shape(minor):
        if (
            parallelism is None
            or parallelism <= 1
            or spec.get("completionMode") != INDEXED
            or as_int(spec.get("completions")) != parallelism
        ):
            return None
        return GangPolicy(parallelism, SPEC.child("parallelism"))
    gang = as_map(as_map(spec.get("scheduling")).get("schedulingPolicy")).get("gang")
    if not is_map(gang) or _controlled(job):
        return None
    written = as_int(as_map(gang).get("minCount"))
    if written is not None:
        return GangPolicy(written, JOB_GANG.child("minCount"))
    return GangPolicy(max(1, parallelism or 1), SPEC.child("parallelism"))


def near_miss(job: Mapping[str, Any], minor: int) -> tuple[FieldPath, Any] | None:
    """The one field that makes ``job`` a gang the Job controller of ``minor`` schedules whole, or None.

    Only for a Job that is one by its counts (``parallelism == completions > 1``), names no
    ``schedulingGroup`` and is not gang-scheduled yet: at 1.36, ``completionMode: Indexed`` when it
    is unset (an explicit ``NonIndexed`` is the user's choice); from 1.37, ``spec.scheduling`` with
    a gang policy whose ``minCount`` the controller defaults to ``parallelism``, when ``spec.scheduling``
    is unset (it is immutable, including whether it is set at all).
    """
    spec = as_map(job.get("spec"))
    parallelism = as_int(spec.get("parallelism"), 1)
    if (
        minor < wa.JOB_GANG_MIN_MINOR
        or parallelism is None
        or parallelism <= 1
        or as_int(spec.get("completions")) != parallelism
        or job_gang(job, minor) is not None
        or scheduling_group(as_map(as_map(spec.get("template")).get("spec"))) is not None
    ):
        return None
    if wa.jobs_gang_by_shape(minor):
        return (SPEC.child("completionMode"), INDEXED) if "completionMode" not in spec else None
    if "scheduling" in spec or _controlled(job):
        return None
    return SCHEDULING, {"schedulingPolicy": {"gang": {}}}
