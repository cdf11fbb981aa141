"""One Pulumi resource from one rendered manifest.

Used by :mod:`gpufleet.pulumi.controller`. Built-in kinds get their typed
pulumi-kubernetes resource (a ``CustomResource`` cannot stand for a core kind);
everything else (ServiceMonitor, cert-manager objects) a
:class:`gpufleet.pulumi.manifest.ManifestCustomResource`. Top-level manifest fields map
one to one onto the typed resource's arguments; nested keys stay camelCase, which
pulumi-kubernetes passes through unchanged.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.pulumi.manifest import ManifestCustomResource

TYPED: dict[tuple[str, str], Callable[..., pulumi.CustomResource]] = {
    ("v1", "Namespace"): k8s.core.v1.Namespace,
    ("v1", "ServiceAccount"): k8s.core.v1.ServiceAccount,
    ("v1", "ConfigMap"): k8s.core.v1.ConfigMap,
    ("v1", "Secret"): k8s.core.v1.Secret,
    ("v1", "Service"): k8s.core.v1.Service,
    ("apps/v1", "Deployment"): k8s.apps.v1.Deployment,
    ("policy/v1", "PodDisruptionBudget"): k8s.policy.v1.PodDisruptionBudget,
    ("networking.k8s.io/v1", "NetworkPolicy"): k8s.networking.v1.NetworkPolicy,
    (
        "admissionregistration.k8s.io/v1",
        "ValidatingWebhookConfiguration",
    ): k8s.admissionregistration.v1.ValidatingWebhookConfiguration,
    (
        "admissionregistration.k8s.io/v1",
        "MutatingWebhookConfiguration",
    ): k8s.admissionregistration.v1.MutatingWebhookConfiguration,
}

ARGUMENTS = {
    "metadata": "metadata",
    "spec": "spec",
    "data": "data",
    "stringData": "string_data",
    "type": "type",
    "webhooks": "webhooks",
    "automountServiceAccountToken": "automount_service_account_token",
}


def create_manifest(name: str, manifest: Mapping[str, Any], opts: pulumi.ResourceOptions) -> pulumi.Resource:
    """Create the typed resource for ``manifest`` (or a custom resource for a CRD kind)."""
    cls = TYPED.get((manifest["apiVersion"], manifest["kind"]))
    if cls is None:
        return ManifestCustomResource(name, manifest, opts=opts)
    unknown = set(manifest) - set(ARGUMENTS) - {"apiVersion", "kind"}
    if unknown:
        raise ValueError(
            f"{name}: top-level fields {sorted(unknown)} have no argument mapping in gpufleet.pulumi.typed"
        )
    kwargs = {ARGUMENTS[key]: value for key, value in manifest.items() if key in ARGUMENTS}
    return cls(name, opts=opts, **kwargs)
