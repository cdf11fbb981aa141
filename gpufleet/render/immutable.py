"""Fields the API server never lets change in place, per rendered kind: such a change is a replacement.

Used by ``gpufleet.pulumi.quota`` (``replace_on_changes`` and ``delete_before_replace``:
every rendered object has a fixed ``metadata.name``, so the old object must go
before the new one can be created) and by ``gpufleet.diff`` (a step is a
``replace`` exactly when one of these paths differs), so both always agree.

Where each rule comes from:

- Topology ``spec.levels``: CEL ``self == oldSelf`` (``kueue.x-k8s.io_topologies.yaml``, Kueue v0.19.2).
- ResourceFlavor with a ``topologyName``: ``nodeLabels``, ``tolerations`` and ``topologyName``
  may not change once ``oldSelf.topologyName`` is set (CEL transition rules on ``spec``,
  ``kueue.x-k8s.io_resourceflavors.yaml``); ``topologyName`` is listed for every flavor so
  removing it is a replacement too.
- LocalQueue ``spec.clusterQueue``: CEL ``self == oldSelf`` (``kueue.x-k8s.io_localqueues.yaml``).
- PriorityClass ``value`` and ``preemptionPolicy``: immutable in the built-in validation
  (kubernetes ``pkg/apis/scheduling/validation/validation.go``, ``ValidatePriorityClassUpdate``).

The table is keyed by (API group, kind) like :mod:`gpufleet.render.ordering`.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath, get_value

_SPEC = FieldPath.of("spec")
_TOPOLOGY_NAME = _SPEC.child("topologyName")


def _resource_flavor(manifest: Mapping[str, Any]) -> list[FieldPath]:
    spec = manifest.get("spec") or {}
    if spec.get("topologyName"):
        return [_SPEC.child("nodeLabels"), _SPEC.child("tolerations"), _TOPOLOGY_NAME]
    return [_TOPOLOGY_NAME]


_IMMUTABLE: dict[tuple[str, str], Callable[[Mapping[str, Any]], list[FieldPath]]] = {
    ("kueue.x-k8s.io", "Topology"): lambda m: [_SPEC.child("levels")],
    ("kueue.x-k8s.io", "ResourceFlavor"): _resource_flavor,
    ("kueue.x-k8s.io", "LocalQueue"): lambda m: [_SPEC.child("clusterQueue")],
    ("scheduling.k8s.io", "PriorityClass"): lambda m: [FieldPath.of("value"), FieldPath.of("preemptionPolicy")],
}


def _paths(manifest: Mapping[str, Any]) -> list[FieldPath]:
    group = str(manifest.get("apiVersion", "")).split("/")[0] if "/" in str(manifest.get("apiVersion", "")) else ""
    finder = _IMMUTABLE.get((group, manifest.get("kind", "")))
    return finder(manifest) if finder else []


def replace_paths(manifest: Mapping[str, Any]) -> list[str]:
    """Paths whose change forces a replacement of this (new) manifest, as Pulumi's ``replaceOnChanges`` takes them; [] when none."""
    return [str(path) for path in _paths(manifest)]


def replace_reasons(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The immutable paths that differ between the old and the new manifest (Pulumi's replaceOnChanges test)."""
    return [str(path) for path in _paths(new) if get_value(old, path) != get_value(new, path)]
