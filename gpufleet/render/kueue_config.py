"""The Kueue manager Configuration (``config.kueue.x-k8s.io/v1beta2``) and the chart values.

The chart's ``managerConfig.controllerManagerConfigYaml`` replaces the whole
configuration, so it is rendered in full: the upstream sample's server settings
(``config/components/manager/controller_manager_config.yaml`` at v0.19.2) plus the
gang settings from the model, with ``waitForPodsReady`` written out explicitly (v0.19
turns it on with a 30m default when the block is absent) and
``managedJobsNamespaceSelector`` selecting the namespaces the stack labels
``gpufleet.dev/quota-system: kueue`` for this fleet AND listed as a Kueue team
namespace by name (so never a Volcano namespace, ``kube-system`` or Kueue's own
namespace, as the pod integration requires; the chart copies it to the job and pod
webhooks, which are then never called in Volcano namespaces). Called by :func:`gpufleet.render.render_all`,
the CLI's ``render`` command and the Pulumi Kueue component.
"""

from __future__ import annotations

import copy
from typing import Any

from gpufleet.kubetypes.durations import format_seconds
from gpufleet.model.fleet import Fleet
from gpufleet.model.ownership import kueue_namespaces
from gpufleet.render.kueue import kueue_teams, namespace_selector
from gpufleet.render.meta import KUEUE_CONFIG_API
from gpufleet.render.namespaces import kueue_selector
from gpufleet.yamlin import yamlio

# Server settings of the upstream sample configuration (Kueue v0.19.2).
_SERVER: dict[str, Any] = {
    "health": {"healthProbeBindAddress": ":8081"},
    "metrics": {"bindAddress": ":8443"},
    "webhook": {"port": 9443},
    "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
    "controller": {
        "groupKindConcurrency": {
            "Job.batch": 5,
            "Pod": 5,
            "Workload.kueue.x-k8s.io": 10,
            "LocalQueue.kueue.x-k8s.io": 5,
            "Cohort.kueue.x-k8s.io": 1,
            "ClusterQueue.kueue.x-k8s.io": 5,
            "ResourceFlavor.kueue.x-k8s.io": 1,
        }
    },
    "clientConnection": {"qps": 300, "burst": 500},
}


def _wait_for_pods_ready(fleet: Fleet) -> dict[str, Any]:
    wait = fleet.admission.wait_for_pods_ready
    strategy = wait.requeuing_strategy
    requeuing: dict[str, Any] = {"timestamp": strategy.timestamp}
    if strategy.backoff_limit_count is not None:
        requeuing["backoffLimitCount"] = strategy.backoff_limit_count
    requeuing["backoffBaseSeconds"] = strategy.backoff_base_seconds
    requeuing["backoffMaxSeconds"] = strategy.backoff_max_seconds
    recovery = wait.timeout if wait.recovery_timeout is None else wait.recovery_timeout
    return {
        "timeout": format_seconds(wait.timeout),
        "recoveryTimeout": format_seconds(recovery),
        "blockAdmission": wait.block_admission,
        "requeuingStrategy": requeuing,
    }


def managed_namespaces(fleet: Fleet) -> list[str]:
    return sorted({ns for team in kueue_teams(fleet) for ns in kueue_namespaces(fleet, team)})


def managed_jobs_namespace_selector(fleet: Fleet) -> dict[str, Any]:
    """Kueue namespaces by the stack's labels and by name (see docs/architecture.md, "Who owns a namespace")."""
    by_name = namespace_selector(managed_namespaces(fleet))
    return {"matchLabels": dict(kueue_selector(fleet)["matchLabels"]), **by_name}


def render_manager_config(fleet: Fleet) -> dict[str, Any]:
    admission = fleet.admission
    config: dict[str, Any] = {
        "apiVersion": KUEUE_CONFIG_API,
        "kind": "Configuration",
        "namespace": fleet.engines.kueue.namespace,
    }
    config.update(copy.deepcopy(_SERVER))
    config["waitForPodsReady"] = _wait_for_pods_ready(fleet)
    config["manageJobsWithoutQueueName"] = admission.manage_jobs_without_queue_name
    config["managedJobsNamespaceSelector"] = managed_jobs_namespace_selector(fleet)
    config["integrations"] = {"frameworks": list(admission.frameworks)}
    if admission.fair_sharing is not None:
        config["fairSharing"] = {"preemptionStrategies": list(admission.fair_sharing.preemption_strategies)}
    return config


def render_manager_config_yaml(fleet: Fleet) -> str:
    return yamlio.dump(render_manager_config(fleet))


def render_kueue_values(fleet: Fleet) -> dict[str, Any]:
    """Helm values for the Kueue chart: only the manager configuration."""
    return {"managerConfig": {"controllerManagerConfigYaml": render_manager_config_yaml(fleet)}}
