"""Fields on which the Kubernetes provider itself replaces an object, whatever the program says.

Called by :func:`gpufleet.diff.steps.plan_steps`. Emulates ``forceNewProperties`` of
pulumi-kubernetes **v4.25.0** (``provider/pkg/provider/diff.go``) for the kinds gpufleet's
stack creates: a ConfigMap whose ``data`` or ``binaryData`` changes is replaced unless
the provider is configured ``enableConfigMapMutable`` (gpufleet never sets it), a
Secret whose ``type``, ``data`` or ``stringData`` changes likewise (``enableSecretMutable``),
a Deployment whose ``spec.selector`` changes, a Service whose ``spec.clusterIP`` changes, and
any object whose ``metadata.name`` or ``metadata.namespace`` changes (``metadataForceNewProperties``).
The provider's ``Diff`` answers ``deleteBeforeReplace`` when the name is fixed (``provider.go``:
named, not auto-named, same name and namespace), so the step is a delete-before-replace like the
``replaceOnChanges`` ones of :mod:`gpufleet.render.immutable`; when the name changes
(:func:`deletes_first` is false) Pulumi's own default holds: create the new object, update what
depends on it, delete the old one with the deployment's deletes (:mod:`gpufleet.diff.steps`).

Why it matters: the gang-admission controller's fleet-context ConfigMap changes with
the model (a team added or removed, a pool resized, a priority changed), and a real
``pulumi up`` replaces it (checked in tests/e2e/test_diff_pulumi_e2e.py). A delete and a
create of the controller's ConfigMap in a pull request read like a webhook outage; it is
not one, and :func:`replacement_note` says so in diff's reason (issue 37, item 6): the
controller's Deployment is not touched, its running pods keep the mounted file while the
ConfigMap is briefly gone (the kubelet returns before writing anything when it cannot
read a mounted ConfigMap: ``pkg/volume/configmap/configmap.go``, ``SetUpAt``, Kubernetes
v1.35.4), and the controller reloads the new file without a restart
(:mod:`gpufleet.webhook.reload`). Read from that source; the sandbox has no kubelet, so no
run shows it. The admission policies' params ConfigMaps change with the model too, but they are
named by their content (:mod:`gpufleet.render.params_configmap`): a new one is created beside the
old, the bindings are switched to it, and the old one is deleted after them, so a binding
(``parameterNotFoundAction: Deny``) never looks for a ConfigMap that is not there.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes.fieldpath import get_value
from gpufleet.mutate.policies import PARAMS as MUTATION_PARAMS
from gpufleet.render.controller.common import CONTEXT_CONFIGMAP
from gpufleet.render.params_configmap import params_base
from gpufleet.rules.admission_policies import PARAMS as RULE_PARAMS

# (apiVersion, kind) -> (the force-new paths, what the provider replaces, in diff's words)
_FORCE_NEW: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("v1", "ConfigMap"): (("binaryData", "data"), "a ConfigMap whose data changes (enableConfigMapMutable is off)"),
    ("v1", "Secret"): (
        ("type", "stringData", "data"),
        "a Secret whose type or data changes (enableSecretMutable is off)",
    ),
    ("apps/v1", "Deployment"): (("spec.selector",), "a Deployment whose spec.selector changes"),
    ("v1", "Service"): (("spec.clusterIP",), "a Service whose spec.clusterIP changes"),
}
CONTEXT_SWAP = (
    "the gang-admission controller keeps admitting throughout, no webhook outage: its pods keep the mounted fleet "
    "context while the ConfigMap is briefly gone and reload the new one without a restart"
)
PARAMS_SWAP = (
    "no deny window: the params are named by their content, so the new ConfigMap is created beside the old one, "
    "the admission policy bindings are switched to it, and the old one is deleted only after them "
    "(a binding never finds its params missing, which parameterNotFoundAction: Deny would refuse)"
)
_METADATA = ("metadata.name", "metadata.namespace")


def _entry(manifest: Mapping[str, Any]) -> tuple[tuple[str, ...], str]:
    return _FORCE_NEW.get((str(manifest.get("apiVersion", "")), str(manifest.get("kind", ""))), ((), ""))


def provider_replace_reasons(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The force-new paths of the provider that differ between ``old`` and ``new``; [] when none."""
    return [p for p in (*_METADATA, *_entry(new)[0]) if get_value(old, p.split(".")) != get_value(new, p.split("."))]


def deletes_first(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """The provider's ``deleteBeforeReplace`` for a replacement: the same name and namespace (both fixed)."""
    return all(get_value(old, p.split(".")) == get_value(new, p.split(".")) for p in _METADATA)


def provider_replacement(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """Why the provider replaces ``new``, and in which order: diff's words after the changed fields."""
    if not deletes_first(old, new):
        return "the Kubernetes provider replaces an object whose name changes, creating the new one first"
    return f"the Kubernetes provider replaces {_entry(new)[1]}, deleting it first as its name is fixed"


def replacement_note(manifest: Mapping[str, Any] | None) -> str:
    """What a replacement of ``manifest`` means for what reads it, when gpufleet knows ('' otherwise)."""
    meta = (manifest or {}).get("metadata") or {}
    if (manifest or {}).get("kind") != "ConfigMap":
        return ""
    name = str(meta.get("name", ""))
    if params_base(name) in (RULE_PARAMS, MUTATION_PARAMS):
        return PARAMS_SWAP
    return CONTEXT_SWAP if name == CONTEXT_CONFIGMAP else ""
