"""Issue 32, item 12 on the real Kueue: a pod set required on one host that no host can hold is never admitted.

Real Kueue v0.19.2 (topology-aware scheduling, on by default), kube-scheduler and KWOK nodes;
the gang-admission controller is not started. One Kueue pool of 4 nodes x 8 GPUs with
``topologyLevels: [topology.gpufleet.dev/rack, kubernetes.io/hostname]`` (the sandbox puts
the 4 nodes in one rack), team research with 32 GPUs of quota. A Job of 4 pods x 8 GPUs:

- ``kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname``: 32 GPUs on one
  8-GPU host. The Workload is never admitted (its QuotaReserved condition names the
  topology that does not fit the pods) though the quota is free; GANG405 reports it;
- the same Job required in one rack: admitted, and GANG405 says nothing.
"""

from __future__ import annotations

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.model.loader import load_model
from gpufleet.render.context import render_context
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from gpufleet.sandbox.up import Options
from tests.e2e.sandbox_env import condition, job, model, running
from tests.render.builders import pool, quota, team

QUEUE, REQUIRED = "kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/podset-required-topology"
LEVELS = ["topology.gpufleet.dev/rack", "kubernetes.io/hostname"]


@pytest.fixture(scope="module")
def data():
    return model(pools=[pool("tas", nodes=4, topologyLevels=LEVELS)], teams=[team("research", {"tas": quota(32)})])


@pytest.fixture(scope="module")
def sandbox(data, tmp_path_factory):
    with running(data, tmp_path_factory.mktemp("tas"), Options(controller=False)) as sb:
        yield sb


@pytest.fixture(scope="module")
def ctx(data, tmp_path_factory):
    import yaml

    path = tmp_path_factory.mktemp("tas-model") / "model.fleet.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return CheckContext(fleet=FleetContext.from_dict(render_context(load_model(path))))


def required(name: str, level: str) -> dict:
    obj = job(name, "research", pods=4, gpus=8, labels={QUEUE: "research"}, suspend=True)
    obj["spec"]["template"]["metadata"]["annotations"] = {REQUIRED: level}
    return obj


def test_a_pod_set_required_on_one_host_is_never_admitted_and_lint_says_gang405(sandbox, ctx):
    obj = required("one-host", "kubernetes.io/hostname")
    assert [f.code for f in engine.check_objects([obj], ctx, select=["GANG405"])] == ["GANG405"]
    sandbox.apply(obj)
    sandbox.wait(
        "Kueue to say why the workload is pending",
        lambda: "topology" in condition(sandbox.workload("research", "one-host"), "QuotaReserved").get("message", ""),
        timeout=120,
    )
    sandbox.settle(10)
    wl = sandbox.workload("research", "one-host")
    assert condition(wl, "Admitted").get("status") != "True"
    assert "fit" in condition(wl, "QuotaReserved")["message"]
    assert sandbox.bound("research", app="one-host") == []
    sandbox.kube.delete("batch/v1", "Job", "one-host", "research")
    sandbox.wait("the workload to go", lambda: sandbox.workload("research", "one-host") is None, timeout=60)


def test_the_same_pod_set_required_in_one_rack_is_admitted_and_lints_clean(sandbox, ctx):
    obj = required("one-rack", "topology.gpufleet.dev/rack")
    assert engine.check_objects([obj], ctx, select=["GANG405"]) == []
    sandbox.apply(obj)
    sandbox.wait(
        "the workload admitted",
        lambda: condition(sandbox.workload("research", "one-rack"), "Admitted").get("status") == "True",
        timeout=120,
    )
    sandbox.wait("the 4 pods bound", lambda: len(sandbox.bound("research", app="one-rack")) == 4, timeout=120)
