"""Small builders of fleet models for the render tests.

``fleet(pools=[pool("h100")], teams=[team("a", quota={"h100": quota(8)})])`` returns a
validated :class:`Fleet`; every builder returns the plain model dict it will parse,
so a test writes only what it is about.
"""

from __future__ import annotations

from typing import Any

from gpufleet.model import Fleet, parse_model
from tests.model.builders import pool as model_pool


def pool(name: str = "h100", system: str = "kueue", **fields: Any) -> dict[str, Any]:
    """A pool of the render tests' size, 10 nodes x 8 GPUs, 192 cpu, 1920Gi (``fields`` win)."""
    return model_pool(name, system, **{"nodes": 10, "cpu": 192, "memory": "1920Gi", **fields})


def quota(
    nominal: int | str, borrowing: int | str | None = None, lending: int | str | None = None, **resources: dict
) -> dict[str, Any]:
    out: dict[str, Any] = {"nominal": nominal}
    if borrowing is not None:
        out["borrowingLimit"] = borrowing
    if lending is not None:
        out["lendingLimit"] = lending
    if resources:
        out["resources"] = {k.replace("_", "/"): v for k, v in resources.items()}
    return out


def team(
    name: str, quota: dict | None = None, cohort: str | None = "ml", namespaces: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "namespaces": namespaces or [name], "quota": quota or {}}
    if cohort:
        out["cohort"] = cohort
    out.update(extra)
    return out


def cohort(name: str = "ml", parent: str | None = None, quota: dict | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if parent:
        out["parent"] = parent
    if quota:
        out["quota"] = quota
    out.update(extra)
    return out


def fleet(
    pools: list[dict] | None = None,
    teams: list[dict] | None = None,
    cohorts: list[dict] | None = None,
    validate: bool = True,
    **extra: Any,
) -> Fleet:
    data: dict[str, Any] = {
        "apiVersion": "gpufleet.dev/v1alpha1",
        "kind": "Fleet",
        "name": "test",
        "pools": pools if pools is not None else [pool()],
        "cohorts": cohorts if cohorts is not None else [cohort()],
        "teams": teams if teams is not None else [team("research", {"h100": quota(16, 8)})],
    }
    data.update(extra)
    return parse_model(_split_mixed_teams(data), "test.fleet.yaml", validate=validate)


def _split_mixed_teams(data: dict[str, Any]) -> dict[str, Any]:
    """A team with quota on both engines that names no Volcano namespace gets ``<team>-vc`` for Volcano.

    The ownership rule (docs/architecture.md) requires the split; tests about
    something else need not spell it out.
    """
    systems = {p["name"]: p.get("system", "kueue") for p in data["pools"]}
    for t in data["teams"]:
        if "volcanoNamespaces" not in t and {systems.get(name) for name in t.get("quota", {})} == {"kueue", "volcano"}:
            t["namespaces"] = [*t["namespaces"], f"{t['name']}-vc"]
            t["volcanoNamespaces"] = [f"{t['name']}-vc"]
    return data


def plan_of(model: Fleet, settings: Any = None) -> Any:
    """``gpufleet plan``'s plan of ``model`` (stack default settings unless given), with the controller's manifests."""
    from gpufleet.render import render_all
    from gpufleet.render.controller import ControllerSettings
    from gpufleet.render.plan import build_plan
    from gpufleet.stack.controller import controller_manifests

    settings = settings or ControllerSettings()
    rendered = render_all(model)
    return build_plan(model, rendered, controller_manifests(model, settings, rendered.context), settings)


def by_name(manifests: list[dict], name: str) -> dict:
    """The manifest named ``name``; a Volcano parent queue also answers to its cohort's name."""
    return next(
        m
        for m in manifests
        if name in (m["metadata"]["name"], m["metadata"].get("labels", {}).get("gpufleet.dev/cohort"))
    )
