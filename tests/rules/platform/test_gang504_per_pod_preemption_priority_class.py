"""GANG504: PriorityClasses that let kube-scheduler preempt pod by pod for gangs."""

from __future__ import annotations

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules import builders as b


def priority_class(name: str = "gang-high", policy: str | None = None, labels: dict | None = None) -> dict:
    out = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": 1000}
    if policy:
        out["preemptionPolicy"] = policy
    if labels:
        out["metadata"]["labels"] = labels
    return out


def user(kind: str) -> dict:
    if kind == "volcano-job":
        job = b.volcano_job()
        job["spec"]["priorityClassName"] = "gang-high"
    elif kind == "pytorch-scheduling-policy":
        job = b.pytorch_job()
        job["spec"]["runPolicy"] = {"schedulingPolicy": {"priorityClass": "gang-high"}}
    else:
        job = b.jobset()
        job["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["priorityClassName"] = "gang-high"
    return job


def gang504(pc: dict, objects: list[dict], ctx: CheckContext = CheckContext()) -> list[str]:
    return [f.path for f in engine.check_objects([pc, *objects], ctx, select=["GANG504"])]


@pytest.mark.parametrize("kind", ["volcano-job", "pytorch-scheduling-policy", "pod-template"])
@pytest.mark.parametrize("policy, flagged", [(None, True), ("PreemptLowerPriority", True), ("Never", False)])
def test_a_preempting_class_used_by_a_gang_workload_is_flagged(kind, policy, flagged):
    assert gang504(priority_class(policy=policy), [user(kind)]) == (["preemptionPolicy"] if flagged else [])


def test_a_class_only_single_pods_use_is_fine():
    pod = b.pod()
    pod["spec"]["priorityClassName"] = "gang-high"
    assert gang504(priority_class(), [pod]) == []


def test_the_fleet_context_or_a_label_marks_a_class_as_used_by_gangs():
    fleet = FleetContext.from_dict({"priorityClasses": [{"name": "gang-high", "value": 1000}]})
    assert gang504(priority_class(), [], CheckContext(fleet=fleet)) == ["preemptionPolicy"]
    assert gang504(priority_class(labels={"gpufleet.dev/gang": "true"}), []) == ["preemptionPolicy"]
