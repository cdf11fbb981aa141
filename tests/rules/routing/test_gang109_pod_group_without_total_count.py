"""GANG109: a Kueue plain-pod group member needs a valid pod-group-total-count, or Kueue's webhook refuses it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules import builders as b
from tests.rules.helpers import FLEET, paths

CODE = "GANG109"
TOTAL = "metadata.annotations[kueue.x-k8s.io/pod-group-total-count]"


@pytest.mark.parametrize("total, expected", [(None, [TOTAL]), ("0", [TOTAL]), ("x", [TOTAL]), ("3", []), (3, [])])
def test_a_kueue_group_member_needs_a_positive_total_count(total, expected):
    assert paths(CODE, b.pod(group="g", total=total, queue="research")) == expected


def test_a_pod_kueue_does_not_manage_is_left_alone():
    pod = b.pod(group="g", queue=None)
    assert paths(CODE, pod) == []


def test_the_message_counts_the_groups_pods_in_the_run():
    pods = [b.pod(f"p{i}", group="g", queue="research") for i in range(3)]
    [finding, *_] = engine.check_objects(pods, CheckContext(), select=[CODE])
    assert 'pod-group-total-count: "3"' in finding.fix


@pytest.mark.parametrize(
    "namespace, queue, expected",
    [
        ("research", "research", [TOTAL]),
        ("research", None, [TOTAL]),
        ("scratch", "research", []),
        ("scratch", None, []),
    ],
)
def test_with_a_fleet_only_a_member_in_a_namespace_kueues_webhooks_cover_is_refused(namespace, queue, expected):
    """The chart limits Kueue's pod webhook to managedJobsNamespaceSelector: the sandbox's Kueue v0.19.2 created a
    queue-labelled member without a total count in a namespace outside it (tests/e2e/test_kueue_labels_e2e.py)."""
    ctx = CheckContext(
        fleet=replace(FLEET, manage_jobs_without_queue_name=True, kueue_managed_namespaces=("research",))
    )
    assert paths(CODE, b.pod(group="g", queue=queue, namespace=namespace), ctx) == expected
