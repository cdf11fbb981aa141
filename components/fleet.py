"""The top component: one validated fleet model, rendered and installed.

Built by ``__main__.py`` (one per stack). Calls ``gpufleet.render.render_all``
once, then creates the Kueue chart, the Volcano chart (when the model enables
Volcano; with its admission Secret first), the scheduler-plugins chart (when a pool has
``system: coscheduling``) and the quota objects (the labelled team Namespaces first),
which depend on their engine's chart, and the
gang-admission controller (after the charts, so its webhooks never gate the
engines' own objects), and the gang alerts when the stack says prometheus-operator
is present (:mod:`components.observability`). Outputs a
small summary (queue names, chart versions) for ``pulumi stack output``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from components.coscheduling import Coscheduling, CoschedulingArgs
from components.controller import GangAdmissionController, GangAdmissionControllerArgs
from components.kueue import Kueue, KueueArgs
from components.observability import GangAlerts, GangAlertsArgs
from components.quota import FleetQuota, FleetQuotaArgs
from components.volcano import Volcano, VolcanoArgs
from gpufleet.model import Fleet
from gpufleet.render import render_all
from gpufleet.render.controller_common import ControllerSettings


@dataclass(frozen=True)
class GpuFleetArgs:
    fleet: Fleet
    """The validated fleet model (``gpufleet.model.load_model``)."""
    controller: ControllerSettings = ControllerSettings()
    """How to deploy the gang-admission controller (when the model enables it)."""


def _names_of(objects, engine: str, kind: str) -> list[str]:
    return [o.manifest["metadata"]["name"] for o in objects if o.engine == engine and o.manifest["kind"] == kind]


class GpuFleet(pulumi.ComponentResource):
    """Kueue, Volcano and every quota object of one fleet."""

    kueue: Kueue
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
        child = pulumi.ResourceOptions(parent=self)
        self.kueue = Kueue("kueue", KueueArgs(fleet.engines.kueue, rendered.kueue_values), child)
        charts = {"kueue": self.kueue.chart}
        self.volcano = None
        versions = {"kueue": fleet.engines.kueue.chart_version}
        if rendered.volcano_values is not None:
            self.volcano = Volcano("volcano", VolcanoArgs(fleet, rendered.volcano_values, args.controller.cert_manager), child)
            charts["volcano"] = self.volcano.chart
            versions["volcano"] = fleet.engines.volcano.chart_version
        self.coscheduling = None
        if rendered.coscheduling_values is not None:
            self.coscheduling = Coscheduling("coscheduling", CoschedulingArgs(fleet.engines.coscheduling, rendered.coscheduling_values), child)
            charts["coscheduling"] = self.coscheduling.chart
            versions["coscheduling"] = fleet.engines.coscheduling.chart_version
        self.quota = FleetQuota("quota", FleetQuotaArgs(rendered.objects, charts), child)

        self.controller = None
        if fleet.controller.enabled:
            self.controller = GangAdmissionController("gang-admission", GangAdmissionControllerArgs(fleet, args.controller),
                                                      pulumi.ResourceOptions(parent=self, depends_on=list(charts.values())))

        self.gang_alerts = None
        if args.controller.prometheus_operator and fleet.observability.enabled:
            after = [self.controller] if self.controller is not None else []  # it creates the default namespace
            self.gang_alerts = GangAlerts("gang-alerts", GangAlertsArgs(fleet), pulumi.ResourceOptions(parent=self, depends_on=after))

        self.cluster_queues = pulumi.Output.from_input(_names_of(rendered.objects, "kueue", "ClusterQueue"))
        self.volcano_queues = pulumi.Output.from_input(_names_of(rendered.objects, "volcano", "Queue"))
        self.chart_versions = pulumi.Output.from_input(versions)
        self.register_outputs({
            "clusterQueues": self.cluster_queues,
            "volcanoQueues": self.volcano_queues,
            "chartVersions": self.chart_versions,
        })
