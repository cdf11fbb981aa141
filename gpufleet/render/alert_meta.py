"""What every rendered alert carries: the runbook annotations and the label value of fleet-wide alerts.

Shared by :mod:`gpufleet.render.alerts` (the gang alerts) and
:mod:`gpufleet.render.controller.alerts` (the controller's), so both route and link alike.
"""

from __future__ import annotations

from gpufleet.model.fleet import Fleet

FLEET_SCOPE = "all"
"""``team``, ``pool`` and ``gang`` label value of an alert about the whole fleet (not one gang)."""


def runbook_annotations(fleet: Fleet, alert: str, summary: str, description: str) -> dict[str, str]:
    """``summary``, ``description`` and ``runbook_url`` (``observability.runbookBaseUrl`` + ``/<alert>.md``)."""
    base = fleet.observability.runbook_base_url.rstrip("/")
    return {"summary": summary, "description": description, "runbook_url": f"{base}/{alert}.md"}
