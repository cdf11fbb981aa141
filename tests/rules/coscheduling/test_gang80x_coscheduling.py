"""The coscheduling plugin's decision (scheduler-plugins v0.34.7 core.go) and the GANG80x rules around it."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from gpufleet.rules.coscheduling._helpers import permit, permit_outcome, prefilter
from gpufleet.settings import rule_options
from tests.rules import fixtures as fx


@pytest.mark.parametrize(
    "pods, min_member, outcome",
    [
        pytest.param(4, None, "denied", id="no PodGroup: Permit returns PodGroupNotFound"),
        pytest.param(3, 4, "never", id="fewer pods than minMember: PreFilter quorumGap > 0 forever"),
        pytest.param(4, 2, "partial", id="minMember below the pods: released after 2 are assigned"),
        pytest.param(4, 4, "whole", id="minMember equal to the pods: the whole gang or nothing"),
        pytest.param(1, 1, "whole", id="a group of one"),
    ],
)
def test_the_permit_outcome_follows_the_plugin(pods, min_member, outcome):
    assert permit_outcome(pods, min_member) == outcome


def test_the_cross_object_rules_stay_quiet_when_the_checker_sees_one_object_alone():
    """The admission controller checks objects one at a time (ctx.objects empty): no PodGroup is ever 'missing'."""
    [job] = [d for d in fx.documents("GANG801", "disallowed.yaml") if d["kind"] == "Job"]
    ctx = CheckContext(fleet=fx.context("GANG801").fleet)
    assert engine.check_object(job, ctx, select=["GANG801", "GANG802", "GANG803"]) == []


def _group(seconds):
    spec = {"minMember": 4, **({"scheduleTimeoutSeconds": seconds} if seconds is not None else {})}
    return {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "robotics"},
        "spec": spec,
    }


@pytest.mark.parametrize(
    "seconds, reported", [(None, True), (10, True), (30, False), (60, False), (300, False), (480, True), (900, True)]
)
def test_the_permit_wait_must_be_set_long_enough_to_place_the_gang_and_short_of_a_cold_start(seconds, reported):
    """Permit runs before binding: the wait covers placing the pods, not pulling images (scheduler-plugins v0.34.7)."""
    for ctx in (CheckContext(), fx.context("GANG804")):
        assert bool(engine.check_objects([_group(seconds)], ctx, select=["GANG804"])) is reported


def test_the_window_is_an_option():
    ctx = CheckContext(options=rule_options({"GANG804": {"minSeconds": 5, "maxSeconds": 900}}))
    assert engine.check_objects([_group(10), _group(900)], ctx, select=["GANG804"]) == []


def test_without_a_fleet_the_scheduler_name_option_decides():
    [job] = [d for d in fx.documents("GANG805", "allowed.yaml") if d["metadata"]["name"] == "routed"]
    ctx = CheckContext(options=rule_options({"GANG805": {"schedulerNames": ["my-cosched"]}}))
    assert [f.path for f in engine.check_objects([job], ctx, select=["GANG805"])] == [
        "spec.template.spec.schedulerName"
    ]


def test_a_fleet_without_a_coscheduling_pool_does_not_ask_for_pod_groups():
    [job] = [d for d in fx.documents("GANG806", "disallowed.yaml") if d["kind"] == "Job"]
    assert engine.check_objects([job], CheckContext(fleet=None), select=["GANG806"]) == []


# scheduler-plugins v0.34.7 pkg/coscheduling/core/core_test.go TestPreFilter (the cases without minResources).
# pods: pods carrying the group label as the lister sees them (the pod itself included); gated: with scheduling gates.
@pytest.mark.parametrize(
    "exists, pods, gated, min_member, passes",
    [
        pytest.param(False, 1, 0, 1, True, id="pod belongs to a non-existent pg"),
        pytest.param(True, 1, 0, 2, False, id="pod count less than minMember"),
        pytest.param(True, 3, 0, 2, True, id="pod count equal minMember"),
        pytest.param(True, 3, 0, 2, True, id="pod count more than minMember"),
        pytest.param(True, 3, 1, 2, True, id="gated pods but still meeting quorum (minMember < replicas)"),
        pytest.param(True, 3, 1, 3, False, id="gated pods push group below quorum"),
        pytest.param(True, 3, 2, 2, False, id="all sibling pods are gated"),
    ],
)
def test_prefilter_matches_the_upstream_table(exists, pods, gated, min_member, passes):
    assert prefilter(exists, pods, gated, min_member) is passes


# ... TestPermit: assigned counts the group's pods already on a node plus this one.
@pytest.mark.parametrize(
    "labelled, exists, assigned, status",
    [
        pytest.param(False, True, 1, "PodGroupNotSpecified", id="pod does not belong to any pg"),
        pytest.param(True, False, 1, "PodGroupNotFound", id="pod specifies a non-existent pg"),
        pytest.param(True, True, 1, "Wait", id="pod belongs to a pg that doesn't have quorum"),
        pytest.param(True, True, 2, "Success", id="pod belongs to a pg that have quorum satisfied"),
    ],
)
def test_permit_matches_the_upstream_table(labelled, exists, assigned, status):
    assert permit(labelled, exists, assigned, 2) == status
