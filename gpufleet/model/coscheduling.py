"""The coscheduling engine: scheduler-plugins installed as a second scheduler.

``engines.coscheduling`` of the fleet model. Installed (by ``components.coscheduling``)
only when a pool has ``system: coscheduling``. The chart is ``scheduler-plugins`` from
https://scheduler-plugins.sigs.k8s.io (source: kubernetes-sigs/scheduler-plugins
``manifests/install/charts/as-a-second-scheduler`` at tag v0.34.7, whose CRDs are the ones
in ``../shared/crds/scheduler-plugins``). Read by validation
(``gpufleet.model.checks.coscheduling``), the renderer (``gpufleet.render.coscheduling``)
and the fleet context (the scheduler name the mutator and the rules use).
"""

from __future__ import annotations

from gpufleet.model.base import Base, Name

DEFAULT_SCHEDULER_NAME = "scheduler-plugins-scheduler"  # chart values.yaml scheduler.name at v0.34.7


class CoschedulingEngine(Base):
    chart_version: str = "0.34.7"
    """scheduler-plugins Helm chart version (https://scheduler-plugins.sigs.k8s.io); gpufleet renders for 0.34.x."""
    namespace: Name = "scheduler-plugins"
    """Namespace of the second scheduler and its controller (kept out of team namespaces)."""
    release_name: Name = "scheduler-plugins"
    """Helm release name."""
    scheduler_name: Name = DEFAULT_SCHEDULER_NAME
    """The second scheduler's profile name: pods of coscheduling pools set schedulerName to it."""
