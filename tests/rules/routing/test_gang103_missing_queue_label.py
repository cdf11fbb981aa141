"""GANG103: gangs Kueue should admit need the queue label."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules import builders as b
from tests.rules.helpers import FLEET, WITH_FLEET, fixed, paths

CODE = "GANG103"
LABEL = "metadata.labels[kueue.x-k8s.io/queue-name]"


@pytest.mark.parametrize(
    "obj, expected",
    [
        (b.jobset(namespace="vision"), [LABEL]),
        (b.jobset(namespace="vision", labels={"kueue.x-k8s.io/queue-name": "vision"}), []),
        (b.jobset(namespace="sim"), []),
        (b.jobset(namespace="scratch"), []),
        (b.volcano_job(namespace="research"), []),
        (b.pytorch_job(namespace="research", queue="research"), []),
        (b.pytorch_job(namespace="research"), [LABEL]),
        (b.batch_job(namespace="vision", parallelism=1), []),
        (b.train_job(namespace="vision"), [LABEL]),
    ],
)
def test_with_a_fleet_gangs_of_kueue_teams_need_the_label(obj, expected):
    assert paths(CODE, obj, WITH_FLEET) == expected


@pytest.mark.parametrize(
    "obj, expected",
    [
        (b.pod(group="g", total=2), [LABEL]),
        (b.pod(group="g", total=2, queue="q"), []),
        (b.batch_job(annotations={"kueue.x-k8s.io/job-min-parallelism": "2"}), [LABEL]),
        (b.jobset(), []),
        (b.pod(group="g", total=2, scheduler_name="volcano"), []),
    ],
)
def test_without_a_fleet_only_kueue_style_gangs_need_the_label(obj, expected):
    assert paths(CODE, obj) == expected


def test_remediation_adds_the_teams_local_queue_only_with_a_fleet():
    assert fixed(CODE, b.jobset(namespace="vision"), WITH_FLEET)["metadata"]["labels"] == {
        "kueue.x-k8s.io/queue-name": "vision"
    }
    pod = b.pod(group="g", total=2, namespace="scratch")
    assert fixed(CODE, pod) == pod


@pytest.mark.parametrize(
    "manage, managed, says, never_says",
    [
        (True, ("research",), "waits forever", "ignores"),
        (False, ("research",), "Kueue ignores it", "forever"),
        (True, ("vision",), "Kueue ignores it", "forever"),
        (None, None, "Kueue ignores it or it waits forever", "manageJobsWithoutQueueName"),
    ],
)
def test_the_message_follows_the_fleets_kueue_settings(manage, managed, says, never_says):
    ctx = CheckContext(fleet=replace(FLEET, manage_jobs_without_queue_name=manage, kueue_managed_namespaces=managed))
    [finding] = engine.check_object(b.jobset(namespace="research"), ctx, select=[CODE])
    assert says in finding.message and never_says not in finding.message


def test_the_message_says_what_happens_with_and_without_the_controller_that_adds_the_label():
    """Issue 32, item 16: the stack's admission controller labels the team's Kueue kinds itself."""
    ctx = CheckContext(
        fleet=replace(FLEET, manage_jobs_without_queue_name=True, kueue_managed_namespaces=("research",))
    )
    [finding] = engine.check_object(b.jobset(namespace="research"), ctx, select=[CODE])
    controller, _, without = finding.message.partition("unless the admission controller adds it, ")
    assert controller and "waits forever" in without and finding.fix == "add label kueue.x-k8s.io/queue-name: research"


@pytest.mark.parametrize("manage", [True, False, None])
@pytest.mark.parametrize("kind", ["JobSet", "CronJob"])
def test_the_message_is_one_short_sentence_whatever_kueue_does(manage, kind):
    obj = b.jobset(namespace="research") if kind == "JobSet" else cron_job(namespace="research")
    ctx = CheckContext(
        fleet=replace(FLEET, manage_jobs_without_queue_name=manage, kueue_managed_namespaces=("research",))
    )
    [finding] = engine.check_object(obj, ctx, select=[CODE])
    assert len(finding.message) <= 220, finding.message


def test_without_a_controller_label_the_message_has_no_controller_clause():
    pod = b.pod(
        group="g",
        total=2,
        scheduler_name="default-scheduler",
        namespace="scratch",
        annotations={"kueue.x-k8s.io/pod-group-fast-admission": "true"},
    )
    [finding] = engine.check_object(pod, select=[CODE])
    assert "controller" not in finding.message


CRON_LABEL = "spec.jobTemplate.metadata.labels[kueue.x-k8s.io/queue-name]"


def cron_job(labels=None, template_labels=None, parallelism=4, gpus=1, namespace="vision"):
    """A CronJob whose Jobs are a GPU gang of ``parallelism`` pods (issue 32, item 9)."""
    job = b.batch_job(parallelism=parallelism, gpus=gpus, backoff_limit=0, restart_policy="Never")
    template = {"spec": job["spec"]}
    if template_labels:
        template["metadata"] = {"labels": template_labels}
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": b.meta("nightly", namespace, labels),
        "spec": {"schedule": "0 2 * * *", "jobTemplate": template},
    }


QUEUE = {"kueue.x-k8s.io/queue-name": "vision"}


@pytest.mark.parametrize(
    "obj, ctx, expected",
    [
        (cron_job(labels=QUEUE), CheckContext(), [CRON_LABEL]),
        (cron_job(labels=QUEUE), WITH_FLEET, [CRON_LABEL]),
        (cron_job(template_labels=QUEUE), WITH_FLEET, []),
        (cron_job(labels=QUEUE, template_labels=QUEUE), WITH_FLEET, []),
        (cron_job(), WITH_FLEET, [CRON_LABEL]),
        (cron_job(parallelism=1, gpus=None), WITH_FLEET, []),
        (cron_job(), CheckContext(), []),
    ],
)
def test_a_cronjobs_jobs_need_the_label_in_the_job_template(obj, ctx, expected):
    assert paths(CODE, obj, ctx) == expected


def test_the_cronjob_fix_moves_the_label_into_the_job_template():
    out = fixed(CODE, cron_job(labels=QUEUE))
    assert out["spec"]["jobTemplate"]["metadata"]["labels"] == QUEUE and paths(CODE, out) == []


def test_the_cronjob_fix_adds_the_teams_queue_with_a_fleet():
    out = fixed(CODE, cron_job(), WITH_FLEET)
    assert out["spec"]["jobTemplate"]["metadata"]["labels"] == QUEUE and paths(CODE, out, WITH_FLEET) == []
