"""The gang contract's JobSet reader against the real JobSet v0.12.0 controller and webhooks (the dev stack's sandbox).

For each shape the contract is read first (what gpufleet predicts), then the JobSet is tried on the
sandbox (:func:`gpufleet.sandbox.trial.try_manifests`), and the two are compared field by field:

- the pods that exist when the gang first runs whole: the contract's ranks at start;
- the admission unit: Kueue admits one Workload for the whole JobSet (``admission.by == kueue``, ``whole``);
- the reaction to one failed rank: a failed pod is a pod-level failure, so the kubelet's in-place
  restart (``restartPolicy: OnFailure``, which JobSet's webhook defaults) is not what the trial shows;
  the first step of the failure path after the kubelet's decides: ``pod`` (the child Job replaces it)
  is ``rankReplacedAlone``, ``whole`` (a ``RestartJobSet`` failure policy) ``restartedWhole``, ``stop``
  (no failure policy, child ``backoffLimit: 0``) ``stoppedWhole``.

A disagreement fails the test: the reader is fixed first. Needs the JobSet engine (``sandbox/engines/jobset``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.kubetypes.vocab import NVIDIA_GPU, QUEUE_LABEL
from gpufleet.model import load_model
from gpufleet.render.context import render_context
from gpufleet.sandbox.trial import TrialOptions, try_manifests
from gpufleet.sandbox.up import Options
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.contract.registry import Run, read
from gpufleet.workloads.contract.types import Contract

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev.fleet.yaml"
CONTEXT = FleetContext.from_dict(render_context(load_model(DEV)))
TRIAL = TrialOptions(timeout=120, settle=12, failure_settle=15)
SCOPE_OUTCOME = {"pod": O.RANK_REPLACED_ALONE, "whole": O.RESTARTED_WHOLE, "stop": O.STOPPED_WHOLE}


@pytest.fixture(scope="module")
def sandbox(sandbox_pool):
    with sandbox_pool.lease(DEV, Options(controller=False)) as sb:
        yield sb


def jobset(name: str, replicas: int, parallelism: int, backoff: int | None = None, failure: dict | None = None) -> dict:
    child: dict = {
        "parallelism": parallelism,
        "completions": parallelism,
        "template": {
            "spec": {
                "containers": [{"name": "trainer", "image": "trainer:1", "resources": {"limits": {NVIDIA_GPU: "1"}}}],
                "tolerations": [{"key": NVIDIA_GPU, "operator": "Exists", "effect": "NoSchedule"}],
            }
        },
    }
    if backoff is not None:
        child["backoffLimit"] = backoff
    spec: dict = {"replicatedJobs": [{"name": "workers", "replicas": replicas, "template": {"spec": child}}]}
    if failure is not None:
        spec["failurePolicy"] = failure
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": "alpha", "labels": {QUEUE_LABEL: "alpha"}},
        "spec": spec,
    }


def contract(obj: dict) -> Contract:
    return read(obj, Run((obj,), CONTEXT, CONTEXT.operators))


def after_kubelet(c: Contract) -> str:
    failure = c.on_rank_failure
    assert failure is not None
    steps = [s for s in failure.steps if s.layer != "kubelet"]
    return steps[0].scope


@pytest.mark.parametrize(
    "shape",
    [
        pytest.param(jobset("js-default", replicas=2, parallelism=2), id="defaults"),
        pytest.param(jobset("js-stop", replicas=2, parallelism=2, backoff=0), id="child-backoff-0"),
        pytest.param(
            jobset("js-restart", replicas=2, parallelism=2, backoff=0, failure={"maxRestarts": 2}),
            id="restart-jobset",
        ),
    ],
)
def test_the_jobset_reader_agrees_with_the_jobset_controller(sandbox, shape):
    predicted = contract(shape)
    assert predicted.known and predicted.admission.by == "kueue" and predicted.admission.unit == "whole"
    name = shape["metadata"]["name"]
    try:
        result = try_manifests(
            sandbox.kube, [shape], TrialOptions(**{**TRIAL.__dict__, "fail_rank": 0, "clean": False})
        )
        doc = result.as_dict()
        assert result.expected_ranks == predicted.ranks_at_start, doc
        assert result.failed_pod is not None, doc  # the gang ran whole first: every predicted pod existed at start
        assert result.outcome == SCOPE_OUTCOME[after_kubelet(predicted)], doc
        [workload] = [
            w
            for w in sandbox.workloads("alpha")
            if any(o["name"] == name for o in w["metadata"].get("ownerReferences", []))
        ]
        assert sum(p["count"] for p in workload["spec"]["podSets"]) == predicted.admission.minimum, workload["spec"]
    finally:
        sandbox.kube.delete("jobset.x-k8s.io/v1alpha2", "JobSet", name, "alpha")
        sandbox.wait(
            "the JobSet's pods to go",
            lambda: not sandbox.pods("alpha", **{"jobset.sigs.k8s.io/jobset-name": name}),
            timeout=120,
        )
