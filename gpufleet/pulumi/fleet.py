"""The top component: one validated fleet model, rendered and installed.

Built by ``__main__.py`` (one per stack). Calls ``gpufleet.render.render_all``
once, then creates the Kueue chart, the Volcano chart (when the model enables
Volcano; with its admission Secret first), the scheduler-plugins chart (when a pool has
``system: coscheduling``) (none of the three with stack config
``gpufleet:enginesInstalled``: then the engines are taken as given) and the quota objects (the labelled team Namespaces first),
which depend on their engine's chart, and the
gang-admission controller (after the charts, so its webhooks never gate the
engines' own objects), and the gang alerts when the stack says prometheus-operator
is present (:mod:`gpufleet.pulumi.observability`). Outputs a
small summary (queue names, chart versions) for ``pulumi stack output``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.model import Fleet
from gpufleet.pulumi.controller import GangAdmissionController, GangAdmissionControllerArgs
from gpufleet.pulumi.coscheduling import Coscheduling, CoschedulingArgs
from gpufleet.pulumi.kueue import Kueue, KueueArgs
from gpufleet.pulumi.observability import GangAlerts, GangAlertsArgs
from gpufleet.pulumi.quota import FleetQuota, FleetQuotaArgs
from gpufleet.pulumi.volcano import Volcano, VolcanoArgs
from gpufleet.render import Rendered, render_all
from gpufleet.render.controller import COMPONENT
from gpufleet.render.controller.common import ControllerSettings
from gpufleet.render.monitoring import COMPONENT as ALERTS_COMPONENT


@dataclass(frozen=True)
class GpuFleetArgs:
    fleet: Fleet
    """The validated fleet model (``gpufleet.model.load_model``)."""
    controller: ControllerSettings = ControllerSettings()
    """How to deploy the gang-admission controller (when the model enables it); ``engines_installed`` skips the charts."""
    chart_paths: Mapping[str, str] = field(default_factory=dict)
    """Engine name (kueue, volcano, coscheduling) -> a local chart to install from."""


def _names_of(objects, engine: str, kind: str) -> list[str]:
    return [o.manifest["metadata"]["name"] for o in objects if o.engine == engine and o.manifest["kind"] == kind]


class GpuFleet(pulumi.ComponentResource):
    """Kueue, Volcano and every quota object of one fleet."""

    kueue: Kueue | None
    volcano: Volcano | None
    coscheduling: Coscheduling | None
    quota: FleetQuota
    cluster_queues: pulumi.Output[list[str]]
    volcano_queues: pulumi.Output[list[str]]
    chart_versions: pulumi.Output[dict[str, str]]

    def __init__(self, name: str, args: GpuFleetArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:fleet:GpuFleet", name, None, opts)
        fleet = args.fleet
        rendered = render_all(fleet)
        self.kueue = self.volcano = self.coscheduling = None
        child = pulumi.ResourceOptions(parent=self)
        charts = {} if args.controller.engines_installed else self._engines(fleet, rendered, args, child)
        versions = {name: getattr(fleet.engines, name).chart_version for name in charts}
        installed = None if args.controller.engines_installed else charts
        self.quota = FleetQuota("quota", FleetQuotaArgs(rendered.objects, installed), child)

        self.controller = None
        if fleet.controller.enabled:
            self.controller = GangAdmissionController(
                COMPONENT,
                GangAdmissionControllerArgs(fleet, args.controller),
                pulumi.ResourceOptions(parent=self, depends_on=list(charts.values())),
            )

        self.gang_alerts = None
        if args.controller.prometheus_operator and fleet.observability.enabled:
            after = [self.controller] if self.controller is not None else []  # it creates the default namespace
            self.gang_alerts = GangAlerts(
                ALERTS_COMPONENT, GangAlertsArgs(fleet), pulumi.ResourceOptions(parent=self, depends_on=after)
            )

        self.cluster_queues = pulumi.Output.from_input(_names_of(rendered.objects, "kueue", "ClusterQueue"))
        self.volcano_queues = pulumi.Output.from_input(_names_of(rendered.objects, "volcano", "Queue"))
        self.chart_versions = pulumi.Output.from_input(versions)
        self.register_outputs(
            {
                "clusterQueues": self.cluster_queues,
                "volcanoQueues": self.volcano_queues,
                "chartVersions": self.chart_versions,
            }
        )

    def _engines(
        self, fleet: Fleet, rendered: Rendered, args: GpuFleetArgs, child: pulumi.ResourceOptions
    ) -> dict[str, k8s.helm.v4.Chart]:
        """Install Kueue, and Volcano and scheduler-plugins when the model needs them; return their charts."""
        paths = args.chart_paths
        self.kueue = Kueue("kueue", KueueArgs(fleet.engines.kueue, rendered.kueue_values, paths.get("kueue")), child)
        charts = {"kueue": self.kueue.chart}
        if rendered.volcano_values is not None:
            self.volcano = Volcano(
                "volcano",
                VolcanoArgs(
                    fleet, rendered.volcano_values, paths.get("volcano"), cert_manager=args.controller.cert_manager
                ),
                child,
            )
            charts["volcano"] = self.volcano.chart
        if rendered.coscheduling_values is not None:
            self.coscheduling = Coscheduling(
                "coscheduling",
                CoschedulingArgs(fleet.engines.coscheduling, rendered.coscheduling_values, paths.get("coscheduling")),
                child,
            )
            charts["coscheduling"] = self.coscheduling.chart
        return charts
