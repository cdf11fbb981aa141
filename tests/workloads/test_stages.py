"""Which pods are ranks of a gang and which exist when it starts (gpufleet.workloads.stages, issue 32)."""

from __future__ import annotations

import pytest

from gpufleet.workloads import build_view, created_job, stages


def volcano(*tasks):
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {"tasks": [dict(t, template={"spec": {}}) for t in tasks]},
    }


def jobset(*rjobs, **failure_policy):
    spec = {"replicatedJobs": list(rjobs)}
    if failure_policy:
        spec["failurePolicy"] = failure_policy
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"}, "spec": spec}


def rjob(name, parallelism=2, completions=None, **extra):
    job = {"parallelism": parallelism, "completions": completions or parallelism, "template": {"spec": {}}}
    return {"name": name, "template": {"spec": job}, **extra}


@pytest.mark.parametrize(
    "tasks, starting",
    [
        ([{"name": "w", "replicas": 2}], 2),
        ([{"name": "l", "replicas": 1, "dependsOn": {"name": ["w"]}}, {"name": "w", "replicas": 2}], 2),
        ([{"name": "l", "replicas": 1, "dependsOn": {"name": []}}, {"name": "w", "replicas": 2}], 3),
        (
            [
                {"name": "a", "replicas": 2},
                {"name": "b", "replicas": 3, "dependsOn": {"name": ["a"]}},
                {"name": "c", "replicas": 1, "dependsOn": {"name": ["b"], "iteration": "any"}},
            ],
            2,
        ),
    ],
)
def test_a_volcano_job_starts_with_the_pods_of_its_tasks_without_depends_on(tasks, starting):
    job = volcano(*tasks)
    assert stages.starting_pods(build_view(job)) == starting == stages.starting_replicas(job["spec"]["tasks"])


def test_a_replicated_job_others_wait_on_to_complete_is_an_initializer_and_a_ready_dependency_is_a_rank():
    js = jobset(
        rjob("init", 1),
        rjob("launcher", 1, dependsOn=[{"name": "node", "status": "Ready"}]),
        rjob("node", 4, dependsOn=[{"name": "init", "status": "Complete"}]),
    )
    view = build_view(js)
    assert stages.initializer_roles(view) == {"init"}
    assert [t.role for t in stages.rank_templates(view)] == ["launcher", "node"]


@pytest.mark.parametrize(
    "spec, sweep",
    [
        ({"parallelism": 4, "completions": 16}, True),
        ({"parallelism": 4, "completions": 4}, False),
        ({"parallelism": 4}, False),
        ({"completions": 3}, True),
    ],
)
def test_a_job_with_more_completions_than_parallelism_is_a_sweep(spec, sweep):
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {**spec, "template": {}}}
    assert stages.is_sweep(build_view(job)) is sweep


def test_a_sweep_replicated_job_is_no_rank():
    view = build_view(jobset(rjob("sweep", 2, completions=10), rjob("node", 4)))
    assert [t.role for t in stages.rank_templates(view)] == ["node"]


@pytest.mark.parametrize("strategy, in_place", [("InPlaceRestart", True), ("Recreate", False), (None, False)])
def test_only_the_in_place_restart_strategy_restarts_in_place(strategy, in_place):
    policy = {"restartStrategy": strategy} if strategy else {}
    assert stages.restarts_in_place(build_view(jobset(rjob("node", 4), **policy))) is in_place


def test_the_job_a_cronjob_creates_carries_the_job_templates_metadata_not_the_cronjobs():
    cron = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "nightly", "namespace": "vision", "labels": {"a": "cron"}},
        "spec": {"jobTemplate": {"metadata": {"labels": {"b": "job"}}, "spec": {"parallelism": 2}}},
    }
    job = created_job(cron)
    assert job["metadata"] == {"labels": {"b": "job"}, "name": "nightly", "namespace": "vision"}
    assert (job["kind"], job["spec"]) == ("Job", {"parallelism": 2})
