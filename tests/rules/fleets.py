"""A small fleet context for the GPU rule tests: two pools, two teams."""

from __future__ import annotations

from typing import Any

from gpufleet.fleetctx.context import FleetContext
from gpufleet.rules.api import CheckContext


def pool(
    name: str, nodes: int, gpus: int, resource: str = "nvidia.com/gpu", cpu: str = "192", memory: str = "1800Gi"
) -> dict[str, Any]:
    return {
        "name": name,
        "system": "volcano",
        "nodeCount": nodes,
        "gpuResource": resource,
        "allocatable": {resource: str(gpus), "cpu": cpu, "memory": memory},
        "nodeLabels": {"gpufleet.dev/pool": name},
    }


def fleet(*pools: dict[str, Any], teams: dict[str, list[str]] | None = None, floor: int = 600) -> FleetContext:
    pools = pools or (pool("h100", 4, 8), pool("l4", 16, 4, cpu="48", memory="192Gi"))
    teams = teams if teams is not None else {"research": ["h100"]}
    return FleetContext.from_dict(
        {
            "version": 1,
            "fleet": "test",
            "pools": list(pools),
            "coldStartFloorSeconds": floor,
            "teams": [{"name": t, "namespaces": [t], "pools": p} for t, p in teams.items()],
        }
    )


def ctx(*pools: dict[str, Any], **kwargs: Any) -> CheckContext:
    return CheckContext(fleet=fleet(*pools, **kwargs))
