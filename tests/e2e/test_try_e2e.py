"""``gpufleet try`` on the real engines: the dev stack without the controller, one sandbox, many trials.

Every case goes through :func:`gpufleet.sandbox.trial.try_manifests` on the same
running sandbox (each trial deletes its objects and waits for their pods to go), and
asserts what the real Kubernetes, Kueue and Volcano did with it:

- the issue's Volcano Job, two 2-GPU workers and a launcher that ``dependsOn`` them:
  ``minAvailable: 2`` runs whole (workers, then the launcher); ``minAvailable: 3``
  never binds a pod (the PodGroup says why);
- Volcano's own webhook refuses ``minAvailable`` above the job's pods;
- in the Kueue team namespace ``alpha``: a Job naming a LocalQueue that does not
  exist, and a Job beyond the team's quota and borrowing limit, are never admitted,
  with Kueue's reason; a Job without a queue label is held by Kueue (the stack sets
  ``manageJobsWithoutQueueName``);
- ``--fail-rank``: a Volcano Job with ``PodFailed: RestartJob`` restarts whole; a plain
  Indexed Job (``restartPolicy: Never``, default ``backoffLimit``) replaces the failed
  rank alone;
- under the default scheduler, a Job larger than its pool is partly bound (the essay),
  a suspended Job and a gated Pod are gated, a Job naming a missing PriorityClass is
  never admitted (the Job controller's ``FailedCreate``);
- the CLI itself, reusing this sandbox (``--dir``), exits 0 for a gang that runs whole
  and 1 for one that does not, and leaves the sandbox running.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from gpufleet.kubetypes.vocab import QUEUE_LABEL as QUEUE
from gpufleet.sandbox.trial import TrialOptions, try_manifests
from gpufleet.sandbox.up import Options
from tests.e2e.sandbox_env import VC_API, job, launcher_job, vcjob
from tests.e2e.sandbox_pool import pool_key

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev.fleet.yaml"
SCRATCH = "scratch"  # in no team: the default scheduler alone
FAST = TrialOptions(timeout=120, settle=10)


POOL = pool_key(DEV, Options(controller=False))


@pytest.fixture(scope="module")
def sandbox(sandbox_pool):
    with sandbox_pool.lease(DEV, Options(controller=False)) as sb:
        sb.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": SCRATCH}})
        yield sb


def test_the_issues_launcher_job_with_min_available_2_runs_whole(sandbox):
    result = try_manifests(sandbox.kube, [launcher_job("launch2", 2)], FAST)
    assert result.outcome == "ranWhole", result.as_dict()
    assert result.expected_ranks == 3 and result.verdict.running == 3
    assert result.seconds_to_whole is not None and result.ok


def test_the_issues_launcher_job_with_min_available_3_never_binds_a_pod(sandbox):
    result = try_manifests(sandbox.kube, [launcher_job("launch3", 3)], FAST)
    doc = result.as_dict()
    assert result.outcome == "neverAdmitted", doc
    assert (doc["running"], doc["bound"], doc["gpusHeld"]) == (0, 0, 0)
    assert any("3 minAvailable" in r for r in doc["reasons"]), doc["reasons"]


def test_volcanos_webhook_refuses_min_available_above_the_jobs_pods(sandbox):
    result = try_manifests(
        sandbox.kube, [vcjob("over", "alpha-vc", pods=2, gpus=2, queue="alpha", min_available=3)], FAST
    )
    assert result.outcome == "refused", result.as_dict()
    assert "volcano" in result.refused_by and "minAvailable" in result.message


def test_a_job_naming_a_local_queue_that_does_not_exist_is_never_admitted_and_kueue_says_why(sandbox):
    result = try_manifests(sandbox.kube, [job("lost", "alpha", pods=2, labels={QUEUE: "no-such-queue"})], FAST)
    assert result.outcome == "neverAdmitted", result.as_dict()
    assert any("no-such-queue" in r for r in result.verdict.reasons), result.verdict.reasons


def test_a_job_beyond_the_teams_quota_and_borrowing_limit_is_never_admitted(sandbox):
    # 4 x 8 = 32 GPUs: alpha has 16 nominal and may borrow 8 on l4
    result = try_manifests(sandbox.kube, [job("huge", "alpha", pods=4, labels={QUEUE: "alpha"})], FAST)
    assert result.outcome == "neverAdmitted", result.as_dict()
    assert any("quota" in r.lower() for r in result.verdict.reasons), result.verdict.reasons


def test_a_job_that_fits_the_teams_quota_runs_whole_through_kueue(sandbox):
    result = try_manifests(sandbox.kube, [job("fits", "alpha", pods=2, labels={QUEUE: "alpha"})], FAST)
    assert result.outcome == "ranWhole", result.as_dict()


def test_a_job_without_a_queue_label_in_a_kueue_namespace_is_held_by_kueue(sandbox):
    result = try_manifests(sandbox.kube, [job("unlabelled", "alpha", pods=2)], FAST)
    doc = result.as_dict()
    assert result.outcome in ("neverAdmitted", "gated"), doc  # which one, and Kueue's words, go in docs/sandbox.md
    assert doc["bound"] == 0 and doc["reasons"], doc


def test_a_failed_rank_of_a_volcano_job_with_restart_job_restarts_the_whole_gang(sandbox):
    body = vcjob("restarts", "alpha-vc", pods=2, gpus=2, queue="alpha")
    body["spec"]["policies"] = [{"event": "PodFailed", "action": "RestartJob"}]
    result = try_manifests(sandbox.kube, [body], TrialOptions(timeout=120, settle=10, fail_rank=1))
    assert result.outcome == "restartedWhole", result.as_dict()
    assert result.failed_pod and result.ok


def test_a_failed_rank_of_a_plain_indexed_job_is_replaced_alone(sandbox):
    body = job("alone", SCRATCH, pods=3, node_selector={"gpufleet.dev/pool": "l4"})
    body["spec"].pop("backoffLimit")  # the default, 6
    result = try_manifests(sandbox.kube, [body], TrialOptions(timeout=120, settle=10, fail_rank=0))
    assert result.outcome == "rankReplacedAlone", result.as_dict()
    assert not result.ok


def test_a_job_larger_than_its_pool_under_the_default_scheduler_is_partly_bound_holding_gpus(sandbox):
    # 5 x 8 GPUs on the l4 pool's 4 nodes of 8: the essay's partial binding
    result = try_manifests(
        sandbox.kube, [job("essay", SCRATCH, pods=5, node_selector={"gpufleet.dev/pool": "l4"})], FAST
    )
    doc = result.as_dict()
    assert result.outcome == "partlyBound", doc
    assert (doc["running"], doc["pending"], doc["gpusHeld"]) == (4, 1, 32)
    assert any("Insufficient nvidia.com/gpu" in r for r in doc["reasons"]), doc["reasons"]


@pytest.mark.parametrize(
    "body",
    [
        job("parked", SCRATCH, pods=2, suspend=True),
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "waiting", "namespace": SCRATCH},
            "spec": {
                **job("w", SCRATCH, pods=1)["spec"]["template"]["spec"],
                "schedulingGates": [{"name": "example.com/hold"}],
            },
        },
    ],
    ids=["a suspended job nothing unsuspends", "a pod with a scheduling gate nobody lifts"],
)
def test_a_gang_held_by_a_suspension_or_a_gate_is_gated(sandbox, body):
    result = try_manifests(sandbox.kube, [body], FAST)
    assert result.outcome == "gated", result.as_dict()


def test_a_job_naming_a_missing_priority_class_is_never_admitted_with_the_api_servers_reason(sandbox):
    body = job("unprioritised", SCRATCH, pods=2)
    body["spec"]["template"]["spec"]["priorityClassName"] = "no-such-class"
    result = try_manifests(sandbox.kube, [body], FAST)
    assert result.outcome == "neverAdmitted", result.as_dict()
    assert any("no-such-class" in r for r in result.verdict.reasons), result.verdict.reasons


def gpufleet_try(sandbox, path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "gpufleet",
            "try",
            str(DEV),
            str(path),
            "--dir",
            str(sandbox.state.dir),
            "--no-controller",
            "--timeout",
            "120",
            "--format",
            "json",
            *extra,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=400,
    )


@pytest.mark.parametrize("min_available, code, outcome", [(2, 0, "ranWhole"), (3, 1, "neverAdmitted")])
def test_the_cli_reuses_the_running_sandbox_and_exits_by_the_outcome(sandbox, tmp_path, min_available, code, outcome):
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(launcher_job(f"cli{min_available}", min_available)))
    done = gpufleet_try(sandbox, path)
    assert done.returncode == code, done.stderr
    doc = json.loads(done.stdout)
    assert doc["outcome"] == outcome and doc["sandbox"]["reused"] is True
    schema = json.loads((ROOT / "docs" / "schemas" / "try.schema.json").read_text())
    assert not list(jsonschema.Draft202012Validator(schema).iter_errors(doc)), doc
    assert sandbox.kube.get(VC_API, "Job", f"cli{min_available}", "alpha-vc") is None  # cleaned for the next trial
