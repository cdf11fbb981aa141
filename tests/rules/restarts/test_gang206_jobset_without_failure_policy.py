"""GANG206: JobSets should restart the whole gang instead of failing on the first error."""

from __future__ import annotations

from gpufleet.rules import registry
from gpufleet.rules.api import CheckContext, Severity
from gpufleet.settings import rule_options
from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG206"


def test_a_jobset_without_failure_policy_is_a_warning():
    assert paths(CODE, b.jobset()) == ["spec.failurePolicy"]
    assert paths(CODE, b.jobset(failure_policy={"maxRestarts": 2})) == []
    assert registry.get(CODE).severity is Severity.WARNING


def test_remediation_adds_a_bounded_failure_policy():
    assert fixed(CODE, b.jobset())["spec"]["failurePolicy"] == {"maxRestarts": 3}
    ctx = CheckContext(options=rule_options({CODE: {"maxRestarts": 5}}))
    assert fixed(CODE, b.jobset(), ctx)["spec"]["failurePolicy"] == {"maxRestarts": 5}
