"""From what Pulumi hands a policy to the plain manifest the rule engine reads.

Called by ``build`` (resource policies, remediation) and ``stack`` (stack policies).
Pulumi gives a policy the resource type token (``kubernetes:batch/v1:Job``; the core
group is ``core/v1`` there but ``v1`` in a manifest) and ``args.props``: proxies that
raise ``UnknownValueError`` on an unknown read during preview (Remediate gets
secret-preserving proxies instead), numbers as floats (``16.0``) and secrets either
unwrapped or as ``Secret``. :func:`manifest` reads it all without raising and
records where the unknowns and secrets were, so the caller decides what an unknown
means and remediation can re-mark secrets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from pulumi_policy.proxy import (
    UNKNOWN_ARCHIVE_VALUE,
    UNKNOWN_ARRAY_VALUE,
    UNKNOWN_ASSET_VALUE,
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_OBJECT_VALUE,
    UNKNOWN_STRING_VALUE,
    UnknownValueError,
    _DictProxy,
    _ListProxy,
)
from pulumi_policy.secret import Secret, _DictSecretsProxy, _ListSecretsProxy

from gpufleet.kubetypes.fieldpath import FieldPath

UNKNOWN_SENTINELS = frozenset(
    {
        UNKNOWN_BOOLEAN_VALUE,
        UNKNOWN_NUMBER_VALUE,
        UNKNOWN_STRING_VALUE,
        UNKNOWN_ARRAY_VALUE,
        UNKNOWN_ASSET_VALUE,
        UNKNOWN_ARCHIVE_VALUE,
        UNKNOWN_OBJECT_VALUE,
    }
)
MISSING = object()
# Written by the API server, never by the user: unknown during preview, and no rule reads them.
SERVER_SET = frozenset(
    ("metadata", key)
    for key in ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink")
)
_PROXIES = (_DictProxy, _ListProxy, _DictSecretsProxy, _ListSecretsProxy)
# Pulumi types that are not Kubernetes objects although they start with "kubernetes:".
NOT_OBJECTS = ("helm.sh/", "yaml/", "kustomize/")


@dataclass
class Manifest:
    """A plain manifest plus where its unknown values and secrets were.

    ``replaced`` holds the top-level keys (``apiVersion``, ``kind``) taken from the type
    token because the inputs lacked them (or had them unknown), with their original
    values (:data:`MISSING` when absent); remediation puts the originals back.
    """

    obj: dict[str, Any]
    unknowns: list[tuple[str | int, ...]] = field(default_factory=list)
    sentinels: list[str] = field(default_factory=list)
    secrets: list[tuple[str | int, ...]] = field(default_factory=list)
    replaced: dict[str, Any] = field(default_factory=dict)

    def _relevant(self) -> list[int]:
        return [i for i, parts in enumerate(self.unknowns) if parts[:2] not in SERVER_SET and parts[:1] != ("status",)]

    @property
    def has_unknowns(self) -> bool:
        """Whether a value a rule may read is unknown (``status`` and server-set metadata do not count)."""
        return bool(self._relevant())

    def unknown_paths(self) -> list[str]:
        return [str(FieldPath.of(*self.unknowns[i])) for i in self._relevant()]

    def unknown_error(self, message: str | None = None) -> UnknownValueError:
        """The SDK's error for the first relevant unknown (``string value at .spec.x can't be known during preview``)."""
        first = self._relevant()[0]
        error = UnknownValueError(self.sentinels[first], [str(p) for p in self.unknowns[first]])
        if message:
            error.message = f"{message} ({error.message})"
        return error


def split_type(resource_type: str) -> tuple[str, str] | None:
    """``kubernetes:batch/v1:Job`` -> ``("batch/v1", "Job")``; ``core/v1`` -> ``v1``; None for non-objects."""
    parts = resource_type.split(":")
    if len(parts) != 3 or parts[0] != "kubernetes" or not parts[1] or not parts[2]:
        return None
    api_version, kind = parts[1], parts[2]
    if api_version.startswith(NOT_OBJECTS):
        return None
    if api_version.startswith("core/"):
        api_version = api_version[len("core/") :]
    return api_version, kind


def normalise_number(value: Any) -> Any:
    """Integral floats become ints (protobuf Structs carry every number as a double)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def plain(value: Any, found: Manifest | None = None, path: tuple[str | int, ...] = ()) -> Any:
    """A plain copy of ``value`` (proxies unwrapped, numbers normalised), recording unknowns and secrets."""
    if isinstance(value, _PROXIES):
        value = value["__target"]
    if isinstance(value, Secret):
        if found is not None:
            found.secrets.append(path)
        return plain(value.value, found, path)
    if isinstance(value, str):
        if value in UNKNOWN_SENTINELS and found is not None:
            found.unknowns.append(path)
            found.sentinels.append(value)
        return value
    if isinstance(value, Mapping):
        return {str(k): plain(v, found, (*path, str(k))) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, found, (*path, i)) for i, v in enumerate(value)]
    return normalise_number(value)


def manifest(resource_type: str, props: Mapping[str, Any]) -> Manifest | None:
    """The Kubernetes object a resource registers, or None when the type is not one."""
    split = split_type(resource_type)
    if split is None:
        return None
    found = Manifest({})
    found.obj = plain(props, found)
    for key, value in zip(("apiVersion", "kind"), split):
        current = found.obj.get(key, MISSING)
        if isinstance(current, str) and current not in UNKNOWN_SENTINELS:
            continue
        found.replaced[key] = current
        found.obj[key] = value
    return found


def restore(fixed: dict[str, Any], found: Manifest) -> dict[str, Any]:
    """Remediated inputs to hand back to Pulumi: replaced keys restored, secrets marked again."""
    out = {k: v for k, v in fixed.items() if k not in found.replaced}
    out.update({k: v for k, v in found.replaced.items() if v is not MISSING})
    for path in found.secrets:
        _mark_secret(out, path)
    return out


def _mark_secret(obj: Any, path: tuple[str | int, ...]) -> None:
    if not path:
        return
    *parents, last = path
    node = obj
    for part in parents:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return
    try:
        if not isinstance(node[last], Secret):
            node[last] = Secret(node[last])
    except (KeyError, IndexError, TypeError):
        return
