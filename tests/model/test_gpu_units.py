"""GPUs are whole numbers: 8Gi, 500m or 15.5 GPUs are errors at their exact paths, all reported together."""

from __future__ import annotations

import pytest

from gpufleet.model import gpu_units, parse_model
from gpufleet.yamlin.errors import ModelError
from tests.model.builders import fleet

GPU = '["nvidia.com/gpu"]'


@pytest.mark.parametrize(
    "value, whole",
    [
        (8, True),
        ("8", True),
        (0, True),
        ("8Gi", False),
        ("500m", False),
        (15.5, False),
        ("15.5", False),
        ("1k", False),
        ("1e3", False),
        (True, False),
        (8.0, False),
    ],
)
def test_a_whole_number_is_an_integer_or_a_string_of_digits(value, whole):
    assert gpu_units.is_whole(value) is whole


@pytest.mark.parametrize(
    "path, value, reported_at",
    [
        (f"pools[0].allocatable{GPU}", "8Gi", "pools[0].allocatable.nvidia.com/gpu"),
        ("teams[0].quota.h100.nominal", "500m", "teams[0].quota.h100.nominal"),
        ("teams[1].quota.h100.borrowingLimit", 15.5, "teams[1].quota.h100.borrowingLimit"),
        ("teams[0].quota.h100.lendingLimit", "1k", "teams[0].quota.h100.lendingLimit"),
    ],
)
def test_a_gpu_quantity_that_is_not_whole_is_an_error_at_its_path(path, value, reported_at):
    issues = fleet().set(path, value).issues()
    assert [i.path for i in issues if "whole units" in i.message] == [reported_at]
    assert all(i.fix for i in issues)


def test_a_cohorts_quota_and_a_gpu_resource_override_are_checked_too():
    data = (
        fleet()
        .with_cohort("org")
        .set("cohorts[0].quota.h100", {"nominal": "2Gi"})
        .set("teams[0].quota.h100.resources", {"nvidia.com/gpu": {"nominal": "0.5"}, "cpu": {"nominal": "500m"}})
        .build()
    )
    paths = [i.path for i in gpu_units.check_raw(data)]
    assert paths == ["teams[0].quota.h100.resources.nvidia.com/gpu.nominal", "cohorts[0].quota.h100.nominal"]


def test_the_loader_reports_every_gpu_unit_error_with_the_other_issues_and_the_value_it_found():
    data = (
        fleet()
        .set(f"pools[0].allocatable{GPU}", "8Gi")
        .set("teams[0].quota.h100.nominal", "500m")
        .set("teams[1].cohort", "nowhere")
        .build()
    )
    with pytest.raises(ModelError) as err:
        parse_model(data, "stacks/x.fleet.yaml")
    issues = {i.path: i.message for i in err.value.issues}
    assert (
        "'8Gi'" in issues["pools[0].allocatable.nvidia.com/gpu"] and "'500m'" in issues["teams[0].quota.h100.nominal"]
    )
    assert "teams[1].cohort" in issues


def test_cpu_and_memory_keep_kubernetes_quantities():
    assert gpu_units.check_raw(fleet().set('pools[0].allocatable.cpu', "191500m").build()) == []
