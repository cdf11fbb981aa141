"""Small builders of the objects and resources the policy-pack tests send."""

from __future__ import annotations

from typing import Any

from gpufleet.kubetypes.vocab import NVIDIA_GPU, QUEUE_LABEL
from tests.rules.builders import manifest, with_fields


def volcano_job(
    name: str = "train",
    namespace: str = "research",
    replicas: int = 4,
    min_available: int | None = 4,
    queue: str | None = None,
    **spec: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "schedulerName": "volcano",
        "maxRetry": 3,
        "policies": [{"event": "PodFailed", "action": "RestartJob"}, {"event": "PodEvicted", "action": "RestartJob"}],
        "tasks": [
            {
                "name": "worker",
                "replicas": replicas,
                "template": {
                    "spec": {
                        "restartPolicy": "Never",
                        "containers": [
                            {
                                "name": "trainer",
                                "image": "trainer:1",
                                "resources": {"limits": {NVIDIA_GPU: 8}, "requests": {NVIDIA_GPU: 8}},
                            }
                        ],
                    }
                },
            }
        ],
        **spec,
    }
    with_fields(body, ("minAvailable", min_available), ("queue", queue))
    return manifest("batch.volcano.sh/v1alpha1", "Job", {"name": name, "namespace": namespace}, body)


def priority_class(
    name: str = "gang-high", preemption: str | None = None, labels: dict[str, str] | None = None
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name, "labels": dict(labels or {})},
        "value": 1000,
    }
    if preemption is not None:
        obj["preemptionPolicy"] = preemption
    return obj


def batch_job(
    name: str = "infer", namespace: str = "vision", queue: str | None = None, parallelism: int = 2
) -> dict[str, Any]:
    labels = {QUEUE_LABEL: queue} if queue else {}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": {
            "parallelism": parallelism,
            "completions": parallelism,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "infer:1"}]}},
        },
    }


def local_queue(name: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": name},
    }


def volcano_queue(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": name},
        "spec": {"weight": 1},
    }


def kueue_config_yaml(timeout: str = "15m", backoff_limit: int | None = 5, enabled: bool = True) -> str:
    if not enabled:
        return "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nwaitForPodsReady:\n  enable: false\n"
    text = f"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nwaitForPodsReady:\n  timeout: {timeout}\n"
    if backoff_limit is not None:
        text += f"  requeuingStrategy:\n    backoffLimitCount: {backoff_limit}\n"
    return text


def kueue_chart_props(config_yaml: str, namespace: str = "kueue-system") -> dict[str, Any]:
    return {
        "chart": "oci://registry.k8s.io/kueue/charts/kueue",
        "version": "0.19.2",
        "namespace": namespace,
        "values": {"controllerManager": {"replicas": 2}, "managerConfig": {"controllerManagerConfigYaml": config_yaml}},
    }


def volcano_chart_props(conf_yaml: str) -> dict[str, Any]:
    return {
        "chart": "volcano",
        "version": "1.15.1",
        "namespace": "volcano-system",
        "values": {"custom": {"scheduler_config_override": conf_yaml}},
    }


class FakeResource:
    """What a stack policy receives per resource (``PolicyResource``'s fields the pack reads)."""

    def __init__(self, obj: dict[str, Any], resource_type: str | None = None, name: str | None = None) -> None:
        from tests.policies.harness import type_token, urn

        self.resource_type = resource_type or type_token(obj)
        self.name = name or str((obj.get("metadata") or {}).get("name", "chart"))
        self.urn = urn(self.resource_type, self.name)
        self.props = obj
