"""A synthetic fleet model for the benchmarks: 1,000 teams, 8 pools (or any counts), a 3-level cohort tree.

Shared by ``bench/render_bench.py`` (validate + render) and the Pulumi benchmark.
``synthetic_fleet()`` returns the model as a plain dict (what the YAML loader would
give); ``python bench/synthetic.py [TEAMS [POOLS]] > big.fleet.yaml`` writes it as YAML. The model is
valid: every pool has room for the nominal quota on it, limits only appear inside
cohorts, names are unique DNS labels.

Shape (defaults; ``synthetic_fleet(teams, pools)`` keeps the 5:3 split): pools 5 Kueue
(h100-0..4, the first with topology levels) and 3 Volcano (a100-0..2); cohorts ``org`` -> 4 divisions -> 5 groups each (20 leaf cohorts); team i
sits in group i % 20, has Kueue quota on pool i % 5 (nominal 8, borrowing 8, every
4th team also lends at most 4) and, for every third team, Volcano quota on pool (i // 3) % 3;
every fifth team has a second namespace, and every team with Volcano quota a namespace
``<team>-vc`` for its Volcano jobs (``volcanoNamespaces``); Volcano pools label their
nodes with ``volcano.sh/nodegroup-name``.
"""

from __future__ import annotations

import sys
from typing import Any

KUEUE_POOLS = 5
VOLCANO_POOLS = 3
DIVISIONS = 4
GROUPS_PER_DIVISION = 5


def _split(pools: int) -> tuple[int, int]:
    """(Kueue, Volcano) pools of ``pools`` in all: 5 and 3 of 8, the same share for any other count."""
    kueue = max(1, round(pools * KUEUE_POOLS / (KUEUE_POOLS + VOLCANO_POOLS)))
    return kueue, max(1, pools - kueue)


def _pools(teams: int, pools_wanted: int) -> list[dict[str, Any]]:
    pools = []
    kueue, volcano = _split(pools_wanted)
    kueue_nodes = -(-teams // kueue) * 8 // 8 + 16  # one node (8 GPUs) per team on the pool, plus spare
    volcano_nodes = -(-teams // (3 * volcano)) + 8
    for i in range(kueue):
        pool: dict[str, Any] = {
            "name": f"h100-{i}",
            "system": "kueue",
            "nodeCount": kueue_nodes,
            "allocatable": {"nvidia.com/gpu": 8, "cpu": 192, "memory": "1920Gi", "rdma/ib": 8},
            "nodeLabels": {"gpufleet.dev/pool": f"h100-{i}"},
            "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "coldStartBudget": "8m",
        }
        if i == 0:
            pool["topologyLevels"] = [
                "topology.gpufleet.dev/block",
                "topology.gpufleet.dev/rack",
                "kubernetes.io/hostname",
            ]
        pools.append(pool)
    for i in range(volcano):
        pools.append(
            {
                "name": f"a100-{i}",
                "system": "volcano",
                "nodeCount": volcano_nodes,
                "allocatable": {"nvidia.com/gpu": 8, "cpu": 128, "memory": "1000Gi"},
                "nodeLabels": {"gpufleet.dev/pool": f"a100-{i}", "volcano.sh/nodegroup-name": f"a100-{i}"},
                "coldStartBudget": "7m",
            }
        )
    return pools


def _cohorts() -> list[dict[str, Any]]:
    cohorts: list[dict[str, Any]] = [{"name": "org"}]
    for d in range(DIVISIONS):
        cohorts.append({"name": f"div-{d}", "parent": "org", "fairShareWeight": 1 + d % 2})
        for g in range(GROUPS_PER_DIVISION):
            cohorts.append({"name": f"grp-{d}-{g}", "parent": f"div-{d}"})
    return cohorts


def _team(i: int, kueue: int, volcano: int) -> dict[str, Any]:
    groups = DIVISIONS * GROUPS_PER_DIVISION
    group = i % groups
    name = f"team-{i:04d}"
    kueue_quota: dict[str, Any] = {"nominal": 8, "borrowingLimit": 8}
    if i % 4 == 0:
        kueue_quota["lendingLimit"] = 4
    quota: dict[str, Any] = {f"h100-{i % kueue}": kueue_quota}
    if i % 3 == 0:
        quota[f"a100-{(i // 3) % volcano}"] = {"nominal": 8, "borrowingLimit": 8}
    namespaces = [name, f"{name}-dev"] if i % 5 == 0 else [name]
    team: dict[str, Any] = {
        "name": name,
        "namespaces": namespaces,
        "cohort": f"grp-{group // GROUPS_PER_DIVISION}-{group % GROUPS_PER_DIVISION}",
        "quota": quota,
        "fairShareWeight": 1 + i % 3,
    }
    if i % 3 == 0:  # quota on both engines: Volcano jobs get a namespace of their own (Kueue manages whole namespaces)
        namespaces.append(f"{name}-vc")
        team["volcanoNamespaces"] = [f"{name}-vc"]
    return team


def synthetic_fleet(teams: int = 1000, pools: int = KUEUE_POOLS + VOLCANO_POOLS) -> dict[str, Any]:
    """The synthetic model as a plain dict (parse it with ``gpufleet.model.parse_model``); ``pools`` split 5:3."""
    kueue, volcano = _split(pools)
    return {
        "apiVersion": "gpufleet.dev/v1alpha1",
        "kind": "Fleet",
        "name": "synthetic",
        "pools": _pools(teams, pools),
        "cohorts": _cohorts(),
        "teams": [_team(i, kueue, volcano) for i in range(teams)],
        "priorityClasses": [
            {"name": "gang-critical", "value": 100000, "description": "Release-blocking runs."},
            {"name": "gang-standard", "value": 1000, "description": "Default gang priority."},
            {"name": "gang-preemptible", "value": 100, "description": "Borrowed quota; reclaimed first."},
        ],
        "admission": {
            "waitForPodsReady": {"timeout": "10m", "requeuingStrategy": {"backoffLimitCount": 5}},
            "fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]},
        },
    }


if __name__ == "__main__":
    import yaml

    sys.stdout.write(yaml.safe_dump(synthetic_fleet(*(int(a) for a in sys.argv[1:3])), sort_keys=False))
