"""Object metadata shared by every renderer: names, namespaces and gpufleet's labels.

Every object gpufleet renders carries ``app.kubernetes.io/managed-by: gpufleet`` and
``gpufleet.dev/fleet: <fleet>`` (plus ``gpufleet.dev/team`` on a team's objects), so
an operator can list, audit or garbage-collect them with one label selector. Called
by every ``gpufleet.render`` module.
"""

from __future__ import annotations

from typing import Any

from gpufleet.kubetypes.vocab import FLEET_LABEL, MANAGED_BY_LABEL, TEAM_LABEL
from gpufleet.model.fleet import Fleet

MANAGED_BY = "gpufleet"

KUEUE_API = "kueue.x-k8s.io/v1beta2"
KUEUE_CONFIG_API = "config.kueue.x-k8s.io/v1beta2"
VOLCANO_API = "scheduling.volcano.sh/v1beta1"
PRIORITY_API = "scheduling.k8s.io/v1"


def labels(fleet: Fleet, team: str | None = None) -> dict[str, str]:
    out = {MANAGED_BY_LABEL: MANAGED_BY, FLEET_LABEL: fleet.name}
    if team:
        out[TEAM_LABEL] = team
    return out


def metadata(fleet: Fleet, name: str, namespace: str | None = None, team: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    meta["labels"] = labels(fleet, team)
    return meta


def manifest(api_version: str, kind: str, meta: dict[str, Any], **body: Any) -> dict[str, Any]:
    """A manifest dict in the usual key order: apiVersion, kind, metadata, then the body."""
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, **body}
