"""Kubernetes' own gang scheduling: the one field that makes a near-miss Job a gang, and a native pool's node selector.

Called by :func:`gpufleet.mutate.core.mutate` for a workload in the namespace of a team
holding a pool whose gangs kube-scheduler places whole (``system: native``, or a Kueue pool
with ``placement: native``), on a cluster whose Job controller gangs Jobs (the fleet
context's ``kubernetesVersion`` 1.36+ with ``GenericWorkload`` and ``WorkloadWithJob`` on).
Only where absent, as the Volcano defaulting does:

- on a batch Job that is a gang by its counts (``parallelism == completions > 1``) but that the
  Job controller would schedule pod by pod, the field :func:`gpufleet.workloads.native.near_miss`
  names: ``completionMode: Indexed`` at 1.36 (an explicit ``NonIndexed`` is left alone), or
  ``spec.scheduling: {schedulingPolicy: {gang: {}}}`` from 1.37 (``minCount`` then defaults to
  ``parallelism``; the field is immutable, so only CREATE can add it). A sweep
  (``completions`` > ``parallelism``), a Job naming its own ``schedulingGroup`` and a JobSet's
  child Job (its parent owns the Workload) are never touched;
- on a ``system: native`` pool (no flavors to pin pods), the pool's ``nodeLabels`` as
  ``nodeSelector`` entries of every pod template.
"""

from __future__ import annotations

from gpufleet.fleetctx.context import FleetContext, TeamContext
from gpufleet.mutate.patch import PatchBuilder
from gpufleet.workloads import WorkloadView
from gpufleet.workloads.native import near_miss


def mutate_native(view: WorkloadView, team: TeamContext, fleet: FleetContext, patch: PatchBuilder) -> None:
    pools = [p for p in fleet.team_pools(team) if p.native_gangs]
    if not pools or not fleet.native_jobs:
        return
    if (view.group, view.kind) == ("batch", "Job"):
        found = near_miss(view.obj, fleet.kubernetes_minor or 0)
        if found is not None:
            patch.set_default(found[0], found[1])
    alone = next((p for p in pools if p.system == "native"), None)
    if alone is None or view.group == "batch.volcano.sh":
        return
    for template in view.templates:
        for key, value in alone.node_labels.items():
            patch.set_default(template.spec_path.child("nodeSelector").key(key), value)
