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


@pytest.mark.parametrize("obj, expected", [
    (b.jobset(namespace="vision"), [LABEL]),
    (b.jobset(namespace="vision", labels={"kueue.x-k8s.io/queue-name": "vision"}), []),
    (b.jobset(namespace="sim"), []),
    (b.jobset(namespace="scratch"), []),
    (b.volcano_job(namespace="research"), []),
    (b.pytorch_job(namespace="research", queue="research"), []),
    (b.pytorch_job(namespace="research"), [LABEL]),
    (b.batch_job(namespace="vision", parallelism=1), []),
    (b.train_job(namespace="vision"), [LABEL]),
])
def test_with_a_fleet_gangs_of_kueue_teams_need_the_label(obj, expected):
    assert paths(CODE, obj, WITH_FLEET) == expected


@pytest.mark.parametrize("obj, expected", [
    (b.pod(group="g", total=2), [LABEL]),
    (b.pod(group="g", total=2, queue="q"), []),
    (b.batch_job(annotations={"kueue.x-k8s.io/job-min-parallelism": "2"}), [LABEL]),
    (b.jobset(), []),
    (b.pod(group="g", total=2, scheduler_name="volcano"), []),
])
def test_without_a_fleet_only_kueue_style_gangs_need_the_label(obj, expected):
    assert paths(CODE, obj) == expected


def test_remediation_adds_the_teams_local_queue_only_with_a_fleet():
    assert fixed(CODE, b.jobset(namespace="vision"), WITH_FLEET)["metadata"]["labels"] == {
        "kueue.x-k8s.io/queue-name": "vision"}
    pod = b.pod(group="g", total=2, namespace="scratch")
    assert fixed(CODE, pod) == pod


@pytest.mark.parametrize("manage, managed, says, never_says", [
    (True, ("research",), "waits forever", "ignores"),
    (False, ("research",), "Kueue ignores it", "forever"),
    (True, ("vision",), "Kueue ignores it", "forever"),
    (None, None, "either Kueue ignores it", "manageJobsWithoutQueueName: true"),
])
def test_the_message_follows_the_fleets_kueue_settings(manage, managed, says, never_says):
    ctx = CheckContext(fleet=replace(FLEET, manage_jobs_without_queue_name=manage, kueue_managed_namespaces=managed))
    [finding] = engine.check_object(b.jobset(namespace="research"), ctx, select=[CODE])
    assert says in finding.message and never_says not in finding.message
