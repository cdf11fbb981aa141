"""``mutate(obj, fleet, namespace)``: the admission controller's defaulting, as JSON Patch.

Called by the admission webhook (``gpufleet.webhook``) on CREATE and usable by any
other adapter. It only touches objects in a namespace the fleet assigns to a team
(``fleet.team_for_namespace``) and returns RFC 6902 operations, built directly from
the object (no diffing), that:

- add the team's Kueue LocalQueue label to the kinds Kueue manages
  (:mod:`gpufleet.mutate.kueue`);
- default a Volcano Job's queue, scheduler, gang minimum, restart policies and pod
  restart policy (:mod:`gpufleet.mutate.volcano`);
- add a dedicated pool's toleration and node selector (:mod:`gpufleet.mutate.partition`);
- route a coscheduling pool's workloads to the second scheduler with a pod-group label
  (:mod:`gpufleet.mutate.coscheduling`);
- make a near-miss Job a gang the Job controller schedules whole, and pin a native pool's pods
  (:mod:`gpufleet.mutate.native`, Kubernetes' own gang scheduling);
- stamp the gang identity label ``gpufleet.dev/gang`` on a gang's pod templates
  (:mod:`gpufleet.mutate.gang`).

Never overwrites a value the user set; idempotent: ``mutate(apply(obj, ops)) == []``.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.fleetctx.context import FleetContext
from gpufleet.mutate.coscheduling import mutate_coscheduling
from gpufleet.mutate.gang import mutate_gang_identity
from gpufleet.mutate.kueue import mutate_kueue_label
from gpufleet.mutate.native import mutate_native
from gpufleet.mutate.partition import mutate_partition
from gpufleet.mutate.patch import PatchBuilder, is_map
from gpufleet.mutate.volcano import mutate_volcano_job
from gpufleet.workloads import build_view


def mutate(obj: Mapping[str, Any], fleet: FleetContext, namespace: str | None = None) -> list[dict[str, Any]]:
    """JSON Patch operations making ``obj`` gang-safe for its team (``[]`` when nothing to do).

    ``namespace`` is the admission request's namespace; it wins over
    ``metadata.namespace``, which a client may leave out on CREATE.
    """
    if not is_map(obj):
        return []
    metadata = obj.get("metadata")
    ns = namespace or (metadata.get("namespace") if is_map(metadata) else None)
    team = fleet.team_for_namespace(ns if isinstance(ns, str) else None)
    if team is None:
        return []
    patch = PatchBuilder(obj)
    view = build_view(obj)
    if obj.get("kind") == "Job" and str(obj.get("apiVersion", "")).startswith("batch.volcano.sh/"):
        mutate_volcano_job(obj, team, patch)
    elif view is not None:
        mutate_kueue_label(view, team, fleet.queue_label, patch, fleet)
    if view is not None:  # placement on dedicated and coscheduling pools (new modules, issue 13)
        mutate_partition(view, team, fleet, patch)
        mutate_coscheduling(view, team, fleet, patch)
        mutate_native(view, team, fleet, patch)
    mutate_gang_identity(obj, fleet.gang_label, patch)
    return patch.ops
