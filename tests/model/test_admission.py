"""Gang admission: waitForPodsReady against cold starts, backoff, frameworks."""

from __future__ import annotations

import pytest

from tests.model.builders import fleet
from tests.model.expect import Case, clean, params, reported, setting

WFPR = "admission.waitForPodsReady"
DEFAULT_FRAMEWORKS = ["batch/job", "jobset.x-k8s.io/jobset", "kubeflow.org/pytorchjob", "pod"]

CASES = [
    Case(
        "timeout-below-the-floor",
        lambda f: f.set(f"{WFPR}.timeout", "5m"),
        lambda f: f.set(f"{WFPR}.timeout", "5m").set("admission.coldStartFloor", "5m"),
        f"{WFPR}.timeout",
        "below admission.coldStartFloor 10m0s",
    ),
    Case(
        "timeout-below-a-pool-cold-start",
        lambda f: f.set("pools[1].coldStartBudget", "12m"),
        lambda f: f.set("pools[1].coldStartBudget", "12m").set(f"{WFPR}.timeout", "12m"),
        f"{WFPR}.timeout",
        "pools[1] ('a100') coldStartBudget 12m0s",
    ),
    setting("recovery-longer-than-timeout", f"{WFPR}.recoveryTimeout", "11m", "10m", "longer than timeout 10m0s"),
    setting(
        "backoff-base-above-max",
        f"{WFPR}.requeuingStrategy",
        {"backoffBaseSeconds": 600, "backoffMaxSeconds": 300},
        {"backoffBaseSeconds": 300, "backoffMaxSeconds": 300},
        "above backoffMaxSeconds 300",
        at=f"{WFPR}.requeuingStrategy.backoffBaseSeconds",
    ),
    setting(
        "unknown-framework",
        "admission.frameworks",
        [*DEFAULT_FRAMEWORKS, "kubeflow.org/pytorchjobs"],
        DEFAULT_FRAMEWORKS,
        "unknown Kueue framework",
        at="admission.frameworks[4]",
    ),
    setting(
        "duplicate-framework",
        "admission.frameworks",
        [*DEFAULT_FRAMEWORKS, "pod"],
        [*DEFAULT_FRAMEWORKS, "ray.io/rayjob"],
        "already listed at frameworks[3]",
        at="admission.frameworks[4]",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_bad_admission_settings_are_reported_at_their_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_admission_settings_pass(case: Case) -> None:
    clean(case)


def test_a_timeout_short_of_two_pools_names_each_pool() -> None:
    issues = fleet().set("pools[0].coldStartBudget", "11m").set("pools[1].coldStartBudget", "12m").issues()
    assert sorted(i.message.split(" coldStartBudget")[0] for i in issues) == [
        "timeout 10m0s is below pools[0] ('h100')",
        "timeout 10m0s is below pools[1] ('a100')",
    ]


def test_the_pod_integration_with_a_team_in_kube_system_is_rejected() -> None:
    issues = fleet().set("teams[0].namespaces", ["kube-system"]).issues()
    assert [i.path for i in issues] == ["teams[0].namespaces[0]"]
