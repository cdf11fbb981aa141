"""The admission policies' params ConfigMaps, named by their content: one owner of the name and the ``paramRef``.

Called by :mod:`gpufleet.rules.admission_policies` (the rules' params) and :mod:`gpufleet.mutate.policies`
(the defaulting's): both render the ConfigMap with :func:`params_config_map` and every binding's ``paramRef``
with :func:`param_ref` of that ConfigMap, so a binding names exactly the ConfigMap rendered beside it.
Read by :mod:`gpufleet.diff.provider` (:func:`params_base`) to say what replacing one means.

Why a content name (kustomize's ``configMapGenerator`` hash suffix): the Kubernetes provider replaces a
ConfigMap whose ``data`` changes, and with a fixed name it deletes the old one first; meanwhile every binding
reading it (``parameterNotFoundAction: Deny``) denies all it matches. Named ``<base>-<10 hex>`` (the sha256 of
the data's canonical JSON: sorted keys, no spaces), a facts change gives a ConfigMap of another name under the
same Pulumi resource (the component's logical name is its key, ``configmap-rule-params``): the provider
replaces it create-before-delete (the names differ), the bindings are updated to the new name, and Pulumi
deletes the old one only after them. No moment without the params a binding names.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Mapping

from gpufleet.model.fleet import Fleet
from gpufleet.render.controller.common import meta

DIGEST_CHARS = 10
_NAMED = re.compile(rf"(?P<base>.+)-[0-9a-f]{{{DIGEST_CHARS}}}")


def params_name(base: str, data: Mapping[str, str]) -> str:
    """``<base>-<first 10 hex of sha256 of data's canonical JSON>``: the same data, the same name."""
    canonical = json.dumps(dict(data), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return f"{base}-{hashlib.sha256(canonical.encode()).hexdigest()[:DIGEST_CHARS]}"


def params_base(name: str) -> str:
    """The ``base`` a :func:`params_name` was made from; ``''`` when ``name`` is not one."""
    found = _NAMED.fullmatch(name)
    return found.group("base") if found else ""


def params_config_map(fleet: Fleet, base: str, data: Mapping[str, str]) -> dict[str, Any]:
    """The params ConfigMap (controller namespace) holding ``data``, named by it."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta(fleet, params_name(base, data)),
        "data": dict(data),
    }


def param_ref(config_map: Mapping[str, Any]) -> dict[str, Any]:
    """A binding's ``paramRef`` to ``config_map`` (one of :func:`params_config_map`); a binding that finds none denies."""
    return {
        "name": config_map["metadata"]["name"],
        "namespace": config_map["metadata"]["namespace"],
        "parameterNotFoundAction": "Deny",
    }
