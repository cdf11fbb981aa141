"""A custom resource built from a whole rendered manifest, every top-level field kept.

Used by :mod:`gpufleet.pulumi.quota`. The Python ``CustomResource`` of pulumi-kubernetes
only passes ``apiVersion``, ``kind``, ``metadata`` and ``spec``
(pulumi/pulumi-kubernetes#2363), which would silently drop the top-level ``value``
and ``description`` of a Kueue WorkloadPriorityClass. This subclass registers the
same type token (``kubernetes:<apiVersion>:<kind>``) with the full manifest as its
inputs, as the TypeScript SDK's ``otherFields`` does.

Like every pulumi-kubernetes resource it pins the provider plugin to the installed
package's version. That version is read from the package's ``pulumi-plugin.json``
(the plugin metadata every Pulumi provider package ships, which the Pulumi SDK reads
the same way), not from the private ``pulumi_kubernetes._utilities``.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Mapping

import pulumi
import pulumi_kubernetes as k8s


@cache
def provider_options() -> pulumi.ResourceOptions:
    """``version`` (and ``plugin_download_url`` when the package names one) of the installed Kubernetes provider."""
    plugin = json.loads(resources.files(k8s.__name__).joinpath("pulumi-plugin.json").read_text())
    return pulumi.ResourceOptions(version=plugin["version"], plugin_download_url=plugin.get("server"))


class ManifestCustomResource(k8s.apiextensions.CustomResource):
    """A ``kubernetes:<apiVersion>:<kind>`` custom resource whose inputs are the manifest."""

    def __init__(
        self, resource_name: str, manifest: Mapping[str, Any], opts: pulumi.ResourceOptions | None = None
    ) -> None:
        opts = pulumi.ResourceOptions.merge(opts, provider_options())
        token = f"kubernetes:{manifest['apiVersion']}:{manifest['kind']}"
        pulumi.CustomResource.__init__(self, token, resource_name, dict(manifest), opts)
