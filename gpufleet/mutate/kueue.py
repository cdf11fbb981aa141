"""The team's Kueue LocalQueue label on the workload kinds Kueue manages.

Called by :func:`gpufleet.mutate.core.mutate` for an object in a team's namespace
whose team has a LocalQueue. Which objects get the label (Kueue's kinds, not those
routed to Volcano, not those a Kueue-managed parent owns) is
:func:`gpufleet.workloads.kueue_label.controller_queue`'s decision, which GANG103 reads
too when it says what happens to an unlabelled job with and without this controller.
"""

from __future__ import annotations

from gpufleet.fleetctx.context import FleetContext, TeamContext
from gpufleet.mutate.patch import PatchBuilder
from gpufleet.workloads import WorkloadView, label_path
from gpufleet.workloads.kueue_label import controller_queue


def mutate_kueue_label(
    view: WorkloadView, team: TeamContext, label: str, patch: PatchBuilder, fleet: FleetContext | None = None
) -> None:
    queue = controller_queue(view, team, fleet)
    if queue:
        patch.set_default(label_path(label), queue)
