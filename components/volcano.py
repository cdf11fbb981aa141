"""The Volcano engine: its namespace and the pinned upstream Helm chart.

Built by :class:`components.fleet.GpuFleet` when the model enables Volcano. The
chart is ``volcano`` from https://volcano-sh.github.io/helm-charts at the model's
pinned ``engines.volcano.chartVersion``; its values are ``gpufleet.render``'s
``volcano_values`` (``custom.scheduler_config_override``: the scheduler conf that
matches the queue fields gpufleet writes). Await stays on: the queue webhook must
serve before any Queue is created, and the Volcano queues depend on this chart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import pulumi
import pulumi_kubernetes as k8s

from components.engine import install_chart

from gpufleet.model.fleet import VolcanoEngine

VOLCANO_REPO = "https://volcano-sh.github.io/helm-charts"
VOLCANO_CHART = "volcano"


@dataclass(frozen=True)
class VolcanoArgs:
    engine: VolcanoEngine
    """The model's ``engines.volcano`` (chart version, namespace, release name)."""
    values: Mapping[str, Any]
    """Helm values rendered by ``gpufleet.render`` (``Rendered.volcano_values``)."""


class Volcano(pulumi.ComponentResource):
    """Volcano installed from its pinned chart into its own namespace."""

    namespace: k8s.core.v1.Namespace
    chart: k8s.helm.v4.Chart

    def __init__(self, name: str, args: VolcanoArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:volcano:Volcano", name, None, opts)
        engine = args.engine
        self.namespace, self.chart = install_chart(self, name, engine, VOLCANO_CHART, args.values, VOLCANO_REPO)
        self.register_outputs({"chartVersion": engine.chart_version, "namespace": engine.namespace})
