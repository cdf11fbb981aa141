"""Team namespaces, created and labelled by the stack: who owns them and which engine admits their gangs.

Every namespace a team lists becomes a ``v1`` Namespace with the labels
``gpufleet.dev/team: <team>``, ``gpufleet.dev/quota-system: kueue|volcano|coscheduling|native``
(:mod:`gpufleet.model.ownership`) and the fleet's own labels. Kueue's
``managedJobsNamespaceSelector`` (copied by its chart to its job and pod webhooks) and
the gang-admission controller's webhooks select namespaces by these labels, so a
Volcano namespace is never seen by Kueue. LocalQueues are created after their
namespace (``gpufleet.render.ordering``). Called by :func:`gpufleet.render.render_all`.
"""

from __future__ import annotations

from typing import Any

from gpufleet.kubetypes.vocab import FLEET_LABEL, QUOTA_SYSTEM_LABEL, TEAM_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.model.ownership import namespace_engine
from gpufleet.render.meta import manifest, metadata


def kueue_selector(fleet: Fleet) -> dict[str, Any]:
    """The label selector of this fleet's Kueue team namespaces (Kueue's managedJobsNamespaceSelector)."""
    return {"matchLabels": {FLEET_LABEL: fleet.name, QUOTA_SYSTEM_LABEL: "kueue"}}


def team_selector_expressions(fleet: Fleet) -> list[dict[str, Any]]:
    """Label expressions matching every team namespace of this fleet, Kueue's and Volcano's."""
    return [
        {"key": FLEET_LABEL, "operator": "In", "values": [fleet.name]},
        {"key": TEAM_LABEL, "operator": "Exists"},
    ]


def render_namespaces(fleet: Fleet) -> list[dict[str, Any]]:
    """One Namespace per team namespace, in team order."""
    out = []
    for team in fleet.teams:
        for ns in team.namespaces:
            meta = metadata(fleet, ns, team=team.name)
            meta["labels"][QUOTA_SYSTEM_LABEL] = namespace_engine(fleet, team, ns)
            out.append(manifest("v1", "Namespace", meta))
    return out
