"""A fluent builder of small, valid fleet model dicts for tests.

``FleetBuilder()`` starts from a valid fleet: a Kueue pool ``h100`` (4 nodes × 8 GPUs,
96 cpu, 768Gi), a Volcano pool ``a100`` (2 nodes × 8 GPUs, 64 cpu, 512Gi), a cohort
``ml`` and two teams in it, ``alpha`` and ``beta``, with quota on both pools, and one
priority class. Tests add entries (``with_pool``, ``with_team``, ...) or edit one
field by its model path (``set("teams[1].quota.h100.lendingLimit", 9)``) and then
``build()`` the dict, ``model()`` the parsed Fleet, or ``issues()`` its validation.
Import it as ``from tests.model.builders import FleetBuilder``.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from gpufleet.model import Fleet, gpu_units, parse_model
from gpufleet.model.checks import validate
from gpufleet.yamlin.errors import Issue

_TOKEN = re.compile(r'\["([^"]+)"\]|\[(\d+)\]|([^.\[\]]+)')


def parse_path(path: str) -> list[str | int]:
    """``teams[1].quota["nvidia.com/gpu"]`` -> ``["teams", 1, "quota", "nvidia.com/gpu"]``."""
    return [quoted if quoted else int(index) if index else key for quoted, index, key in _TOKEN.findall(path)]


def pool(
    name: str, system: str = "kueue", nodes: int = 2, gpus: int = 8, cpu: int = 96, memory: str = "768Gi", **fields: Any
) -> dict[str, Any]:
    """One pool entry: ``nodes`` nodes of ``gpus`` GPUs, ``cpu`` and ``memory``, labelled for its engine.

    ``fields`` are set on the entry as given. The render tests' ``pool`` builds its
    pools with it, at their own size.
    """
    out = {
        "name": name,
        "system": system,
        "nodeCount": nodes,
        "allocatable": {"nvidia.com/gpu": gpus, "cpu": cpu, "memory": memory},
        "nodeLabels": {
            "gpufleet.dev/pool": name,
            **({"volcano.sh/nodegroup-name": name} if system == "volcano" else {}),
        },
    }
    out.update(fields)
    return out


def _default() -> dict[str, Any]:
    h100 = pool("h100", "kueue", 4, 8, 96, "768Gi")
    h100.update(
        {
            "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "coldStartBudget": "5m",
        }
    )
    return {
        "apiVersion": "gpufleet.dev/v1alpha1",
        "kind": "Fleet",
        "name": "test",
        "engines": {"kueue": {"chartVersion": "0.19.2"}, "volcano": {"chartVersion": "1.15.1"}},
        "pools": [h100, pool("a100", "volcano", 2, 8, 64, "512Gi")],
        "cohorts": [{"name": "ml"}],
        "teams": [
            {
                "name": "alpha",
                "namespaces": ["alpha", "alpha-vc"],
                "volcanoNamespaces": ["alpha-vc"],
                "cohort": "ml",
                "quota": {"h100": {"nominal": 16, "borrowingLimit": 8}, "a100": {"nominal": 8}},
            },
            {
                "name": "beta",
                "namespaces": ["beta", "beta-vc"],
                "volcanoNamespaces": ["beta-vc"],
                "cohort": "ml",
                "quota": {"h100": {"nominal": 8, "lendingLimit": 4}, "a100": {"nominal": 4, "borrowingLimit": 4}},
            },
        ],
        "priorityClasses": [{"name": "gang-standard", "value": 1000}],
        "admission": {"waitForPodsReady": {"timeout": "10m"}},
    }


DEFAULT_VOLCANO_NAMESPACES = {"alpha-vc", "beta-vc"}


def _heal_default_volcano_namespaces(data: dict[str, Any]) -> dict[str, Any]:
    """Keep the default teams' Volcano namespaces consistent with what a test changed.

    The default teams have quota on both engines, so each owns one Volcano namespace
    (``alpha-vc``, ``beta-vc``). A test that replaces a team's namespaces keeps it; a
    test that takes away the team's Volcano or Kueue quota drops it. Namespaces a
    test sets itself are never touched.
    """
    systems = {p.get("name"): p.get("system") for p in data.get("pools") or () if isinstance(p, dict)}
    for team in data.get("teams") or ():
        if not isinstance(team, dict):
            continue
        defaults = [ns for ns in team.get("volcanoNamespaces") or () if ns in DEFAULT_VOLCANO_NAMESPACES]
        if not defaults:
            continue
        used = {systems.get(name) for name in team.get("quota") or {}}
        if used != {"kueue", "volcano"}:
            team["volcanoNamespaces"] = [ns for ns in team["volcanoNamespaces"] if ns not in defaults]
            team["namespaces"] = [ns for ns in team.get("namespaces") or () if ns not in defaults] or team.get(
                "namespaces"
            )
            if not team["volcanoNamespaces"]:
                del team["volcanoNamespaces"]
        elif isinstance(team.get("namespaces"), list):
            team["namespaces"] += [ns for ns in defaults if ns not in team["namespaces"]]
    return data


class FleetBuilder:
    """Fluent builder of a fleet model dict; every method returns the builder."""

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        self.data = copy.deepcopy(data) if data is not None else _default()

    @classmethod
    def empty(cls) -> FleetBuilder:
        """Only the header: no pools, cohorts, teams or priority classes."""
        return cls({"apiVersion": "gpufleet.dev/v1alpha1", "kind": "Fleet", "name": "test", "pools": []})

    def with_pool(self, name: str, system: str = "kueue", **fields: Any) -> FleetBuilder:
        """Add :func:`pool` ``name`` (2 nodes x 8 GPUs, 96 cpu, 768Gi unless ``fields`` say otherwise)."""
        self.data.setdefault("pools", []).append(pool(name, system, **fields))
        return self

    def with_cohort(self, name: str, parent: str | None = None, **fields: Any) -> FleetBuilder:
        cohort: dict[str, Any] = {"name": name, **({"parent": parent} if parent else {}), **fields}
        self.data.setdefault("cohorts", []).append(cohort)
        return self

    def with_team(
        self,
        name: str,
        cohort: str | None = None,
        quota: dict[str, Any] | None = None,
        namespaces: list[str] | None = None,
        **fields: Any,
    ) -> FleetBuilder:
        team: dict[str, Any] = {
            "name": name,
            "namespaces": namespaces or [name],
            "quota": quota if quota is not None else {"h100": {"nominal": 0}},
        }
        if cohort:
            team["cohort"] = cohort
        team.update(fields)
        self.data.setdefault("teams", []).append(team)
        return self

    def with_priority_class(self, name: str, value: int = 100, **fields: Any) -> FleetBuilder:
        self.data.setdefault("priorityClasses", []).append({"name": name, "value": value, **fields})
        return self

    def _parent(self, path: str, create: bool = True) -> tuple[Any, str | int]:
        parts = parse_path(path)
        node: Any = self.data
        for part in parts[:-1]:
            if isinstance(part, str) and part not in node and create:
                node[part] = {}
            node = node[part]
        return node, parts[-1]

    def set(self, path: str, value: Any) -> FleetBuilder:
        """Set one field by its model path, creating missing mappings on the way."""
        node, last = self._parent(path)
        node[last] = copy.deepcopy(value)
        return self

    def drop(self, path: str) -> FleetBuilder:
        node, last = self._parent(path, create=False)
        del node[last]
        return self

    def append(self, path: str, value: Any) -> FleetBuilder:
        node, last = self._parent(path)
        node.setdefault(last, []).append(copy.deepcopy(value))
        return self

    def build(self) -> dict[str, Any]:
        return _heal_default_volcano_namespaces(copy.deepcopy(self.data))

    def model(self) -> Fleet:
        """The parsed Fleet, without the cross-field checks."""
        return parse_model(self.build(), "test", validate=False)

    def issues(self) -> list[Issue]:
        """Every issue: the raw document's GPU units and the cross-field checks (as the loader reports them)."""
        return [*gpu_units.check_raw(self.build()), *validate(self.model())]


def fleet() -> FleetBuilder:
    return FleetBuilder()


def broken_everywhere() -> FleetBuilder:
    """The default fleet broken once for several checks at once.

    A team and a cohort share a name, a lending limit is above nominal, a taint key,
    a framework, the overcommit factor and the Volcano chart are invalid. The
    validate and issue-path tests read its issues.
    """
    return (
        fleet()
        .with_cohort("alpha")
        .set("teams[1].quota.h100.lendingLimit", 9)
        .set("pools[0].taints[0].key", "bad key")
        .set("admission.frameworks", ["nope"])
        .set("volcano.overcommitFactor", 2)
        .set("engines.volcano.chartVersion", "1.14.0")
    )
