"""Findings become violation messages that name the code, object, path and fix, and read back."""

from __future__ import annotations

import pytest
from pulumi_policy import EnforcementLevel

from gpufleet.policypack import report
from gpufleet.rules import registry
from gpufleet.rules.api import Severity
from tests.rules.builders import finding


def test_a_violation_message_names_code_rule_object_path_message_and_fix():
    text = report.message(finding())
    assert text == (
        "GANG001 min-below-replicas: Job research/train at `spec.minAvailable`: "
        "minAvailable 2 is below 4 replicas. Fix: set minAvailable to 4"
    )


@pytest.mark.parametrize(
    "namespace, name, label", [(None, "gang-high", "Job gang-high"), ("ns", None, "Job ns/<unnamed>")]
)
def test_the_object_label_works_without_a_namespace_or_name(namespace, name, label):
    assert report.object_label(finding(namespace=namespace, name=name)) == label


@pytest.mark.parametrize("path", ["spec.minAvailable", "", "metadata.labels[kueue.x-k8s.io/queue-name]", "data[a b].x"])
def test_code_and_path_read_back_from_a_message_after_the_policy_description(path):
    text = "GANG001 min-below-replicas (gang-size): summary.\n" + report.message(finding(path=path))
    assert report.parse(text) == [("GANG001", path)]


def test_a_path_override_replaces_the_findings_path_and_label():
    text = report.message(finding(), "values.managerConfig.controllerManagerConfigYaml.waitForPodsReady", "Chart kueue")
    assert "Chart kueue at `values.managerConfig.controllerManagerConfigYaml.waitForPodsReady`" in text


def test_waived_findings_are_not_reported():
    kept = report.reportable([finding(), finding(code="GANG002", waived=True)])
    assert [f.code for f in kept] == ["GANG001"]


@pytest.mark.parametrize("rule", registry.all_rules(), ids=lambda r: r.code)
def test_error_rules_are_mandatory_and_warning_rules_advisory_by_default(rule):
    expected = EnforcementLevel.MANDATORY if rule.severity is Severity.ERROR else EnforcementLevel.ADVISORY
    assert report.default_level(rule) is expected
