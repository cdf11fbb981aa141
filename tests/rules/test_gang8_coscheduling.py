"""The coscheduling plugin's decision (scheduler-plugins v0.34.7 core.go) and the GANG80x rules around it."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from gpufleet.rules.gang8_coscheduling import permit_outcome
from tests.rules import fixtures as fx


@pytest.mark.parametrize("pods, min_member, outcome", [
    pytest.param(4, None, "denied", id="no PodGroup: Permit returns PodGroupNotFound"),
    pytest.param(3, 4, "never", id="fewer pods than minMember: PreFilter quorumGap > 0 forever"),
    pytest.param(4, 2, "partial", id="minMember below the pods: released after 2 are assigned"),
    pytest.param(4, 4, "whole", id="minMember equal to the pods: the whole gang or nothing"),
    pytest.param(1, 1, "whole", id="a group of one"),
])
def test_the_permit_outcome_follows_the_plugin(pods, min_member, outcome):
    assert permit_outcome(pods, min_member) == outcome


def test_the_cross_object_rules_stay_quiet_when_the_checker_sees_one_object_alone():
    """The admission controller checks objects one at a time (ctx.objects empty): no PodGroup is ever 'missing'."""
    [job] = [d for d in fx.documents("GANG801", "disallowed.yaml") if d["kind"] == "Job"]
    ctx = CheckContext(fleet=fx.context("GANG801").fleet)
    assert engine.check_object(job, ctx, select=["GANG801", "GANG802", "GANG803"]) == []


def test_without_a_fleet_only_an_unset_timeout_is_reported():
    docs = fx.documents("GANG804", "disallowed.yaml")
    found = engine.check_objects(docs, CheckContext(), select=["GANG804"])
    assert [f.object_name for f in found] == ["unset"]


def test_without_a_fleet_the_scheduler_name_option_decides():
    [job] = [d for d in fx.documents("GANG805", "allowed.yaml") if d["metadata"]["name"] == "routed"]
    ctx = CheckContext(options={"GANG805": {"schedulerNames": ["my-cosched"]}})
    assert [f.path for f in engine.check_objects([job], ctx, select=["GANG805"])] == ["spec.template.spec.schedulerName"]


def test_a_fleet_without_a_coscheduling_pool_does_not_ask_for_pod_groups():
    [job] = [d for d in fx.documents("GANG806", "disallowed.yaml") if d["kind"] == "Job"]
    assert engine.check_objects([job], CheckContext(fleet=None), select=["GANG806"]) == []
