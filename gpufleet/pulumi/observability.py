"""The gang alerts component: ``gpufleet:observability:GangAlerts``.

Created by :class:`gpufleet.pulumi.fleet.GpuFleet` when the stack says prometheus-operator
is present (``gpufleet:prometheusOperator: true``) and the model's observability is
enabled. One Kubernetes resource per manifest of
``gpufleet.render.monitoring.render_monitoring``: the fleet PrometheusRule and, per
team, a PodMonitor and a PrometheusRule. Clusters without the operator load the same
rules from the plain rule file ``gpufleet render`` writes.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from gpufleet.model.fleet import Fleet
from gpufleet.pulumi.typed import create_manifest
from gpufleet.render.alerts import ALERTS
from gpufleet.render.monitoring import render_monitoring


@dataclass(frozen=True)
class GangAlertsArgs:
    fleet: Fleet
    """The validated fleet model (budgets, stall window, storm rate, teams and pools)."""


class GangAlerts(pulumi.ComponentResource):
    """PodMonitors and PrometheusRules that page on gangs that run but never train."""

    def __init__(self, name: str, args: GangAlertsArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:observability:GangAlerts", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.resources: dict[str, pulumi.Resource] = {}
        for manifest in render_monitoring(args.fleet):
            key = f"{manifest['kind'].lower()}-{manifest['metadata']['name']}"
            self.resources[key] = create_manifest(f"{name}-{key}", manifest, child)
        self.namespace = args.fleet.observability.namespace
        self.register_outputs(
            {"namespace": self.namespace, "alerts": list(ALERTS), "resources": sorted(self.resources)}
        )
