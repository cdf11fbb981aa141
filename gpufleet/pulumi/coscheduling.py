"""The coscheduling engine: scheduler-plugins as a second scheduler, from its pinned chart.

Built by :class:`gpufleet.pulumi.fleet.GpuFleet` when a pool has ``system: coscheduling``.
The chart is ``scheduler-plugins`` from https://scheduler-plugins.sigs.k8s.io at the
model's ``engines.coscheduling.chartVersion`` (source: kubernetes-sigs/scheduler-plugins
``manifests/install/charts/as-a-second-scheduler`` at tag v0.34.7). Its values are
``gpufleet.render``'s ``coscheduling_values`` (only the Coscheduling plugin, the
permit wait). The chart has no Helm hooks; its PodGroup and ElasticQuota CRDs come
from the chart's ``crds/`` directory, which Helm (and Pulumi's Chart v4, unless
``skipCrds``) installs before the templates but never upgrades: a chart upgrade that
changes the CRDs needs them applied separately. Await stays on: the scheduler and
its controller are Deployments that must be ready before gangs are sent to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.model.coscheduling import CoschedulingEngine
from gpufleet.pulumi.engine import install_chart

COSCHEDULING_REPO = "https://scheduler-plugins.sigs.k8s.io"
COSCHEDULING_CHART = "scheduler-plugins"


@dataclass(frozen=True)
class CoschedulingArgs:
    engine: CoschedulingEngine
    """The model's ``engines.coscheduling`` (chart version, namespace, release and scheduler name)."""
    values: Mapping[str, Any]
    """Helm values rendered by ``gpufleet.render`` (``Rendered.coscheduling_values``)."""
    chart_path: str | None = None
    """A local chart to install from (stack config ``gpufleet:<engine>ChartPath``); None = the pinned remote chart."""


class Coscheduling(pulumi.ComponentResource):
    """scheduler-plugins installed from its pinned chart into its own namespace."""

    namespace: k8s.core.v1.Namespace
    chart: k8s.helm.v4.Chart

    def __init__(self, name: str, args: CoschedulingArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:coscheduling:Coscheduling", name, None, opts)
        engine = args.engine
        self.namespace, self.chart = install_chart(
            self, name, engine, COSCHEDULING_CHART, args.values, COSCHEDULING_REPO, path=args.chart_path
        )
        self.register_outputs(
            {
                "chartVersion": engine.chart_version,
                "namespace": engine.namespace,
                "schedulerName": engine.scheduler_name,
            }
        )
