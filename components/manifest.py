"""A custom resource built from a whole rendered manifest, every top-level field kept.

Used by :mod:`components.quota`. The Python ``CustomResource`` of pulumi-kubernetes
only passes ``apiVersion``, ``kind``, ``metadata`` and ``spec``
(pulumi/pulumi-kubernetes#2363), which would silently drop the top-level ``value``
and ``description`` of a Kueue WorkloadPriorityClass. This subclass registers the
same type token (``kubernetes:<apiVersion>:<kind>``) with the full manifest as its
inputs, as the TypeScript SDK's ``otherFields`` does.
"""

from __future__ import annotations

from typing import Any, Mapping

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes import _utilities


class ManifestCustomResource(k8s.apiextensions.CustomResource):
    """A ``kubernetes:<apiVersion>:<kind>`` custom resource whose inputs are the manifest."""

    def __init__(self, resource_name: str, manifest: Mapping[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        opts = pulumi.ResourceOptions.merge(opts, _utilities.get_resource_opts_defaults())
        token = f"kubernetes:{manifest['apiVersion']}:{manifest['kind']}"
        pulumi.CustomResource.__init__(self, token, resource_name, dict(manifest), opts)
