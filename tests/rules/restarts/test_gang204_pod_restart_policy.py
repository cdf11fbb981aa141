"""GANG204: gang pods must not restart in place."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG204"


@pytest.mark.parametrize("policy, flagged", [("Never", False), ("OnFailure", True), ("Always", True), (None, True)])
def test_volcano_task_templates_must_use_never(policy, flagged):
    job = b.volcano_job(tasks=[b.task(restart_policy=policy)])
    assert paths(CODE, job) == (["spec.tasks[0].template.spec.restartPolicy"] if flagged else [])


@pytest.mark.parametrize(
    "obj, expected",
    [
        (
            b.batch_job(parallelism=4, restart_policy="OnFailure", gpus=1, backoff_limit=0),
            ["spec.template.spec.restartPolicy"],
        ),
        (b.batch_job(parallelism=4, restart_policy="OnFailure", cpu="2"), []),
        (b.batch_job(parallelism=1, restart_policy="OnFailure"), []),
        (b.pod(restart_policy="Always"), []),
        (b.pod(group="g", total=1, restart_policy="Always"), ["spec.restartPolicy"]),
        (b.pytorch_job(restart_policy="Never", **{}), []),
    ],
)
def test_only_gang_members_are_checked(obj, expected):
    assert paths(CODE, obj) == expected


@pytest.mark.parametrize("backoff, flagged", [(0, False), (None, True), (2, True)])
def test_jobset_child_jobs_must_not_replace_pods_on_their_own(backoff, flagged):
    js = b.jobset(replicated_jobs=[b.replicated_job(backoff_limit=backoff)])
    assert paths(CODE, js) == (["spec.replicatedJobs[0].template.spec.backoffLimit"] if flagged else [])


def test_the_message_names_the_default_of_an_unset_policy():
    from gpufleet.rules import engine

    js = b.jobset(replicated_jobs=[b.replicated_job(restart_policy=None)])
    (finding,) = engine.check_object(js, select=[CODE])
    assert "OnFailure" in finding.message


def test_remediation_sets_never_and_zero_backoff():
    js = fixed(CODE, b.jobset(replicated_jobs=[b.replicated_job(restart_policy="OnFailure", backoff_limit=None)]))
    job_spec = js["spec"]["replicatedJobs"][0]["template"]["spec"]
    assert (job_spec["backoffLimit"], job_spec["template"]["spec"]["restartPolicy"]) == (0, "Never")


def test_a_runtimes_node_job_is_checked_and_fixed_at_its_runtime_paths_while_its_initializer_is_not():
    runtime = b.training_runtime(
        replicated_jobs=[
            b.replicated_job("initializer", replicas=None, parallelism=None, restart_policy=None, backoff_limit=None),
            b.replicated_job("node", replicas=None, parallelism=None, restart_policy="OnFailure", backoff_limit=None),
        ]
    )
    node = "spec.template.spec.replicatedJobs[1].template.spec"
    assert sorted(paths("GANG204", runtime)) == [f"{node}.backoffLimit", f"{node}.template.spec.restartPolicy"]
    assert paths("GANG204", fixed("GANG204", runtime)) == []


def _sweep(**kw):
    """An Indexed Job of 16 GPU indexes run 4 at a time."""
    job = b.batch_job(parallelism=4, gpus=1, completion_mode="Indexed", **kw)
    job["spec"]["completions"] = 16
    return job


@pytest.mark.parametrize("job", [_sweep(restart_policy="OnFailure"), _sweep(restart_policy="Never")])
def test_an_indexed_job_with_more_completions_than_parallelism_is_a_sweep_not_a_gang(job):
    assert paths(CODE, job) == []


@pytest.mark.parametrize(
    "obj, expected",
    [
        (b.batch_job(parallelism=16, restart_policy="Never", gpus=8, completion_mode="Indexed"), ["spec.backoffLimit"]),
        (b.batch_job(parallelism=16, restart_policy="Never", gpus=8, backoff_limit=3), ["spec.backoffLimit"]),
        (b.batch_job(parallelism=16, restart_policy="Never", gpus=8, backoff_limit=0), []),
        (b.batch_job(parallelism=16, restart_policy="Never", gpus=8, annotations={"gpufleet.dev/elastic": "true"}), []),
    ],
)
def test_a_plain_job_gang_must_not_replace_a_failed_rank_alone_like_a_jobset_child_job(obj, expected):
    assert paths(CODE, obj) == expected


def test_the_fix_for_a_plain_job_gang_sets_backoff_limit_zero():
    out = fixed(CODE, b.batch_job(parallelism=16, restart_policy="Never", gpus=8))
    assert out["spec"]["backoffLimit"] == 0 and paths(CODE, out) == []


def _in_place(**kw):
    """A JobSet the controller restarts in place, all pods together (the webhook wants backoffLimit MaxInt32)."""
    return b.jobset(
        replicated_jobs=[b.replicated_job(backoff_limit=2147483647, **kw)],
        failure_policy={"restartStrategy": "InPlaceRestart", "maxRestarts": 3},
    )


@pytest.mark.parametrize("restart_policy", ["Never", "OnFailure", None])
def test_a_jobset_restarted_in_place_is_left_alone(restart_policy):
    assert paths(CODE, _in_place(restart_policy=restart_policy)) == []


def test_the_fix_never_changes_the_backoff_limit_of_a_jobset_restarted_in_place():
    job = _in_place(restart_policy="Never")
    assert fixed(CODE, job)["spec"]["replicatedJobs"][0]["template"]["spec"]["backoffLimit"] == 2147483647


def test_a_jobset_initializer_that_completes_before_the_trainers_exist_is_not_a_rank():
    trainer = b.replicated_job("trainer", restart_policy="OnFailure", backoff_limit=None)
    trainer["dependsOn"] = [{"name": "initializer", "status": "Complete"}]
    js = b.jobset(
        replicated_jobs=[
            b.replicated_job("initializer", parallelism=None, restart_policy="OnFailure", backoff_limit=None),
            trainer,
        ]
    )
    job = "spec.replicatedJobs[1].template.spec"
    assert sorted(paths(CODE, js)) == [f"{job}.backoffLimit", f"{job}.template.spec.restartPolicy"]


def test_a_jobset_replicated_job_that_is_a_sweep_is_not_a_rank():
    sweep = b.replicated_job("sweep", restart_policy="OnFailure", backoff_limit=None)
    sweep["template"]["spec"]["completions"] = 10
    js = b.jobset(replicated_jobs=[sweep, b.replicated_job("node", restart_policy="Never")])
    assert paths(CODE, js) == []


def test_a_plain_job_gangs_backoff_message_says_nothing_restarts_it_and_what_would():
    from gpufleet.rules import engine
    from gpufleet.rules.api import CheckContext

    job = b.batch_job(parallelism=4, backoff_limit=6, gpus=1)
    [finding] = [
        f for f in engine.check_object(job, CheckContext(), select=["GANG204"]) if f.path == "spec.backoffLimit"
    ]
    assert "nothing restarts" in finding.message
    assert all(word in finding.message for word in ("RestartJobSet", "RestartJob", "resubmits"))


def test_the_rules_documentation_does_not_promise_a_restart_for_a_plain_job():
    from gpufleet.rules.registry import get

    doc = get("GANG204").doc
    assert "the whole gang is restarted\nfrom its checkpoint" not in doc
    assert "**nothing restarts it**" in doc and "stoppedWhole" in doc
