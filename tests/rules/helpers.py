"""Shared helpers of the per-rule tests: run one rule, list its (path, message) findings."""

from __future__ import annotations

import json
from typing import Any, Mapping

from gpufleet.fleetctx.context import FleetContext
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules.fixtures import FIXTURES

FLEET = FleetContext.from_dict(json.loads((FIXTURES / "fleet-context.json").read_text()))
WITH_FLEET = CheckContext(fleet=FLEET)


def paths(code: str, obj: Mapping[str, Any], ctx: CheckContext = CheckContext(), objects: tuple = ()) -> list[str]:
    """The paths of ``code``'s findings on ``obj`` (checked together with ``objects``)."""
    run = (obj, *objects)
    return [
        f.path
        for f in engine.check_objects(run, ctx, select=[code])
        if f.object_name == obj["metadata"]["name"] and f.kind == obj["kind"]
    ]


def fixed(code: str, obj: Mapping[str, Any], ctx: CheckContext = CheckContext()) -> dict[str, Any]:
    return engine.remediate(obj, ctx, select=[code])
