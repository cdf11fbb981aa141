"""Small builders of fleet contexts and workload objects for the mutation and webhook tests."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Iterator

from gpufleet.fleetctx.context import FleetContext
from gpufleet.yamlin import yamlio
from tests.rules.builders import manifest, with_fields

TEAM_NS = "research"
OTHER_NS = "unmanaged"


def fleet_dict(local_queue: str | None = "research-lq", volcano_queue: str | None = "research-vq") -> dict[str, Any]:
    return {
        "version": 1,
        "fleet": "test",
        "teams": [
            {
                "name": "research",
                "namespaces": [TEAM_NS, "research-dev"],
                "localQueue": local_queue,
                "volcanoQueue": volcano_queue,
                "pools": ["h100"],
            }
        ],
        "pools": [
            {
                "name": "h100",
                "system": "kueue",
                "nodeCount": 4,
                "gpuResource": "nvidia.com/gpu",
                "allocatable": {"nvidia.com/gpu": "8", "cpu": "192", "memory": "1800Gi"},
                "nodeLabels": {"gpufleet.dev/pool": "h100"},
            }
        ],
    }


def fleet(local_queue: str | None = "research-lq", volcano_queue: str | None = "research-vq") -> FleetContext:
    return FleetContext.from_dict(fleet_dict(local_queue, volcano_queue))


def pod_template(**spec: Any) -> dict[str, Any]:
    base = {"containers": [{"name": "main", "image": "trainer:1"}]}
    base.update(spec)
    return {"spec": base}


def volcano_job(*replicas: int, name: str = "train", namespace: str | None = TEAM_NS, **spec: Any) -> dict[str, Any]:
    """A Volcano Job with one task per replica count and only the fields given in ``spec``."""
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    body: dict[str, Any] = {
        "tasks": [{"name": f"t{i}", "replicas": n, "template": pod_template()} for i, n in enumerate(replicas or (2,))],
    }
    body.update(spec)
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": metadata, "spec": body}


def safe_volcano_job(*replicas: int, queue: str = "research-vq", **kw: Any) -> dict[str, Any]:
    """A Volcano Job that already has every default the mutator would add."""
    job = volcano_job(
        *replicas,
        queue=queue,
        schedulerName="volcano",
        policies=[{"event": "PodEvicted", "action": "RestartJob"}, {"event": "PodFailed", "action": "RestartJob"}],
        **kw,
    )
    job["spec"]["minAvailable"] = sum(t["replicas"] for t in job["spec"]["tasks"])
    for task in job["spec"]["tasks"]:
        task["template"]["spec"].update(schedulerName="volcano", restartPolicy="Never")
    return job


def batch_job(
    namespace: str | None = TEAM_NS, labels: dict[str, Any] | None = None, parallelism: int = 4
) -> dict[str, Any]:
    metadata = with_fields({"name": "job"}, ("namespace", namespace or None), ("labels", labels))
    spec = {"parallelism": parallelism, "completions": parallelism, "template": pod_template(restartPolicy="Never")}
    return manifest("batch/v1", "Job", metadata, spec)


def with_meta(obj: dict[str, Any], key: str, values: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out.setdefault("metadata", {}).setdefault(key, {}).update(values)
    return out


def upstream_documents(upstream_dir: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(relative path#index, object)`` for every mapping document under the upstream examples."""
    for path in sorted(upstream_dir.rglob("*.yaml")):
        for i, doc in enumerate(yamlio.load_documents(path.read_text())):
            if isinstance(doc.value, dict) and doc.value.get("kind"):
                yield f"{path.relative_to(upstream_dir)}#{i}", doc.value
