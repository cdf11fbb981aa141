"""Placement defaults: a dedicated pool's toleration and node selector, and routing to the coscheduling plugin, per kind."""

from __future__ import annotations

import jsonpatch
import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.kubetypes.vocab import COSCHEDULING_GROUP, DEDICATED_KEY
from gpufleet.mutate import mutate
from tests.mutate.builders import pod_template

KEY = DEDICATED_KEY
SCHED = "scheduler-plugins-scheduler"
GROUP = COSCHEDULING_GROUP
TOLERATION = {"key": KEY, "operator": "Equal", "value": "secure", "effect": "NoExecute"}


def pool(name: str, system: str, **extra) -> dict:
    return {
        "name": name,
        "system": system,
        "nodeCount": 2,
        "allocatable": {"nvidia.com/gpu": "8"},
        "nodeLabels": {"gpufleet.dev/pool": name},
        **extra,
    }


def context(secure_pools=("vault",)) -> FleetContext:
    return FleetContext.from_dict(
        {
            "version": 1,
            "fleet": "t",
            "coschedulingScheduler": SCHED,
            "teams": [
                {"name": "secure", "namespaces": ["secure"], "localQueue": "secure", "pools": list(secure_pools)},
                {"name": "robotics", "namespaces": ["robotics"], "pools": ["l40s"]},
                {"name": "llm", "namespaces": ["llm"], "localQueue": "llm", "pools": ["h100"]},
            ],
            "pools": [
                pool("h100", "kueue"),
                pool("vault", "kueue", dedicatedTo="secure"),
                pool("l40s", "coscheduling", coldStartBudgetSeconds=300),
            ],
        }
    )


def meta(ns: str, name: str = "train") -> dict:
    return {"name": name, "namespace": ns}


def job(ns: str, pods: int = 4, **spec) -> dict:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta(ns),
        "spec": {
            "parallelism": pods,
            "completions": pods,
            "backoffLimit": 0,
            "template": pod_template(restartPolicy="Never", **spec),
        },
    }


def jobset(ns: str) -> dict:
    rj = [
        {"name": n, "replicas": 2, "template": {"spec": {"parallelism": 2, "template": pod_template()}}}
        for n in ("a", "b")
    ]
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": meta(ns),
        "spec": {"replicatedJobs": rj},
    }


def pytorch(ns: str) -> dict:
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": meta(ns),
        "spec": {
            "pytorchReplicaSpecs": {
                "Master": {"replicas": 1, "template": pod_template()},
                "Worker": {"replicas": 3, "template": pod_template()},
            }
        },
    }


def vcjob(ns: str) -> dict:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": meta(ns),
        "spec": {"tasks": [{"name": "w", "replicas": 2, "template": pod_template()}]},
    }


def bare_pod(ns: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta(ns, "p"), "spec": pod_template()["spec"]}


SPECS = {  # kind -> the pod specs of its templates in the mutated object
    "Job": lambda o: [o["spec"]["template"]["spec"]],
    "JobSet": lambda o: [r["template"]["spec"]["template"]["spec"] for r in o["spec"]["replicatedJobs"]],
    "PyTorchJob": lambda o: [r["template"]["spec"] for r in o["spec"]["pytorchReplicaSpecs"].values()],
    "vcjob": lambda o: [t["template"]["spec"] for t in o["spec"]["tasks"]],
    "Pod": lambda o: [o["spec"]],
}
LABELS = {
    "Job": lambda o: [o["spec"]["template"].get("metadata", {}).get("labels", {})],
    "JobSet": lambda o: [
        r["template"]["spec"]["template"].get("metadata", {}).get("labels", {}) for r in o["spec"]["replicatedJobs"]
    ],
    "PyTorchJob": lambda o: [
        r["template"].get("metadata", {}).get("labels", {}) for r in o["spec"]["pytorchReplicaSpecs"].values()
    ],
}
KINDS = [("Job", job), ("JobSet", jobset), ("PyTorchJob", pytorch), ("vcjob", vcjob), ("Pod", bare_pod)]


