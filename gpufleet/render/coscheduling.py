"""The coscheduling plugin: scheduler-plugins chart values, its scheduler config, and PodGroups.

Pure functions, model in, plain dicts out. Called by :func:`gpufleet.render.render_all`
(chart values), :mod:`gpufleet.render.files` (the scheduler ConfigMap the chart would
create) and :mod:`gpufleet.advise.podgroups` (the PodGroup each gang workload of a
coscheduling pool needs, for ``gpufleet podgroups``). Upstream: kubernetes-sigs/scheduler-plugins at tag v0.34.7 —
``manifests/install/charts/as-a-second-scheduler/{values.yaml,templates/configmap.yaml}``,
``apis/scheduling/v1alpha1/types.go`` (PodGroup, label ``scheduling.x-k8s.io/pod-group``),
``pkg/coscheduling/core/core.go`` (PreFilter: fewer pods than ``minMember`` never schedule;
Permit: a pod naming a missing PodGroup is denied, the group is released once ``minMember``
pods are assigned) and ``pkg/util/podgroup.go`` (``GetWaitTimeDuration``: a group's
``scheduleTimeoutSeconds``, else the plugin's ``permitWaitingTimeSeconds``, else 60s).

So gpufleet renders: only the Coscheduling plugin (the chart's default list also enables
CapacityScheduling, NodeResourceTopologyMatch and NodeResourcesAllocatable, which need
other CRDs; the chart's ``PrioritySort`` stays disabled because Coscheduling brings its
own queue sort), ``permitWaitingTimeSeconds`` = ``engines.coscheduling.permitWait``
(default 60s; the chart sets 10s) with ``podGroupRejectPercentage: 0``, and PodGroups with
``minMember`` = every pod of the workload (synchronous jobs) and ``scheduleTimeoutSeconds`` =
the same permit wait. Permit runs before binding (``pkg/coscheduling/coscheduling.go``), so
the wait covers placing the gang, not pulling images: the pool's cold-start budget is
Kueue's ``waitForPodsReady`` business, not the Permit wait's (issue 19, item 7).
"""

from __future__ import annotations

from typing import Any

from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.render.meta import manifest, metadata

PODGROUP_API = "scheduling.x-k8s.io/v1alpha1"
SCHEDULER_CONFIG_API = "kubescheduler.config.k8s.io/v1"
SCHEDULER_CONFIGMAP = "scheduler-config"  # templates/configmap.yaml: a fixed name in the release namespace
PLUGINS_ENABLED = ["Coscheduling"]
PLUGINS_DISABLED = ["PrioritySort"]
REJECT_PERCENTAGE = 0
"""``podGroupRejectPercentage``: 0, not the plugin's 10 (``apis/config/v1/defaults.go`` at v0.34.7). PostFilter
(``pkg/coscheduling/coscheduling.go``) rejects a group's waiting pods only when more than this share of
``minMember`` is unassigned; with 10, a gang missing up to 10% of its pods keeps its reservations for the whole
permit wait. With 0, any pod that cannot be placed releases the group's reservations at once."""


def timeout_seconds(fleet: Fleet, pool: Pool) -> int:
    """The PodGroup wait on ``pool``: the engine's permit wait (short: Permit runs before binding)."""
    return fleet.engines.coscheduling.permit_wait


def permit_waiting_seconds(fleet: Fleet) -> int:
    return fleet.engines.coscheduling.permit_wait


def render_coscheduling_values(fleet: Fleet) -> dict[str, Any] | None:
    """Helm values for the scheduler-plugins chart; None when no pool uses the coscheduling plugin."""
    if not fleet.pools_of("coscheduling"):
        return None
    name = fleet.engines.coscheduling.scheduler_name
    return {
        "scheduler": {"name": name},
        "plugins": {"enabled": list(PLUGINS_ENABLED), "disabled": list(PLUGINS_DISABLED)},
        "pluginConfig": [
            {
                "name": "Coscheduling",
                "args": {
                    "permitWaitingTimeSeconds": permit_waiting_seconds(fleet),
                    "podGroupRejectPercentage": REJECT_PERCENTAGE,
                },
            }
        ],
    }


def render_scheduler_config(fleet: Fleet) -> dict[str, Any]:
    """The KubeSchedulerConfiguration the chart's ``templates/configmap.yaml`` renders from those values."""
    engine, values = fleet.engines.coscheduling, render_coscheduling_values(fleet) or {}
    return {
        "apiVersion": SCHEDULER_CONFIG_API,
        "kind": "KubeSchedulerConfiguration",
        "leaderElection": {
            "leaderElect": False,
            "resourceNamespace": engine.namespace,
            "resourceName": engine.scheduler_name,
        },
        "profiles": [
            {
                "schedulerName": engine.scheduler_name,
                "plugins": {
                    "multiPoint": {
                        "enabled": [{"name": n} for n in PLUGINS_ENABLED],
                        "disabled": [{"name": n} for n in PLUGINS_DISABLED],
                    }
                },
                "pluginConfig": values.get("pluginConfig", []),
            }
        ],
    }


def render_pod_group(
    fleet: Fleet, name: str, namespace: str | None, min_member: int, timeout: int, team: str | None = None
) -> dict[str, Any]:
    meta = metadata(fleet, name, namespace=namespace, team=team)
    return manifest(PODGROUP_API, "PodGroup", meta, spec={"minMember": min_member, "scheduleTimeoutSeconds": timeout})


__all__ = ["render_coscheduling_values", "render_scheduler_config", "render_pod_group", "timeout_seconds"]
