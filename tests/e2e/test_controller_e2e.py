"""The gang-admission controller called by the real API server (dev stack, real Kueue and Volcano).

- a Volcano Job with its routing stripped (no queue, scheduler, minAvailable or
  restart policy) is defaulted by the controller and runs as one gang;
- an unsafe gang (minAvailable below its replicas) is refused, the finding in the
  API server's answer;
- with the controller down, ``failurePolicy: Fail`` blocks workloads in team
  namespaces only: other namespaces go on.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kubernetes.client.exceptions import ApiException

from gpufleet.sandbox.procs import stop
from tests.e2e.sandbox_env import VC_API, job, running, vcjob

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    with running(ROOT / "stacks" / "dev.fleet.yaml", tmp_path_factory.mktemp("controller")) as sb:
        yield sb


def _stripped(name: str) -> dict:
    body = vcjob(name, "alpha-vc", pods=2, gpus=2)
    for key in ("schedulerName", "minAvailable", "policies"):
        body["spec"].pop(key, None)
    body["spec"]["tasks"][0]["template"]["spec"].pop("restartPolicy")
    return body


def test_a_volcano_job_with_its_routing_stripped_is_defaulted_and_runs_as_one_gang(sandbox):
    sandbox.create(_stripped("stripped"))
    created = sandbox.get(VC_API, "Job", "stripped", "alpha-vc")
    spec = created["spec"]
    assert spec["queue"] == "alpha"
    assert spec["schedulerName"] == "volcano"
    assert spec["minAvailable"] == 2
    assert {(p["event"], p["action"]) for p in spec["policies"]} >= {
        ("PodEvicted", "RestartJob"),
        ("PodFailed", "RestartJob"),
    }
    sandbox.wait("both ranks bound together", lambda: len(sandbox.bound("alpha-vc", app="stripped")) == 2, timeout=120)
    sandbox.kube.delete(VC_API, "Job", "stripped", "alpha-vc")


def test_an_unsafe_gang_is_refused_with_the_finding_in_the_api_servers_answer(sandbox):
    unsafe = vcjob("partial", "alpha-vc", pods=2, gpus=2, queue="alpha", min_available=1)
    with pytest.raises(ApiException) as refused:
        sandbox.create(unsafe)
    assert refused.value.status in (400, 403, 422)
    assert "GANG001" in refused.value.body
    assert sandbox.get(VC_API, "Job", "partial", "alpha-vc") is None


def test_a_gang_that_can_never_fit_its_pool_is_refused_before_it_holds_anything(sandbox):
    too_big = vcjob("too-big", "alpha-vc", pods=3, gpus=4, queue="alpha")  # 12 GPUs; the t4 pool holds 2 x 4
    with pytest.raises(ApiException) as refused:
        sandbox.create(too_big)
    assert "GANG403" in refused.value.body
    assert sandbox.pods("alpha-vc", app="too-big") == []


def test_with_the_controller_down_fail_closed_blocks_team_namespaces_only(sandbox):
    controller = next(p for p in sandbox.state.processes if p.name == "gang-admission-controller")
    stop(controller)
    with pytest.raises(ApiException) as blocked:
        sandbox.create(job("blocked", "alpha", pods=1, labels={"kueue.x-k8s.io/queue-name": "alpha"}))
    assert "gpufleet.dev" in blocked.value.body  # the webhook's name in "failed calling webhook ..."
    sandbox.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "elsewhere"}})
    sandbox.create(job("free", "elsewhere", pods=1, gpus=0))
    assert sandbox.get("batch/v1", "Job", "free", "elsewhere") is not None