def mutated(obj: dict, ctx: FleetContext | None = None) -> dict:
    ctx = ctx or context()
    out = jsonpatch.apply_patch(obj, mutate(obj, ctx))
    assert mutate(out, ctx) == [], "the mutation is idempotent"
    return out


@pytest.mark.parametrize("kind, build", KINDS, ids=[k for k, _ in KINDS])
def test_every_template_of_a_dedicated_team_gets_the_toleration_and_node_selector(kind, build):
    for spec in SPECS[kind](mutated(build("secure"))):
        assert TOLERATION in spec["tolerations"]
        assert spec["nodeSelector"][KEY] == "secure"


@pytest.mark.parametrize("kind, build", KINDS, ids=[k for k, _ in KINDS])
def test_a_team_with_shared_pools_too_gets_only_the_toleration(kind, build):
    ctx = context(secure_pools=("vault", "h100"))
    for spec in SPECS[kind](mutated(build("secure"), ctx)):
        assert TOLERATION in spec["tolerations"] and KEY not in spec.get("nodeSelector", {})


def test_an_existing_toleration_for_the_key_and_an_explicit_node_selector_are_kept():
    own = {"key": KEY, "operator": "Exists"}
    [spec] = SPECS["Job"](mutated(job("secure", tolerations=[own], nodeSelector={KEY: "other"})))
    assert spec["tolerations"] == [own] and spec["nodeSelector"] == {KEY: "other"}


@pytest.mark.parametrize("kind, build", KINDS[:3], ids=[k for k, _ in KINDS[:3]])
def test_a_coscheduling_team_gang_is_routed_to_the_second_scheduler_as_one_pod_group(kind, build):
    out = mutated(build("robotics"))
    for spec in SPECS[kind](out):
        assert spec["schedulerName"] == SCHED and spec["nodeSelector"] == {"gpufleet.dev/pool": "l40s"}
    assert all(labels[GROUP] == "train" for labels in LABELS[kind](out))
    assert "kueue.x-k8s.io/queue-name" not in out["metadata"].get("labels", {})


def test_a_bare_pod_of_a_coscheduling_team_gets_the_scheduler_but_no_group():
    out = mutated(bare_pod("robotics"))
    assert out["spec"]["schedulerName"] == SCHED and GROUP not in out["metadata"].get("labels", {})


def test_a_volcano_job_in_a_coscheduling_namespace_keeps_its_scheduler():
    out = mutated(vcjob("robotics"))
    assert out["spec"]["tasks"][0]["template"]["spec"]["schedulerName"] == "volcano"


def test_an_explicit_scheduler_and_group_label_are_kept():
    obj = job("robotics", schedulerName="my-scheduler")
    obj["spec"]["template"]["metadata"] = {"labels": {GROUP: "mine"}}
    out = mutated(obj)
    assert out["spec"]["template"]["spec"]["schedulerName"] == "my-scheduler"
    assert out["spec"]["template"]["metadata"]["labels"][GROUP] == "mine"


def test_default_scheduler_counts_as_unset_as_the_api_server_writes_it_before_any_webhook():
    # Found on the real API server (tests/e2e/test_partition_e2e.py): defaulting
    # (k8s.io/kubernetes pkg/apis/core/v1/defaults.go SetDefaults_PodSpec, v1.35.4) fills in
    # default-scheduler on every built-in pod template before mutating webhooks run.
    out = mutated(job("robotics", schedulerName="default-scheduler"))
    assert out["spec"]["template"]["spec"]["schedulerName"] == SCHED


@pytest.mark.parametrize(
    "obj",
    [job("llm"), jobset("llm"), job("robotics", pods=1)],
    ids=["shared Kueue team", "shared JobSet", "single pod job"],
)
def test_no_group_label_outside_a_coscheduling_gang(obj):
    out = mutated(obj)
    assert all(GROUP not in labels for labels in LABELS[obj["kind"]](out))
