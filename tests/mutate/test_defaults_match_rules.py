"""One source of truth: what the mutator defaults, the rules accept, and both read the elastic opt-in alike.

Property: a workload in a team's namespace whose gang-safety fields are left unset has,
once mutated, no finding of the rules whose fields the mutator defaults (GANG001
minAvailable, GANG101 schedulerName, GANG201 job-level policies, GANG204 pod
restartPolicy for Volcano Jobs; GANG103 the queue label for Kueue's kinds).
"""

from __future__ import annotations

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpufleet import workloads
from gpufleet.mutate import mutate
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from gpufleet.workloads.elastic import is_elastic, opted_in
from tests.mutate.builders import batch_job, fleet, volcano_job

VOLCANO_DEFAULTED = ["GANG001", "GANG101", "GANG201", "GANG204"]
KUEUE_DEFAULTED = ["GANG103"]
ELASTIC_VALUES = ["true", "True", "TRUE", " true ", True, "false", "False", "yes", "1", "", None]


def with_elastic(obj: dict, value) -> dict:
    if value is not None:
        obj["metadata"]["annotations"] = {"gpufleet.dev/elastic": value}
    return obj


def mutated(obj: dict, ctx_fleet) -> dict:
    return jsonpatch.apply_patch(obj, mutate(obj, ctx_fleet))


@settings(max_examples=150, deadline=None)
@given(
    replicas=st.lists(st.integers(min_value=0, max_value=16), min_size=1, max_size=4),
    elastic=st.sampled_from(ELASTIC_VALUES),
)
def test_a_mutated_volcano_job_has_no_finding_of_the_rules_the_mutator_defaults(replicas, elastic):
    team_fleet = fleet()
    fixed = mutated(with_elastic(volcano_job(*replicas), elastic), team_fleet)
    found = engine.check_object(fixed, CheckContext(fleet=team_fleet), select=VOLCANO_DEFAULTED)
    assert [(f.code, f.path) for f in found] == []


@settings(max_examples=60, deadline=None)
@given(parallelism=st.integers(min_value=2, max_value=64), elastic=st.sampled_from(ELASTIC_VALUES))
def test_a_mutated_kueue_gang_has_no_finding_of_the_rules_the_mutator_defaults(parallelism, elastic):
    team_fleet = fleet(volcano_queue=None)
    fixed = mutated(with_elastic(batch_job(parallelism=parallelism), elastic), team_fleet)
    found = engine.check_object(fixed, CheckContext(fleet=team_fleet), select=KUEUE_DEFAULTED)
    assert [(f.code, f.path) for f in found] == []


@pytest.mark.parametrize("value", ELASTIC_VALUES)
def test_the_mutator_and_the_rules_agree_on_the_elastic_opt_in(value):
    job = with_elastic(volcano_job(4, 4), value)
    fixed = mutated(job, fleet())
    view = workloads.build_view(job)
    assert view is not None and view.elastic is opted_in(value) is is_elastic(job["metadata"].get("annotations"))
    assert ("minAvailable" in fixed["spec"]) is (not view.elastic)


@pytest.mark.parametrize(
    "value, expected",
    [
        ("true", True),
        ("TRUE", True),
        (" True\n", True),
        (True, True),
        ("false", False),
        ("yes", False),
        ("1", False),
        (None, False),
        ("", False),
    ],
)
def test_the_opt_in_is_true_in_any_case_and_nothing_else(value, expected):
    assert opted_in(value) is expected
