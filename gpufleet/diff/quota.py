"""The quota half of a diff: per team and pool, before and after, in the pool's GPUs.

Called by :func:`gpufleet.diff.diff_fleets`. A row per (team, pool) whose nominal,
borrowing limit, lending limit, share of the pool or lifecycle changed, or whose team
was added or removed; plus the namespaces that moved between teams and the pools
whose size changed. Numbers are the model's (the same the plan prints).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from gpufleet.kubetypes.quantity import json_number as _num
from gpufleet.model.fleet import Fleet


def _entry(fleet: Fleet, team, pool_name: str) -> dict[str, Any] | None:
    pq = team.quota.get(pool_name)
    if pq is None:
        return None
    pool = fleet.pool(pool_name)
    if pool is None:  # a pool the model does not declare (the model's own check reports it)
        return None
    share = (pq.nominal * 100 / pool.capacity).quantize(Decimal("0.1")) if pool.capacity else Decimal(0)
    return {
        "nominal": _num(pq.nominal),
        "borrowingLimit": _num(pq.borrowing_limit),
        "lendingLimit": _num(pq.lending_limit),
        "share": _num(share),
        "lifecycle": team.lifecycle,
    }


def _change(before: dict | None, after: dict | None) -> str:
    if before is None:
        return "added"
    if after is None:
        return "removed"
    if after["lifecycle"] != before["lifecycle"] and after["lifecycle"] in ("draining", "retired"):
        return after["lifecycle"]
    return "changed"


def quota_rows(base: Fleet, new: Fleet) -> list[dict[str, Any]]:
    teams_base = {t.name: t for t in base.teams}
    teams_new = {t.name: t for t in new.teams}
    rows = []
    base_pools, new_pools = {p.name: p.capacity for p in base.pools}, {p.name: p.capacity for p in new.pools}
    for name in [*teams_base, *(n for n in teams_new if n not in teams_base)]:
        old_team, new_team = teams_base.get(name), teams_new.get(name)
        pools = list(dict.fromkeys([*(old_team.quota if old_team else {}), *(new_team.quota if new_team else {})]))
        for pool in pools:
            if (
                old_team is not None
                and new_team is not None
                and old_team.lifecycle == new_team.lifecycle
                and old_team.quota.get(pool) == new_team.quota.get(pool)
                and pool in base_pools
                and base_pools[pool] == new_pools.get(pool)
            ):
                continue
            before = _entry(base, old_team, pool) if old_team and pool in base_pools else None
            after = _entry(new, new_team, pool) if new_team and pool in new_pools else None
            if before != after:
                rows.append(
                    {"team": name, "pool": pool, "change": _change(before, after), "before": before, "after": after}
                )
    return rows


def moved_namespaces(base: Fleet, new: Fleet) -> list[dict[str, str]]:
    owner_base = {ns: t.name for t in base.teams for ns in t.namespaces}
    owner_new = {ns: t.name for t in new.teams for ns in t.namespaces}
    return [
        {"namespace": ns, "from": owner_base[ns], "to": owner_new[ns]}
        for ns in owner_base
        if ns in owner_new and owner_base[ns] != owner_new[ns]
    ]


def resized_pools(base: Fleet, new: Fleet) -> list[dict[str, Any]]:
    old = {p.name: p for p in base.pools}
    out = []
    for pool in new.pools:
        before = old.get(pool.name)
        if before is not None and _pool_state(before) != _pool_state(pool):
            out.append({"pool": pool.name, "before": _pool_state(before), "after": _pool_state(pool)})
    return out


def _pool_state(pool: Any) -> dict[str, Any]:
    """What a pool change means for its teams: size, and the mechanism (system, placement, dedicated owner) that gangs them."""
    return {
        "nodes": pool.node_count,
        "capacity": _num(pool.capacity),
        "system": pool.system,
        "placement": pool.placement,
        "dedicatedTo": pool.dedicated_to,
    }
