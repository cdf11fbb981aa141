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


@pytest.mark.parametrize("obj, expected", [
    (b.batch_job(parallelism=4, restart_policy="OnFailure", gpus=1), ["spec.template.spec.restartPolicy"]),
    (b.batch_job(parallelism=4, restart_policy="OnFailure", cpu="2"), []),
    (b.batch_job(parallelism=1, restart_policy="OnFailure"), []),
    (b.pod(restart_policy="Always"), []),
    (b.pod(group="g", total=1, restart_policy="Always"), ["spec.restartPolicy"]),
    (b.pytorch_job(restart_policy="Never", **{}), []),
])
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
    runtime = b.training_runtime(replicated_jobs=[
        b.replicated_job("initializer", replicas=None, parallelism=None, restart_policy=None, backoff_limit=None),
        b.replicated_job("node", replicas=None, parallelism=None, restart_policy="OnFailure", backoff_limit=None)])
    node = "spec.template.spec.replicatedJobs[1].template.spec"
    assert sorted(paths("GANG204", runtime)) == [f"{node}.backoffLimit", f"{node}.template.spec.restartPolicy"]
    assert paths("GANG204", fixed("GANG204", runtime)) == []
