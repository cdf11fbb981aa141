"""Who owns a namespace, on the real Kueue and Volcano (dev stack, the controller not running).

- a Volcano Job in the team's Volcano namespace (``alpha-vc``) runs as a gang: Kueue
  neither gates its pods nor makes a Workload for it;
- the same Volcano Job in the team's Kueue namespace (``alpha``) hangs: Kueue gates every
  pod (no Kueue-managed ancestor, ``manageJobsWithoutQueueName``) and no queue admits it.
  That is why the gang-admission controller must refuse it there (tests/e2e/test_controller_e2e.py);
- the emulation ``gpufleet.workloads.kueue_gate`` agrees with the real Kueue webhooks over
  the workload shapes its property test uses, in every namespace the stack renders
  (dry-run creates: the API server runs the mutating webhooks and stores nothing).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.render.kueue_config import render_manager_config
from gpufleet.sandbox.up import Options
from gpufleet.workloads.kueue_gate import KueueConfig, decide
from tests.e2e.sandbox_env import VC_API, job, vcjob
from tests.e2e.sandbox_pool import pool_key

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev.fleet.yaml"
GATE = "kueue.x-k8s.io/admission"
QUEUE = "kueue.x-k8s.io/queue-name"


POOL = pool_key(DEV, Options(controller=False))


@pytest.fixture(scope="module")
def sandbox(sandbox_pool):
    with sandbox_pool.lease(DEV, Options(controller=False)) as sb:
        sb.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "outside"}})
        yield sb


def _gated(pod: dict) -> bool:
    return any(g["name"] == GATE for g in pod["spec"].get("schedulingGates") or [])


def test_a_volcano_job_in_the_volcano_namespace_runs_and_kueue_leaves_it_alone(sandbox):
    sandbox.create(vcjob("gang", "alpha-vc", pods=2, gpus=2, queue="alpha"))
    sandbox.wait("both ranks bound", lambda: len(sandbox.bound("alpha-vc", app="gang")) == 2, timeout=120)
    assert not any(_gated(p) for p in sandbox.pods("alpha-vc", app="gang"))
    assert sandbox.workloads("alpha-vc") == []
    sandbox.kube.delete(VC_API, "Job", "gang", "alpha-vc")


def test_the_same_volcano_job_in_the_kueue_namespace_is_gated_by_kueue_and_never_runs(sandbox):
    sandbox.create(vcjob("lost", "alpha", pods=2, gpus=2, queue="alpha"))
    pods = sandbox.wait(
        "Volcano's pods of lost",
        lambda: len(sandbox.pods("alpha", app="lost")) == 2 and sandbox.pods("alpha", app="lost"),
        timeout=120,
    )
    sandbox.settle(10)
    pods = sandbox.pods("alpha", app="lost")
    assert pods and all(_gated(p) for p in pods)
    assert sandbox.bound("alpha", app="lost") == []
    sandbox.kube.delete(VC_API, "Job", "lost", "alpha")


def _pod(name: str, labels: dict, annotations: dict | None = None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels, "annotations": annotations or {}},
        "spec": {"containers": [{"name": "c", "image": "trainer:1"}], "restartPolicy": "Never"},
    }


SHAPES = {
    "job": job("j", "x", pods=2),
    "job-with-queue": job("j", "x", pods=2, labels={QUEUE: "alpha"}),
    "job-routed-to-volcano": job("j", "x", pods=2, scheduler="volcano"),
    "pod": _pod("p", {}),
    "pod-with-queue": _pod("p", {QUEUE: "alpha"}),
    # Kueue's pod webhook refuses a group member without its total count (pkg/controller/jobs/pod/pod_webhook.go)
    "pod-of-a-pod-group": _pod(
        "p", {"kueue.x-k8s.io/pod-group-name": "g"}, {"kueue.x-k8s.io/pod-group-total-count": "2"}
    ),
    "volcano-job": vcjob("v", "x", pods=2, queue="alpha"),
    "deployment": {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "d"}},
            "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
        },
    },
}


def _managed_by_real_kueue(sb, obj: dict, namespace: str) -> bool:
    body = copy.deepcopy(obj)
    body["metadata"]["namespace"] = namespace
    if body["kind"] == "Job" and body["apiVersion"] == "batch/v1":
        body["spec"]["suspend"] = False
    res = sb.kube.resource(body["apiVersion"], body["kind"])
    out = res.create(body=body, namespace=namespace, dry_run="All").to_dict()
    if body["kind"] == "Pod":
        return _gated(out)
    if body["apiVersion"] == "batch/v1":
        return bool(out["spec"].get("suspend"))
    return False  # no Kueue webhook suspends a Volcano Job or (pod integration only) a Deployment


@pytest.mark.parametrize("shape", SHAPES)
def test_the_kueue_gate_emulation_agrees_with_the_real_kueue_in_every_namespace(sandbox, shape):
    fleet = load_model(DEV)
    config = KueueConfig.from_manager_config(render_manager_config(fleet))
    namespaces = [o.manifest for o in render_all(fleet).objects if o.manifest["kind"] == "Namespace"]
    namespaces.append({"metadata": {"name": "outside", "labels": {}}})
    disagree = []
    for ns in namespaces:
        name = ns["metadata"]["name"]
        labels = {**ns["metadata"].get("labels", {}), "kubernetes.io/metadata.name": name}
        emulated = decide(SHAPES[shape], labels, config).managed
        real = _managed_by_real_kueue(sandbox, SHAPES[shape], name)
        if emulated != real:
            disagree.append((name, f"emulated {emulated}", f"real {real}"))
    assert disagree == []
