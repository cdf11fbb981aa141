"""The essay's opening, on the real engines: per-pod binding strands GPUs; a gang binds all or nothing.

Real kube-scheduler v1.37.2 (its workload gates off; Kubernetes' own gang is
tests/e2e/test_native_gang_e2e.py) and Volcano (sandbox/engines), KWOK nodes of 8 GPUs:
- a 64-rank x 8-GPU job on a pool of 50 free nodes: the default scheduler binds 50 pods
  and leaves 14 Pending (400 GPUs held by a job that can never start); the same job as
  a Volcano Job binds none and its PodGroup records why;
- two 512-GPU jobs on 800 free GPUs whose ranks arrive interleaved (as two launchers
  creating their ranks at the same time do): under the default scheduler both are bound
  in part and neither can start (the deadlock); as two Volcano Jobs one runs whole and
  the other waits holding nothing.

The gang-admission controller is not started here: this is the engines without gpufleet
(with it, the 64-rank job on 50 nodes is refused up front: GANG403,
tests/e2e/test_controller_e2e.py).
"""

from __future__ import annotations

import pytest

from gpufleet.sandbox.up import Options
from tests.e2e.sandbox_env import VC_API, job, model, running, vcjob
from tests.render.builders import pool, quota, team

SCRATCH = "scratch"  # not a team namespace: nothing but the default scheduler sees its Jobs
VC_NS = "research-vc"


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    data = model(
        pools=[pool("p50", system="volcano", nodes=50), pool("p100", system="volcano", nodes=100)],
        teams=[
            team("research", {"p50": quota(400), "p100": quota(800)}, namespaces=[VC_NS], volcanoNamespaces=[VC_NS])
        ],
        engines={"volcano": {"enabled": True}},
    )
    with running(data, tmp_path_factory.mktemp("essay"), Options(controller=False)) as sb:
        sb.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": SCRATCH}})
        yield sb


@pytest.fixture(autouse=True)
def clean(sandbox):
    """Each scenario starts on free nodes, whatever the last one left."""
    yield
    for api_version, kind, ns in (("batch/v1", "Job", SCRATCH), (VC_API, "Job", VC_NS), ("v1", "Pod", SCRATCH)):
        for obj in sandbox.kube.list(api_version, kind, ns):
            sandbox.kube.delete(api_version, kind, obj["metadata"]["name"], ns)
    sandbox.wait("no pods left", lambda: not sandbox.pods(SCRATCH) and not sandbox.pods(VC_NS), timeout=180)


def _rank(gang: str, index: int) -> dict:
    template = job(gang, SCRATCH, pods=1, node_selector={"gpufleet.dev/pool": "p100"})["spec"]["template"]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"{gang}-{index}", "namespace": SCRATCH, "labels": {"app": gang}},
        "spec": template["spec"],
    }


def test_the_default_scheduler_binds_50_of_64_ranks_and_leaves_14_pending(sandbox):
    sandbox.apply(job("big", SCRATCH, pods=64, node_selector={"gpufleet.dev/pool": "p50"}))
    sandbox.wait("64 pods of job big", lambda: len(sandbox.pods(SCRATCH, app="big")) == 64, timeout=180)
    sandbox.wait("50 pods bound", lambda: len(sandbox.bound(SCRATCH, app="big")) == 50, timeout=120)
    sandbox.settle(5)
    pods = sandbox.pods(SCRATCH, app="big")
    assert len([p for p in pods if p["spec"].get("nodeName")]) == 50
    pending = [p for p in pods if not p["spec"].get("nodeName")]
    assert len(pending) == 14
    assert all(p["status"]["phase"] == "Pending" for p in pending)


def test_the_same_job_as_a_volcano_gang_binds_none_and_its_podgroup_says_why(sandbox):
    sandbox.apply(vcjob("big", VC_NS, pods=64, queue="research", node_selector={"gpufleet.dev/pool": "p50"}))
    group = sandbox.wait(
        "the PodGroup of big to record that it cannot run", lambda: _unschedulable(sandbox, "big"), timeout=120
    )
    sandbox.settle(5)
    assert sandbox.bound(VC_NS, app="big") == []
    assert group["status"]["phase"] in ("Pending", "Inqueue")
    reasons = [c for c in group["status"]["conditions"] if c["type"] == "Unschedulable"]
    assert reasons and "64" in reasons[-1]["message"]


def _unschedulable(sb, job_name: str):
    for group in sb.kube.list("scheduling.volcano.sh/v1beta1", "PodGroup", VC_NS):
        owners = [o["name"] for o in group["metadata"].get("ownerReferences", [])]
        conds = group.get("status", {}).get("conditions", [])
        if job_name in owners and any(c["type"] == "Unschedulable" for c in conds):
            return group
    return None


def test_two_512_gpu_jobs_on_800_gpus_both_half_bind_under_the_default_scheduler(sandbox):
    for index in range(64):
        for gang in ("a", "b"):
            sandbox.create(_rank(gang, index))
    sandbox.wait("100 pods bound", lambda: len(sandbox.bound(SCRATCH)) == 100, timeout=240)
    sandbox.settle(5)
    bound = {name: len(sandbox.bound(SCRATCH, app=name)) for name in ("a", "b")}
    assert sum(bound.values()) == 100
    assert all(n < 64 for n in bound.values()), f"one job started whole: {bound}"
    assert all(n > 0 for n in bound.values()), bound


def test_under_volcano_one_512_gpu_job_runs_whole_and_the_other_holds_nothing(sandbox):
    for name in ("a", "b"):
        sandbox.apply(vcjob(name, VC_NS, pods=64, queue="research", node_selector={"gpufleet.dev/pool": "p100"}))
    sandbox.wait(
        "one gang bound whole", lambda: 64 in {len(sandbox.bound(VC_NS, app=n)) for n in ("a", "b")}, timeout=240
    )
    sandbox.settle(8)
    bound = sorted(len(sandbox.bound(VC_NS, app=n)) for n in ("a", "b"))
    assert bound == [0, 64]
