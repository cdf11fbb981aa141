"""Kubernetes' own gang scheduling on the real kube-scheduler v1.37.2 (issue 38), KWOK nodes of 8 GPUs.

One sandbox with ``Options(native_gang=True)``: ``GenericWorkload`` (beta, off by default at 1.37) and
``WorkloadWithJob`` (alpha) on in every component, ``scheduling.k8s.io/v1beta1`` served
(``gpufleet.sandbox.gates``). What v1.37.2 does, as these cases show:

- the Job controller gives every new Job a ``Workload`` and a ``PodGroup``, but a *basic* one unless the Job
  asks for a gang in ``spec.scheduling.schedulingPolicy.gang``: the essay's plain Indexed 64 x 8-GPU Job on 50
  free nodes binds 50 and leaves 14 Pending with the gates on as with them off (the gates-off run is
  tests/e2e/test_essay_e2e.py, on the same 1.37.2 build); v1.36.0's automatic gang for an Indexed Job with
  parallelism = completions > 1 is gone;
- the same Job with ``spec.scheduling.schedulingPolicy.gang: {}`` (minCount defaults to parallelism) binds none,
  and its PodGroup's ``PodGroupInitiallyScheduled`` condition says why;
- two 64-rank gangs (standalone PodGroups, their ranks created interleaved as two launchers would) on 100
  free nodes: one bound whole, the other none bound, nothing held;
- a Job Kueue v0.19.2 admits (suspended at creation, its quota 512 GPUs) is placed whole by the gang;
- Jobs that are not gangs (non-Indexed, parallelism != completions, no ``spec.scheduling``) bind pod by pod.

Sizes are the essay's (50 and 100 nodes, 64 ranks). The gang-admission controller is not started: this is
the engines without gpufleet.
"""

from __future__ import annotations

import pytest

from gpufleet.sandbox.up import Options
from tests.e2e.sandbox_env import job, model, running
from tests.render.builders import pool, quota, team

SCRATCH = "scratch"  # not a team namespace: Kueue leaves its Jobs alone
TEAM = "research"
QUEUE = "kueue.x-k8s.io/queue-name"
SCHED = "scheduling.k8s.io/v1beta1"
P50, P100 = {"gpufleet.dev/pool": "p50"}, {"gpufleet.dev/pool": "p100"}


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    data = model(pools=[pool("p50", nodes=50), pool("p100", nodes=100)], teams=[team(TEAM, {"p100": quota(512)})])
    with running(data, tmp_path_factory.mktemp("native"), Options(controller=False, native_gang=True)) as sb:
        sb.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": SCRATCH}})
        yield sb


@pytest.fixture(autouse=True)
def clean(sandbox):
    """Each case starts on free nodes, whatever the last one left."""
    yield
    for ns in (SCRATCH, TEAM):
        for api_version, kind in (("batch/v1", "Job"), ("v1", "Pod"), (SCHED, "PodGroup"), (SCHED, "Workload")):
            for obj in sandbox.kube.list(api_version, kind, ns):
                sandbox.kube.delete(api_version, kind, obj["metadata"]["name"], ns)
    sandbox.wait("no pods left", lambda: not sandbox.pods(SCRATCH) and not sandbox.pods(TEAM), timeout=180)


def gang(body: dict) -> dict:
    """Ask the Job controller for a gang PodGroup (minCount defaults to the Job's parallelism)."""
    body["spec"]["scheduling"] = {"schedulingPolicy": {"gang": {}}}
    return body


def _group_of(sb, ns: str, job_name: str) -> dict | None:
    """The PodGroup the Job controller made for ``job_name`` (its controller owner)."""
    for group in sb.kube.list(SCHED, "PodGroup", ns):
        if any(o["name"] == job_name and o.get("controller") for o in group["metadata"].get("ownerReferences", [])):
            return group
    return None


def _condition(group: dict | None, kind: str) -> dict | None:
    return next((c for c in (group or {}).get("status", {}).get("conditions", []) if c["type"] == kind), None)


