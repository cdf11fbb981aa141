"""Static partitioning: the dedicated pool's toleration and node selector on its team's pods.

Called by :func:`gpufleet.mutate.core.mutate` for a workload in a team's namespace
when the fleet dedicates a pool to that team (``pools[].dedicatedTo``; nodes
labelled and tainted ``gpufleet.dev/dedicated=<team>``). On every pod template, only
where absent:

- the toleration ``gpufleet.dev/dedicated=<team>:NoExecute`` (the pool's taint, ``checks.dedicated``) (skipped when a
  toleration for that key, or a key-less ``Exists`` one, is already there);
- the node selector ``gpufleet.dev/dedicated: <team>``, only when every pool the team
  holds is dedicated to it (otherwise Kueue's flavor assignment picks the pool, and
  adds the flavor's node labels itself at admission).
"""

from __future__ import annotations

from typing import Any

from gpufleet.fleetctx.context import FleetContext, TeamContext
from gpufleet.kubetypes.vocab import DEDICATED_KEY
from gpufleet.mutate.patch import PatchBuilder, is_map
from gpufleet.workloads import WorkloadView


def mutate_partition(view: WorkloadView, team: TeamContext, fleet: FleetContext, patch: PatchBuilder) -> None:
    pools = fleet.team_pools(team)
    if not any(p.dedicated_to == team.name for p in pools):
        return
    only_dedicated = all(p.dedicated_to == team.name for p in pools)
    toleration = {"key": DEDICATED_KEY, "operator": "Equal", "value": team.name, "effect": "NoExecute"}
    for template in view.templates:
        spec = template.spec_path
        if not _tolerates(template.spec.get("tolerations")):
            patch.append(spec.child("tolerations"), dict(toleration))
        if only_dedicated:
            patch.set_default(spec.child("nodeSelector").key(DEDICATED_KEY), team.name)


def _tolerates(tolerations: Any) -> bool:
    if not isinstance(tolerations, list):
        return False
    return any(
        is_map(t) and (t.get("key") == DEDICATED_KEY or (not t.get("key") and t.get("operator") == "Exists"))
        for t in tolerations
    )
