"""Static partitioning and the coscheduling pool of the mixed stack, on the real engines.

- the ``vault`` pool is dedicated to team ``secure``: its jobs land there, and another
  team's job aimed at it (tolerating the taint, selecting the pool) is refused by the
  gang-admission controller (GANG807) before any engine sees it; a bare Pod that
  tolerates the pool's NoExecute taint, which the controller never sees, is refused by
  the rendered ValidatingAdmissionPolicy, evaluated by the real API server;
- the ``l40s`` pool runs the scheduler-plugins Coscheduling scheduler: a gang that fits
  binds whole; with one node taken, the same gang (one rank more than the free nodes)
  binds none. (A gang larger than the whole pool never reaches the scheduler: GANG403.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kubernetes.client.exceptions import ApiException

from gpufleet.advise.podgroups import render_pod_groups
from gpufleet.model import load_model
from tests.e2e.sandbox_env import job, running

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "stacks" / "mixed.fleet.yaml"
VAULT = {"gpufleet.dev/pool": "vault"}
EVERYTHING = [{"operator": "Exists"}]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    with running(MODEL, tmp_path_factory.mktemp("partition")) as sb:
        yield sb


def _nodes_of(sb, namespace: str, app: str) -> set[str]:
    return {p["spec"]["nodeName"] for p in sb.bound(namespace, app=app)}


def test_the_dedicated_teams_job_lands_on_its_pool(sandbox):
    sandbox.create(job("secure-train", "secure", pods=2, labels={"kueue.x-k8s.io/queue-name": "secure"}))
    sandbox.wait("secure's two ranks bound", lambda: len(sandbox.bound("secure", app="secure-train")) == 2, timeout=120)
    assert all(n.startswith("vault-") for n in _nodes_of(sandbox, "secure", "secure-train"))


def test_another_teams_job_aimed_at_the_dedicated_pool_is_refused(sandbox):
    intruder = job(
        "intruder",
        "llm",
        pods=1,
        labels={"kueue.x-k8s.io/queue-name": "llm"},
        node_selector=VAULT,
        tolerations=EVERYTHING,
    )
    with pytest.raises(ApiException) as refused:
        sandbox.create(intruder)
    assert "GANG807" in refused.value.body
    assert sandbox.get("batch/v1", "Job", "intruder", "llm") is None


def _tolerating_pod(namespace: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "squatter", "namespace": namespace},
        "spec": {
            "containers": [{"name": "c", "image": "x"}],
            "nodeSelector": VAULT,
            "tolerations": [{"key": "gpufleet.dev/dedicated", "operator": "Exists", "effect": "NoExecute"}],
        },
    }


def test_a_pod_tolerating_the_dedicated_taint_outside_its_team_is_refused_by_the_api_servers_own_policy(sandbox):
    with pytest.raises(ApiException) as refused:
        sandbox.create(_tolerating_pod("llm"))
    assert refused.value.status in (403, 422) and "ValidatingAdmissionPolicy" in refused.value.body
    assert sandbox.get("v1", "Pod", "squatter", "llm") is None
    sandbox.create(_tolerating_pod("secure"))  # the owning team's own namespace: allowed
    sandbox.kube.delete("v1", "Pod", "squatter", "secure")


def _gang(name: str, ranks: int) -> dict:
    body = job(name, "robotics", pods=ranks, gpus=4, tolerations=[])
    body["spec"]["template"]["spec"].pop("tolerations")
    return body


@pytest.mark.parametrize("taken, bound", [(0, 4), (1, 0)], ids=["fits-binds-whole", "one-rank-too-many-binds-none"])
def test_a_coscheduling_gang_binds_all_or_nothing(sandbox, taken, bound):
    ranks, name = 4, f"cos-{taken}"
    fleet = load_model(MODEL)
    if taken:
        sandbox.create(job("single", "robotics", pods=1, gpus=4, tolerations=[]))
        sandbox.wait("one l40s node taken", lambda: len(sandbox.bound("robotics", app="single")) == 1, timeout=120)
    manifest = _gang(name, ranks)
    for group in render_pod_groups(fleet, [manifest]):
        sandbox.apply(group)
    sandbox.create(manifest)
    sandbox.wait(f"{ranks} pods of {name}", lambda: len(sandbox.pods("robotics", app=name)) == ranks, timeout=120)
    if bound:
        sandbox.wait(f"{name} bound whole", lambda: len(sandbox.bound("robotics", app=name)) == bound, timeout=120)
    else:
        sandbox.settle(15)
    assert len(sandbox.bound("robotics", app=name)) == bound
    assert all(n.startswith("l40s-") for n in _nodes_of(sandbox, "robotics", name))
    for gone in (name, "single"):
        sandbox.kube.delete("batch/v1", "Job", gone, "robotics")
    sandbox.wait("robotics' pods gone", lambda: not sandbox.pods("robotics"), timeout=120)
