"""What an object is called before and after the API server names it: one answer for every reader.

A finding, a denial and a rule's message name an object by its ``metadata.name`` or, when it has
none yet (a ``generateName`` the API server completes at creation), by that prefix. Called by the
rule engine (each finding's identity, lint's GANG000 findings included), the workload views
(``WorkloadView.name``), GANG504's message and the admission webhook's denial message.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.util.maps import as_map

Identity = tuple[str, str, Any, Any]
"""An object's (apiVersion, kind, namespace, reported name), as a finding carries them (the last two as written)."""


def reported_name(meta: Mapping[str, Any]) -> Any:
    """``metadata.name``, or the ``generateName`` prefix when the object has no name yet (None when neither)."""
    return meta.get("name") or meta.get("generateName")


def identity(obj: Mapping[str, Any]) -> Identity:
    """``obj``'s apiVersion, kind, namespace and reported name; a malformed ``metadata`` reads as empty."""
    meta = as_map(obj.get("metadata"))
    return (str(obj.get("apiVersion", "")), str(obj.get("kind", "")), meta.get("namespace"), reported_name(meta))
