"""gpufleet.pulumi.manifest: a whole-manifest custom resource that pins the provider like pulumi-kubernetes does."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.pulumi.manifest import ManifestCustomResource
from tests.components.mocking import RecordingMonitor, install_mocks, run_program

PRIORITY_CLASS = {
    "apiVersion": "kueue.x-k8s.io/v1beta2",
    "kind": "WorkloadPriorityClass",
    "metadata": {"name": "gangs"},
    "value": 1000,
    "description": "gangs",
}


class VersionMonitor(RecordingMonitor):
    """Also records the provider version each registration asks for."""

    def __init__(self) -> None:
        super().__init__()
        self.versions: dict[str, str] = {}

    def RegisterResource(self, request):  # noqa: N802 - gRPC method name
        self.versions[request.name] = request.version
        return super().RegisterResource(request)


def register_both() -> VersionMonitor:
    """A fresh mock runtime (as every component test) on which both resources are registered."""
    install_mocks()
    monitor = VersionMonitor()
    pulumi.runtime.set_mocks(monitor.mocks, project="gpufleet", stack="test", preview=False, monitor=monitor)
    run_program(
        monitor,
        lambda: (
            ManifestCustomResource("manifest", PRIORITY_CLASS),
            k8s.apiextensions.CustomResource(
                "stock",
                api_version=PRIORITY_CLASS["apiVersion"],
                kind=PRIORITY_CLASS["kind"],
                metadata=PRIORITY_CLASS["metadata"],
            ),
        ),
    )
    return monitor


def test_a_manifest_resource_pins_the_provider_version_pulumi_kubernetes_own_custom_resource_pins():
    versions = register_both().versions
    assert versions["manifest"] == versions["stock"] != ""


def test_a_manifest_resource_keeps_the_top_level_fields_the_stock_resource_drops():
    registered = {r.name: r for r in register_both().registered}
    assert (registered["manifest"].inputs["description"], "description" in registered["stock"].inputs) == (
        "gangs",
        False,
    )
