"""Team quota on the real Kueue v0.19.2: suspension beyond quota, borrowing, reclaim, waitForPodsReady.

Two teams share a 32-GPU pool in one cohort (16 nominal each; alpha may borrow 8).
Kueue runs with the Configuration the stack renders; only ``waitForPodsReady.timeout``
is lowered to 20 s (``gpufleet sandbox up --pods-ready-timeout``) so the eviction path
is seen in a test, and the model's backoff is 1 s with one requeue.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from gpufleet.kubetypes import quantity
from gpufleet.sandbox.up import Options
from gpufleet.workloads.resources import pod_requests
from tests.e2e.sandbox_env import job, model, running
from tests.render.builders import pool, quota, team

QUEUE = "kueue.x-k8s.io/queue-name"


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    data = model(
        pools=[pool("l4", nodes=4)],
        teams=[team("alpha", {"l4": quota(16, 8)}), team("beta", {"l4": quota(16, 16)})],
        admission={
            "waitForPodsReady": {
                "timeout": "10m",
                "requeuingStrategy": {"backoffLimitCount": 1, "backoffBaseSeconds": 1, "backoffMaxSeconds": 2},
            }
        },
    )
    with running(data, tmp_path_factory.mktemp("kueue"), Options(pods_ready_timeout="20s")) as sb:
        yield sb


def _job(name: str, ns: str, pods: int, **kw) -> dict:
    return job(name, ns, pods, labels={QUEUE: ns}, suspend=True, **kw)


def _workload(sb, ns: str, job_name: str) -> dict | None:
    for wl in sb.workloads(ns):
        if any(o["name"] == job_name for o in wl["metadata"].get("ownerReferences", [])):
            return wl
    return None


def _condition(wl: dict | None, kind: str) -> dict | None:
    for c in (wl or {}).get("status", {}).get("conditions", []):
        if c["type"] == kind:
            return c
    return None


def _admitted(sb, ns: str, name: str) -> bool:
    return (_condition(_workload(sb, ns, name), "Admitted") or {}).get("status") == "True"


def _suspended(sb, ns: str, name: str) -> bool:
    return bool(sb.get("batch/v1", "Job", name, ns)["spec"].get("suspend"))


def _clean(sb, *namespaces: str) -> None:
    for ns in namespaces:
        for j in sb.kube.list("batch/v1", "Job", ns):
            sb.kube.delete("batch/v1", "Job", j["metadata"]["name"], ns)
    sb.wait(
        "the jobs' pods and workloads to go",
        lambda: not any(sb.pods(ns) or sb.workloads(ns) for ns in namespaces),
        timeout=120,
    )


def test_the_gang_admission_controller_refuses_a_job_beyond_its_teams_quota_and_borrowing_limit(sandbox):
    with pytest.raises(Exception, match="GANG406 gang-exceeds-quota"):
        sandbox.apply(_job("too-big", "alpha", pods=4))  # 32 GPUs > 16 nominal + 8 borrowable: never admitted
    assert sandbox.get("batch/v1", "Job", "too-big", "alpha") is None


def test_a_job_beyond_its_teams_quota_and_borrowing_limit_stays_suspended(sandbox):
    too_big = _job("too-big", "alpha", pods=4)  # 32 GPUs > 16 nominal + 8 borrowable
    too_big["metadata"]["annotations"] = {"waive.gpufleet.dev/GANG406": "this test checks Kueue's own handling"}
    sandbox.apply(too_big)
    wl = sandbox.wait("the Workload of too-big", lambda: _workload(sandbox, "alpha", "too-big"))
    sandbox.settle(8)
    assert _suspended(sandbox, "alpha", "too-big")
    assert not _admitted(sandbox, "alpha", "too-big")
    assert sandbox.pods("alpha") == []
    wl = _workload(sandbox, "alpha", "too-big")
    assert (_condition(wl, "QuotaReserved") or {}).get("status") != "True"
    _clean(sandbox, "alpha")


def test_a_team_borrows_idle_quota_within_its_limit_and_the_lender_reclaims_it(sandbox):
    sandbox.apply(_job("borrower", "alpha", pods=3))  # 24 GPUs: 16 nominal + 8 borrowed from idle beta
    sandbox.wait("borrower admitted", lambda: _admitted(sandbox, "alpha", "borrower"))
    sandbox.wait("3 borrower pods bound", lambda: len(sandbox.bound("alpha", app="borrower")) == 3)
    sandbox.apply(_job("lender", "beta", pods=2))  # 16 GPUs, beta's nominal: only 8 are free
    sandbox.wait("lender admitted", lambda: _admitted(sandbox, "beta", "lender"), timeout=120)
    evicted = _condition(_workload(sandbox, "alpha", "borrower"), "Evicted")
    preempted = _condition(_workload(sandbox, "alpha", "borrower"), "Preempted")
    assert (preempted or evicted) is not None
    assert "Preempted" in {(evicted or {}).get("reason"), (preempted or {}).get("status") == "True" and "Preempted"}
    sandbox.wait("2 lender pods bound", lambda: len(sandbox.bound("beta", app="lender")) == 2, timeout=120)
    assert _suspended(sandbox, "alpha", "borrower")
    _clean(sandbox, "alpha", "beta")


def test_kueue_charges_a_pod_with_a_sidecar_what_gpufleet_computes_for_it(sandbox):
    # Issue 36: gpufleet had two pod-request sums; the one GANG003 and advise used took a sidecar (an init
    # container with restartPolicy: Always) as a plain init container, 1.5 cpu here instead of 2.5.
    body = _job("sidecar", "alpha", pods=1, gpus=2)
    spec = body["spec"]["template"]["spec"]
    spec["initContainers"] = [
        {"name": "proxy", "image": "proxy:1", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
        {"name": "warmup", "image": "warmup:1", "resources": {"requests": {"cpu": "1500m"}}},
    ]
    sandbox.apply(body)
    sandbox.wait("sidecar admitted", lambda: _admitted(sandbox, "alpha", "sidecar"))
    assignment = _workload(sandbox, "alpha", "sidecar")["status"]["admission"]["podSetAssignments"][0]
    charged = {name: quantity.parse(value) for name, value in assignment["resourceUsage"].items()}
    ours = pod_requests(spec)
    assert charged["cpu"] == ours["cpu"] == Decimal("2.5")  # max(1 + 1 sidecar, 1 sidecar + 1.5 warmup)
    assert charged["nvidia.com/gpu"] == ours["nvidia.com/gpu"] == 2
    _clean(sandbox, "alpha")


def test_wait_for_pods_ready_evicts_a_gang_that_cannot_start_and_stops_after_the_backoff_limit(sandbox):
    # Admitted by quota, but no node has this label: the pods never become ready.
    sandbox.apply(_job("stuck", "alpha", pods=2, node_selector={"gpufleet.dev/sandbox-pool": "nowhere"}))
    sandbox.wait("stuck admitted", lambda: _admitted(sandbox, "alpha", "stuck"))
    evicted = sandbox.wait(
        "stuck evicted for PodsReadyTimeout",
        lambda: (
            (_condition(_workload(sandbox, "alpha", "stuck"), "Evicted") or {}).get("reason") == "PodsReadyTimeout"
            and _workload(sandbox, "alpha", "stuck")
        ),
        timeout=90,
    )
    assert _condition(evicted, "Evicted")["status"] in ("True", "False")
    final = sandbox.wait(
        "stuck deactivated after backoffLimitCount requeues",
        lambda: (
            (_workload(sandbox, "alpha", "stuck") or {}).get("spec", {}).get("active") is False
            and _workload(sandbox, "alpha", "stuck")
        ),
        timeout=150,
    )
    evictions = {(e["reason"], e.get("underlyingCause")) for e in final["status"]["schedulingStats"]["evictions"]}
    assert ("Deactivated", "RequeuingLimitExceeded") in evictions
    assert any(reason == "PodsReadyTimeout" for reason, _ in evictions)
    sandbox.wait("stuck suspended", lambda: _suspended(sandbox, "alpha", "stuck"))
    _clean(sandbox, "alpha")
