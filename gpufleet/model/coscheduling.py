"""The coscheduling engine: scheduler-plugins installed as a second scheduler.

``engines.coscheduling`` of the fleet model. Installed (by ``gpufleet.pulumi.coscheduling``)
only when a pool has ``system: coscheduling``. The chart is ``scheduler-plugins`` from
https://scheduler-plugins.sigs.k8s.io (source: kubernetes-sigs/scheduler-plugins
``manifests/install/charts/as-a-second-scheduler`` at tag v0.34.7, whose CRDs are the ones
in ``../shared/crds/scheduler-plugins``). Read by validation
(``gpufleet.model.checks.coscheduling``), the renderer (``gpufleet.render.coscheduling``)
and the fleet context (the scheduler name the mutator and the rules use).
"""

from __future__ import annotations

from pydantic import Field

from gpufleet.model.base import Base, Duration, Name

DEFAULT_SCHEDULER_NAME = "scheduler-plugins-scheduler"  # chart values.yaml scheduler.name at v0.34.7
DEFAULT_PERMIT_WAIT_SECONDS = 60  # apis/config/v1/defaults.go defaultPermitWaitingTimeSeconds at v0.34.7


class CoschedulingEngine(Base):
    chart_version: str = "0.34.7"
    """scheduler-plugins Helm chart version (https://scheduler-plugins.sigs.k8s.io); gpufleet renders for 0.34.x."""
    namespace: Name = "scheduler-plugins"
    """Namespace of the second scheduler and its controller (kept out of team namespaces)."""
    release_name: Name = "scheduler-plugins"
    """Helm release name."""
    scheduler_name: Name = DEFAULT_SCHEDULER_NAME
    """The second scheduler's profile name: pods of coscheduling pools set schedulerName to it."""
    permit_wait: Duration = Field(default=DEFAULT_PERMIT_WAIT_SECONDS, ge=30, le=300)
    """How long pods of a gang that passed Permit wait for the rest (``permitWaitingTimeSeconds`` and every
    PodGroup's ``scheduleTimeoutSeconds``). Permit runs before binding, so this covers placing the pods, not
    pulling images or a cold start: keep it short (30s to 5m; default 60s, the plugin's own default)."""
