"""Builders of the workload objects the contract readers' tests read, and a reader of one field of a contract."""

from __future__ import annotations

from typing import Any

from gpufleet.fleetctx.context import FleetContext
from gpufleet.workloads.contract.registry import Run, read
from gpufleet.workloads.contract.types import Contract


def pod_spec(gpus: int | None = None, restart: str | None = None, **extra: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": "x"}
    if gpus is not None:
        container["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
    spec: dict[str, Any] = {"containers": [container], **extra}
    if restart is not None:
        spec["restartPolicy"] = restart
    return spec


def meta(name: str = "train", labels: dict | None = None, annotations: dict | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "namespace": "team-a"}
    if labels:
        out["labels"] = labels
    if annotations:
        out["annotations"] = annotations
    return out


def job(
    *,
    labels: dict | None = None,
    annotations: dict | None = None,
    template_meta: dict | None = None,
    restart: str = "Never",
    gpus: int | None = 8,
    pod: dict | None = None,
    **spec: Any,
) -> dict[str, Any]:
    template: dict[str, Any] = {"spec": pod if pod is not None else pod_spec(gpus, restart)}
    if template_meta:
        template["metadata"] = template_meta
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta(labels=labels, annotations=annotations),
        "spec": {**spec, "template": template},
    }


def volcano_job(*tasks: dict, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": meta(),
        "spec": {**spec, "tasks": [dict({"template": {"spec": pod_spec(8)}}, **t) for t in tasks]},
    }


def pod(name: str = "p", labels: dict | None = None, annotations: dict | None = None, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta(name, labels, annotations), "spec": pod_spec(8, **spec)}


def apps(kind: str, template_labels: dict | None = None, **spec: Any) -> dict[str, Any]:
    template: dict[str, Any] = {"spec": pod_spec(8)}
    if template_labels:
        template["metadata"] = {"labels": template_labels}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta(), "spec": {**spec, "template": template}}


def pod_group(group: str, min_member: int | None = None, name: str = "pg", **spec: Any) -> dict[str, Any]:
    body = dict(spec)
    if min_member is not None:
        body["minMember"] = min_member
    return {"apiVersion": f"{group}/v1beta1", "kind": "PodGroup", "metadata": meta(name), "spec": body}


def contract(obj: dict, *others: dict, fleet: FleetContext | None = None) -> Contract:
    """The contract of ``obj`` read with ``others`` (and ``obj``) as the input's objects."""
    return read(obj, Run(objects=(obj, *others), fleet=fleet))


def steps(found: Contract, pod_set: str | None = None) -> list[tuple[str, str, int | None]]:
    """``(layer, scope, bound)`` of each step of ``pod_set``'s failure path (the first pod set's by default)."""
    failure = next(f for f in found.rank_failures if pod_set is None or f.pod_set == pod_set)
    return [(s.layer, s.scope, s.bound) for s in failure.steps]
