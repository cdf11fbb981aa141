"""validate(): every check runs, issues accumulate, sorted and unique; the loader raises them all."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpufleet.model import checks, parse_model
from gpufleet.yamlin.errors import ModelError
from tests.model.builders import broken_everywhere, fleet


def test_every_check_module_is_registered() -> None:
    helpers = {"k8s", "shapes", "choices"}
    modules = {m.name for m in pkgutil.iter_modules(checks.__path__)} - helpers
    registered = {c.__module__.rsplit(".", 1)[1] for c in checks.CHECKS}
    assert registered == modules
    assert all(hasattr(importlib.import_module(f"gpufleet.model.checks.{m}"), "check") for m in modules)


def test_problems_of_every_kind_come_back_together_sorted() -> None:
    issues = broken_everywhere().issues()
    paths = [i.path for i in issues]
    assert {
        "teams[0].name",
        "teams[1].quota.h100.lendingLimit",
        "pools[0].taints[0].key",
        "admission.frameworks[0]",
        "volcano.overcommitFactor",
        "engines.volcano.chartVersion",
    } <= set(paths)
    assert paths == sorted(paths) and len(set(issues)) == len(issues)


def test_the_loader_raises_one_model_error_with_every_issue() -> None:
    data = (
        fleet()
        .set("teams[1].cohort", "nowhere")
        .set("priorityClasses[0].preemptionPolicy", "PreemptLowerPriority")
        .build()
    )
    with pytest.raises(ModelError) as err:
        parse_model(data, "stacks/x.fleet.yaml")
    assert {i.path for i in err.value.issues} >= {"teams[1].cohort", "priorityClasses[0].preemptionPolicy"}
    assert all(line.startswith("stacks/x.fleet.yaml: ") for line in err.value.lines())


quantities = st.one_of(st.none(), st.integers(-4, 40), st.sampled_from(["500m", "-1", "1e-10", "0"]))
cohort_names = st.sampled_from(["ml", "org", "lab", None])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nominal=st.integers(-4, 64),
    borrowing=quantities,
    lending=quantities,
    gpus=st.integers(0, 8),
    cpu_override=quantities,
    parents=st.lists(cohort_names, min_size=3, max_size=3),
    team_cohort=cohort_names,
)
def test_any_combination_of_numbers_and_links_gives_issues_never_a_traceback(
    nominal, borrowing, lending, gpus, cpu_override, parents, team_cohort
) -> None:
    b = fleet().with_cohort("org").with_cohort("lab")
    for i, parent in enumerate(parents):
        if parent:
            b.set(f"cohorts[{i}].parent", parent)
    b.set('pools[1].allocatable["nvidia.com/gpu"]', gpus)
    entry = {
        "nominal": nominal,
        **({"borrowingLimit": borrowing} if borrowing is not None else {}),
        **({"lendingLimit": lending} if lending is not None else {}),
    }
    if cpu_override is not None:
        entry["resources"] = {"cpu": {"nominal": cpu_override}}
    b.set("teams[1].quota.a100", entry).set("teams[1].quota.h100", entry)
    if team_cohort:
        b.set("teams[0].cohort", team_cohort)
    issues = b.issues()
    assert all(i.path and i.message and i.fix for i in issues)
