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

from typing import Any

from gpufleet.model.coscheduling import CoschedulingEngine
from gpufleet.pulumi.engine import ChartArgs, ChartEngine

COSCHEDULING_REPO = "https://scheduler-plugins.sigs.k8s.io"
COSCHEDULING_CHART = "scheduler-plugins"

CoschedulingArgs = ChartArgs[CoschedulingEngine]
"""The model's ``engines.coscheduling``, the rendered ``coscheduling_values`` and an optional local chart."""


class Coscheduling(ChartEngine):
    """scheduler-plugins installed from its pinned chart into its own namespace."""

    TOKEN = "gpufleet:coscheduling:Coscheduling"
    CHART = COSCHEDULING_CHART
    REPO = COSCHEDULING_REPO

    def outputs(self, args: Any) -> dict[str, Any]:
        return {"schedulerName": args.engine.scheduler_name}
