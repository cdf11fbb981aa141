"""During preview, values Pulumi does not know yet degrade to an advisory "can't check", never a false mandatory."""

from __future__ import annotations

from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UNKNOWN_STRING_VALUE

from tests.policies.builders import kueue_chart_props, volcano_job
from tests.policies.harness import Resource


def with_unknown_image(job):
    job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["image"] = UNKNOWN_STRING_VALUE
    return job


def test_a_violation_on_inputs_with_unknowns_is_an_advisory_cant_check_during_preview(pack):
    bad = Resource.of(with_unknown_image(volcano_job(replicas=4, min_available=2)))
    (diagnostic,) = [d for d in pack.analyze(bad) if d.policy == "gang001-min-below-replicas"]
    assert diagnostic.level == "advisory"
    assert "during preview" in diagnostic.message and "GANG001 would flag `spec.minAvailable`" in diagnostic.message
    assert not [d for d in pack.analyze(bad) if d.level == "mandatory"]


def test_an_unknown_gang_minimum_is_not_a_mandatory_violation(pack):
    job = volcano_job(replicas=4)
    job["spec"]["minAvailable"] = UNKNOWN_NUMBER_VALUE
    assert [d for d in pack.analyze(Resource.of(job)) if d.level == "mandatory"] == []


def test_inputs_with_unknowns_and_nothing_to_flag_get_no_diagnostic(pack):
    good = Resource.of(with_unknown_image(volcano_job(replicas=4, min_available=4)))
    assert [d for d in pack.analyze(good) if d.policy.startswith("gang001")] == []


def test_an_unknown_chart_configuration_is_not_a_mandatory_stack_violation(pack):
    chart = Resource("kubernetes:helm.sh/v4:Chart", "kueue", kueue_chart_props(UNKNOWN_STRING_VALUE))
    assert [d for d in pack.analyze_stack([chart]) if d.level == "mandatory"] == []
