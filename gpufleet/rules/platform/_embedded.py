"""The YAML document a ConfigMap embeds under one data key, read once for the platform rules.

Called by :mod:`gpufleet.rules.platform._kueue_config` (the Kueue manager's ``controller_manager_config.yaml``)
and :mod:`gpufleet.rules.platform._volcano_conf` (``volcano-scheduler.conf``): both confs ship as a string in a
``v1`` ConfigMap, and the rules report paths below ``data[<key>]``; GANG501 and GANG505 report a document that
does not parse with :func:`unreadable`.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from gpufleet.kubetypes.fieldpath import ROOT, FieldPath
from gpufleet.rules.api import Violation
from gpufleet.yamlin import yamllimits

Reader = Callable[[str], tuple[Any, str | None]]


def configmap_document(obj: Mapping[str, Any], key: str, read: Reader) -> tuple[FieldPath, Any, str | None] | None:
    """``(data[key]'s path, the parsed document, the parse error)`` of a ``v1`` ConfigMap with a string at ``key``,
    parsed by ``read`` (memoised: :func:`yamllimits.cached`); None for any other object."""
    if obj.get("kind") != "ConfigMap" or obj.get("apiVersion") != "v1":
        return None
    data = obj.get("data")
    if not isinstance(data, Mapping) or not isinstance(data.get(key), str):
        return None
    parsed, error = yamllimits.cached(data[key], read)
    return ROOT.child("data").key(key), parsed, error


def unreadable(base: FieldPath, message: str) -> Violation:
    """The finding on an embedded document that does not parse: ``message`` at its key (``base``)."""
    return Violation(base, message, "fix the embedded YAML")
