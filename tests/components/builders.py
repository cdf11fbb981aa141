"""Small fleet models and helpers for the component tests.

``fleet_data()`` is a two-pool, two-team fleet (a Kueue L4 pool, a Volcano T4 pool,
one cohort); keyword arguments replace top-level sections. ``pools()`` are its two
pools, for a test that changes one field of the L4 pool. ``plain(x)`` undoes the
protobuf round trip of the mocks (integers come back as floats). ``chart_in_namespace``
checks an engine's chart is the pinned release installed into its own namespace.
"""

from __future__ import annotations

import copy
from typing import Any

from gpufleet.model import Fleet, parse_model


def team(name: str, **fields: Any) -> dict[str, Any]:
    base = {
        "name": name,
        "namespaces": [name, f"{name}-vc"],
        "volcanoNamespaces": [f"{name}-vc"],
        "cohort": "dev",
        "quota": {"l4": {"nominal": 8, "borrowingLimit": 8}, "t4": {"nominal": 4}},
    }
    if "t4" not in fields.get("quota", base["quota"]) and "volcanoNamespaces" not in fields:
        base.update(namespaces=[name], volcanoNamespaces=[])  # no Volcano quota: no Volcano namespace
    return {**base, **fields}


def pools(**l4_fields: Any) -> list[dict[str, Any]]:
    """The unit fleet's two pools (Kueue L4, Volcano T4); keyword arguments add to or replace the L4 pool's fields."""
    l4 = {
        "name": "l4",
        "system": "kueue",
        "nodeCount": 4,
        "allocatable": {"nvidia.com/gpu": 8, "cpu": 96, "memory": "384Gi"},
        "nodeLabels": {"gpufleet.dev/pool": "l4"},
        "coldStartBudget": "6m",
    }
    t4 = {
        "name": "t4",
        "system": "volcano",
        "nodeCount": 2,
        "allocatable": {"nvidia.com/gpu": 4, "cpu": 48, "memory": "192Gi"},
        "nodeLabels": {"gpufleet.dev/pool": "t4", "volcano.sh/nodegroup-name": "t4"},
    }
    return [{**l4, **l4_fields}, t4]


def fleet_data(**sections: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "apiVersion": "gpufleet.dev/v1alpha1",
        "kind": "Fleet",
        "name": "unit",
        "engines": {"kueue": {"chartVersion": "0.19.2"}, "volcano": {"chartVersion": "1.15.1"}},
        "pools": pools(),
        "cohorts": [{"name": "dev"}],
        "teams": [team("alpha"), team("beta", namespaces=["beta", "beta-sandbox", "beta-vc"])],
        "priorityClasses": [{"name": "gang-standard", "value": 1000, "description": "gangs"}],
    }
    data.update(copy.deepcopy(sections))
    return data


def fleet(**sections: Any) -> Fleet:
    return parse_model(fleet_data(**sections), "unit.fleet.yaml")


def kueue_only(**sections: Any) -> Fleet:
    """The unit fleet without its Volcano pool and with Volcano disabled."""
    data = fleet_data(**sections)
    data["pools"] = [p for p in data["pools"] if p["system"] == "kueue"]
    data["engines"]["volcano"]["enabled"] = False
    for t in data["teams"]:
        t["quota"] = {k: v for k, v in t["quota"].items() if k == "l4"}
        t["namespaces"] = [ns for ns in t["namespaces"] if ns not in t.pop("volcanoNamespaces", [])]
    return parse_model(data, "unit.fleet.yaml")


def plain(value: Any) -> Any:
    """Integral floats back to ints, recursively (the mocks' Struct round trip makes 16 -> 16.0)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def by_type(registered, suffix: str) -> list:
    return [r for r in registered if r.type.endswith(suffix)]


def one(registered, suffix: str):
    found = by_type(registered, suffix)
    assert len(found) == 1, f"expected one {suffix}, got {[r.name for r in found]}"
    return found[0]


def chart_in_namespace(registered, engine):
    """The engine's one chart, after checking it is the model's release installed into the model's namespace."""
    chart = one(registered, "kubernetes:helm.sh/v4:Chart")
    namespace = one(registered, "kubernetes:core/v1:Namespace")
    assert (chart.inputs["version"], chart.inputs["namespace"], chart.inputs["name"]) == (
        engine.chart_version,
        engine.namespace,
        engine.release_name,
    )
    assert namespace.inputs["metadata"]["name"] == engine.namespace
    assert namespace.urn in chart.dependencies
    return chart
