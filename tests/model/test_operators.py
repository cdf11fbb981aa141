"""The workloadOperators section: typed, checked at exact paths with a fix, rendered into the fleet context."""

from __future__ import annotations

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.fleetctx.operators import NO_GANG
from gpufleet.model.operators import PINNED
from gpufleet.render.context import render_context
from gpufleet.yamlin.errors import ModelError
from tests.model.builders import fleet
from tests.model.expect import Case, clean, params, reported, setting

GANG = "workloadOperators.{}.gangScheduler"

CASES = [
    setting(
        "jobset-has-no-gang-scheduler",
        GANG.format("jobset"),
        "volcano",
        None,
        "jobset cannot write PodGroups for volcano",
    ),
    setting(
        "trainer-has-no-gang-scheduler",
        GANG.format("trainer"),
        "scheduler-plugins",
        None,
        "podGroupPolicy",
    ),
    setting(
        "lws-provider-is-volcano-only",
        GANG.format("leaderworkerset"),
        "scheduler-plugins",
        "volcano",
        "it supports volcano",
    ),
    setting(
        "an-engine-the-fleet-does-not-run",
        GANG.format("mpiOperator"),
        "scheduler-plugins",
        "volcano",
        "no coscheduling pool",
    ),
    Case(
        "volcano-switched-off",
        lambda f: (
            f.set(GANG.format("kuberay"), "volcano")
            .set("engines.volcano.enabled", False)
            .set("pools[1].system", "kueue")
            .set("pools[1].nodeLabels", {"gpufleet.dev/pool": "a100"})
        ),
        lambda f: (
            f.set(GANG.format("kuberay"), None)
            .set("engines.volcano.enabled", False)
            .set("pools[1].system", "kueue")
            .set("pools[1].nodeLabels", {"gpufleet.dev/pool": "a100"})
        ),
        GANG.format("kuberay"),
        "no volcano pool",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_each_operator_setting_is_refused_at_its_path_with_a_fix(case):
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_nearest_good_setting_is_valid(case):
    clean(case)


@pytest.mark.parametrize(
    ("path", "bad", "at", "says"),
    [
        (GANG.format("kuberay"), "yunikorn", GANG.format("kuberay"), "'volcano' or 'scheduler-plugins'"),
        ("workloadOperators.jobset.version", "0.12", "workloadOperators.jobset.version", "'0.12'"),
        ("workloadOperators.jobset.featureGates", ["restart job"], "workloadOperators.jobset.featureGates[0]", ""),
        ("workloadOperators.jobsett", {}, "workloadOperators.jobsett", "did you mean 'jobset'"),
    ],
)
def test_a_malformed_setting_is_refused_at_its_path_with_a_fix(path, bad, at, says):
    with pytest.raises(ModelError) as err:
        fleet().set(path, bad).model()
    found = {i.path: i for i in err.value.issues}
    assert at in found and says in found[at].message and found[at].fix


def test_a_declared_operator_defaults_to_upstream_and_the_pinned_tag():
    model = fleet().set("workloadOperators", {"mpiOperator": {}, "kuberay": {"version": "v1.4.2"}}).model()
    ops = render_context(model)["workloadOperators"]
    assert ops == {
        "mpiOperator": {"installed": True, "version": PINNED["mpiOperator"], "featureGates": []},
        "kuberay": {"installed": True, "version": "v1.4.2", "featureGates": []},
    }


def test_the_context_reads_the_operators_back_and_knows_nothing_of_the_others():
    model = (
        fleet()
        .set(
            "workloadOperators",
            {"mpiOperator": {"gangScheduler": "volcano"}, "jobset": {"featureGates": ["RestartJob"]}},
        )
        .model()
    )
    profile = FleetContext.from_dict(render_context(model)).operators
    assert (profile.get("mpiOperator").gang_scheduler, profile.get("mpiOperator").installed) == ("volcano", True)
    assert profile.get("jobset").feature_gates == frozenset({"RestartJob"})
    assert (profile.get("kuberay").installed, profile.get("kuberay").gang_scheduler) == (None, NO_GANG)