def test_a_plain_indexed_job_gets_a_basic_podgroup_and_binds_50_of_64(sandbox):
    sandbox.apply(job("big", SCRATCH, pods=64, node_selector=P50))
    sandbox.wait("64 pods of job big", lambda: len(sandbox.pods(SCRATCH, app="big")) == 64, timeout=180)
    sandbox.wait("50 pods bound", lambda: len(sandbox.bound(SCRATCH, app="big")) == 50, timeout=120)
    sandbox.settle(5)
    assert len(sandbox.bound(SCRATCH, app="big")) == 50
    group = _group_of(sandbox, SCRATCH, "big")
    assert group is not None and "basic" in group["spec"]["schedulingPolicy"]
    assert {p["spec"]["schedulingGroup"]["podGroupName"] for p in sandbox.pods(SCRATCH, app="big")} == {
        group["metadata"]["name"]
    }


def test_the_same_job_as_a_gang_binds_none_and_its_podgroup_says_why(sandbox):
    sandbox.apply(gang(job("big", SCRATCH, pods=64, node_selector=P50)))
    sandbox.wait("64 pods of job big", lambda: len(sandbox.pods(SCRATCH, app="big")) == 64, timeout=180)
    cond = sandbox.wait(
        "the PodGroup of big to record that it cannot be scheduled",
        lambda: _condition(_group_of(sandbox, SCRATCH, "big"), "PodGroupInitiallyScheduled"),
        timeout=120,
    )
    sandbox.settle(5)
    assert sandbox.bound(SCRATCH, app="big") == []
    group = _group_of(sandbox, SCRATCH, "big")
    assert group["spec"]["schedulingPolicy"]["gang"]["minCount"] == 64
    assert (cond["status"], cond["reason"]) == ("False", "Unschedulable")
    assert cond["message"]


def _podgroup(name: str, min_count: int) -> dict:
    return {
        "apiVersion": SCHED,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": SCRATCH},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


def _rank(group: str, index: int) -> dict:
    spec = job(group, SCRATCH, pods=1, node_selector=P100)["spec"]["template"]["spec"]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"{group}-{index}", "namespace": SCRATCH, "labels": {"app": group}},
        "spec": {**spec, "schedulingGroup": {"podGroupName": group}},
    }


def test_two_interleaved_64_rank_gangs_on_100_nodes_one_runs_whole_the_other_holds_nothing(sandbox):
    for name in ("a", "b"):
        sandbox.apply(_podgroup(name, 64))
    for i in range(64):
        for name in ("a", "b"):
            sandbox.create(_rank(name, i))
    sandbox.wait(
        "one gang bound whole",
        lambda: 64 in (len(sandbox.bound(SCRATCH, app="a")), len(sandbox.bound(SCRATCH, app="b"))),
        timeout=180,
    )
    sandbox.settle(10)
    bound = sorted(len(sandbox.bound(SCRATCH, app=name)) for name in ("a", "b"))
    assert bound == [0, 64]
    waiting = next(n for n in ("a", "b") if not sandbox.bound(SCRATCH, app=n))
    cond = _condition(sandbox.get(SCHED, "PodGroup", waiting, SCRATCH), "PodGroupInitiallyScheduled")
    assert cond and (cond["status"], cond["reason"]) == ("False", "Unschedulable")


def test_kueue_admits_a_gang_job_and_the_native_gang_places_it_whole(sandbox):
    sandbox.apply(gang(job("train", TEAM, pods=64, labels={QUEUE: TEAM}, suspend=True, node_selector=P100)))
    sandbox.wait(
        "Kueue to unsuspend train",
        lambda: not sandbox.get("batch/v1", "Job", "train", TEAM)["spec"].get("suspend"),
        timeout=120,
    )
    sandbox.wait("64 ranks of train bound", lambda: len(sandbox.bound(TEAM, app="train")) == 64, timeout=180)
    group = _group_of(sandbox, TEAM, "train")
    assert group["spec"]["schedulingPolicy"]["gang"]["minCount"] == 64
    assert _condition(group, "PodGroupInitiallyScheduled")["status"] == "True"


@pytest.mark.parametrize("shape", [{"completionMode": "NonIndexed"}, {"completions": 128}])
def test_a_job_that_is_not_a_gang_binds_pod_by_pod(sandbox, shape):
    body = job("odd", SCRATCH, pods=64, node_selector=P50)
    body["spec"].update(shape)
    sandbox.apply(body)
    sandbox.wait("50 pods bound", lambda: len(sandbox.bound(SCRATCH, app="odd")) == 50, timeout=180)
    sandbox.settle(5)
    assert len(sandbox.bound(SCRATCH, app="odd")) == 50
    assert len(sandbox.pods(SCRATCH, app="odd")) == 64
