"""The Kueue engine: its namespace and the pinned upstream Helm chart.

Built by :class:`gpufleet.pulumi.fleet.GpuFleet`. The chart is
``oci://registry.k8s.io/kueue/charts/kueue`` at the model's pinned
``engines.kueue.chartVersion``; its values are ``gpufleet.render``'s
``kueue_values`` (the whole manager Configuration as
``managerConfig.controllerManagerConfigYaml``). Await stays on (no ``skip_await``):
Kueue's webhooks must serve before any ClusterQueue is created, and the quota
objects depend on this chart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.model.fleet import KueueEngine
from gpufleet.pulumi.engine import install_chart

KUEUE_CHART = "oci://registry.k8s.io/kueue/charts/kueue"


@dataclass(frozen=True)
class KueueArgs:
    engine: KueueEngine
    """The model's ``engines.kueue`` (chart version, namespace, release name)."""
    values: Mapping[str, Any]
    """Helm values rendered by ``gpufleet.render`` (``Rendered.kueue_values``)."""
    chart_path: str | None = None
    """A local chart to install from (stack config ``gpufleet:<engine>ChartPath``); None = the pinned remote chart."""


class Kueue(pulumi.ComponentResource):
    """Kueue installed from its pinned chart into its own namespace."""

    namespace: k8s.core.v1.Namespace
    chart: k8s.helm.v4.Chart

    def __init__(self, name: str, args: KueueArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:kueue:Kueue", name, None, opts)
        engine = args.engine
        self.namespace, self.chart = install_chart(self, name, engine, KUEUE_CHART, args.values, path=args.chart_path)
        self.register_outputs({"chartVersion": engine.chart_version, "namespace": engine.namespace})
