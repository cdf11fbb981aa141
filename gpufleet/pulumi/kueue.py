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

from gpufleet.model.fleet import KueueEngine
from gpufleet.pulumi.engine import ChartArgs, ChartEngine

KUEUE_CHART = "oci://registry.k8s.io/kueue/charts/kueue"

KueueArgs = ChartArgs[KueueEngine]
"""The model's ``engines.kueue``, the rendered ``kueue_values`` and an optional local chart."""


class Kueue(ChartEngine):
    """Kueue installed from its pinned chart into its own namespace."""

    TOKEN = "gpufleet:kueue:Kueue"
    CHART = KUEUE_CHART
