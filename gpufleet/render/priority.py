"""``scheduling.k8s.io/v1`` PriorityClasses, one per model priority class.

Gang classes default to ``preemptionPolicy: Never`` (per-pod preemption kills one rank
in many gangs); the Kueue WorkloadPriorityClass of the same name and value is
rendered by ``gpufleet.render.kueue``. Called by :func:`gpufleet.render.render_all`.
"""

from __future__ import annotations

from typing import Any

from gpufleet.model.fleet import Fleet
from gpufleet.render.meta import PRIORITY_API, manifest, metadata


def render_priority_classes(fleet: Fleet) -> list[dict[str, Any]]:
    out = []
    for pc in fleet.priority_classes:
        body: dict[str, Any] = {
            "value": pc.value,
            "preemptionPolicy": pc.preemption_policy,
        }
        if pc.global_default:  # false is the API's default and is not stored: applying it makes a second field
            body["globalDefault"] = True  # manager's apply conflict (tests/e2e/test_takeover_e2e.py)
        if pc.description:
            body["description"] = pc.description
        out.append(manifest(PRIORITY_API, "PriorityClass", metadata(fleet, pc.name), **body))
    return out
