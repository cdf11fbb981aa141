"""Routing to the coscheduling plugin: scheduler name, pod-group label and node selector.

Called by :func:`gpufleet.mutate.core.mutate` for a workload in the namespace of a
team that holds a ``system: coscheduling`` pool (validation makes it that team's
only pool). On every pod template, only where absent:

- ``schedulerName``: the second scheduler's profile (``engines.coscheduling.schedulerName``);
  ``default-scheduler`` counts as unset: the API server writes it into every built-in
  pod template before any webhook runs (``pkg/apis/core/v1/defaults.go``
  ``SetDefaults_PodSpec``, Kubernetes v1.35.4; seen in the sandbox). A template naming
  another scheduler is left alone (GANG805 reports it);
- the label ``scheduling.x-k8s.io/pod-group: <workload name>`` on the templates of a
  multi-pod workload, so its pods form one gang (the PodGroup of that name is
  ``gpufleet podgroups``' output; GANG801 reports it missing);
- the pool's ``nodeLabels`` as ``nodeSelector`` entries (the second scheduler has no
  flavors to pin pods to the pool).

Volcano Jobs keep their own scheduler; bare Pods get no group label (a pod a
controller creates inherits it from its template). Upstream: scheduler-plugins
v0.34.7 ``apis/scheduling/v1alpha1/types.go`` (``PodGroupLabel``).
"""

from __future__ import annotations

from gpufleet.fleetctx.context import FleetContext, TeamContext
from gpufleet.kubetypes import vocab
from gpufleet.mutate.patch import PatchBuilder, is_map, is_unset
from gpufleet.workloads import WorkloadView, label_path


def mutate_coscheduling(view: WorkloadView, team: TeamContext, fleet: FleetContext, patch: PatchBuilder) -> None:
    pool = next((p for p in fleet.team_pools(team) if p.system == "coscheduling"), None)
    if pool is None or not fleet.coscheduling_scheduler or view.group == "batch.volcano.sh":
        return
    name = view.obj.get("metadata", {}).get("name") if is_map(view.obj.get("metadata")) else None
    group = name if isinstance(name, str) and name and view.kind != "Pod" and view.total_pods > 1 else None
    for template in view.templates:
        spec = template.spec_path
        patch.set_default(
            spec.child("schedulerName"),
            fleet.coscheduling_scheduler,
            unset=lambda v: is_unset(v) or v == vocab.DEFAULT_SCHEDULER,
        )
        for key, value in pool.node_labels.items():
            patch.set_default(spec.child("nodeSelector").key(key), value)
        if group and not template.labels.get(vocab.COSCHEDULING_GROUP):
            patch.set_default(label_path(vocab.COSCHEDULING_GROUP, template.metadata_path), group)
