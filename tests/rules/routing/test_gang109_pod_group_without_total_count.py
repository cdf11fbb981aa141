"""GANG109: a Kueue plain-pod group member needs a valid pod-group-total-count, or Kueue's webhook refuses it."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules.helpers import paths

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


def test_a_member_in_a_namespace_kueue_does_not_manage_is_never_refused_so_it_is_left_alone():
    # differential tier, fixture:GANG109/disallowed.yaml#0 on the dev stack: outside managedJobsNamespaceSelector
    # Kueue's pod webhook is never called, and the real API server created the pod and it ran
    from dataclasses import replace

    from tests.rules.helpers import WITH_FLEET

    ctx = CheckContext(fleet=replace(WITH_FLEET.fleet, kueue_managed_namespaces=("research",)))
    assert paths(CODE, b.pod(group="g", queue="research", namespace="scratch"), ctx) == []
    assert paths(CODE, b.pod(group="g", queue="research", namespace="research"), ctx) == [TOTAL]
