"""A workload that asks for Kubernetes' own gang scheduling on a cluster that does not run it (GANG106).

Called by GANG106. The ask is a pod template's ``spec.schedulingGroup`` (a PodGroup to join,
behind ``GenericWorkload``) or a batch Job's ``spec.scheduling.schedulingPolicy.gang`` (1.37+,
behind ``WorkloadWithJob``); facts in :mod:`gpufleet.kubetypes.workload_api` (kubernetes
v1.37.2, ``pkg/apis/core/types.go`` and ``staging/src/k8s.io/api/batch/v1/types.go``). With the
gate off the API server drops ``schedulingGroup`` (a gated field) and forbids
``spec.scheduling``, so the ask is no route. Judged only with a fleet context that names the
cluster (``kubernetesVersion``); without one the ask counts as a route.
"""

from __future__ import annotations

from gpufleet.kubetypes import workload_api as wa
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext
from gpufleet.workloads import WorkloadView, as_map
from gpufleet.workloads.native import SCHEDULING, scheduling_group
from gpufleet.workloads.types import is_map


def ignored_ask(view: WorkloadView, ctx: CheckContext) -> tuple[FieldPath, str] | None:
    """Where ``view`` asks for native gang scheduling that this cluster ignores, and why; None otherwise."""
    fleet = ctx.fleet
    if fleet is None or fleet.kubernetes_minor is None:
        return None
    version = f"Kubernetes 1.{fleet.kubernetes_minor}"
    if not fleet.native_gang_api:
        for template in view.templates:
            if scheduling_group(template.spec):
                return (
                    template.spec_path.child("schedulingGroup"),
                    f"{version} here runs without {wa.GENERIC_WORKLOAD}: the API server drops spec.schedulingGroup",
                )
    spec = as_map(view.obj.get("spec"))
    asked = is_map(as_map(as_map(spec.get("scheduling")).get("schedulingPolicy")).get("gang"))
    too_old = fleet.kubernetes_minor < wa.JOB_SCHEDULING_FIELD_MINOR
    if (view.group, view.kind) == ("batch", "Job") and asked and (too_old or not fleet.native_jobs):
        off = " and ".join(g for g in (wa.GENERIC_WORKLOAD, wa.WORKLOAD_WITH_JOB) if g not in fleet.workload_gates)
        why = (
            f"{version} has no spec.scheduling on Jobs (1.{wa.JOB_SCHEDULING_FIELD_MINOR}+)"
            if too_old
            else f"{version} here runs without {off}: the API server forbids it"
        )
        return SCHEDULING, why
    return None
