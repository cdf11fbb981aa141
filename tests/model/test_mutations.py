"""``controller.mutations``: the MutatingAdmissionPolicies need Kubernetes 1.36+, and ``apiServer`` a fleet they fully serve."""

from __future__ import annotations

import pytest

from tests.model.builders import FleetBuilder
from tests.model.expect import Case, clean, params, reported
from tests.model.test_dedicated import dedicated


def mutations(where: str, version: str = "1.37"):
    return lambda b: b.set("controller.mutations", where).set("kubernetes.version", version)


CASES = [
    Case(
        "both-before-1.36",
        mutations("both", "1.35"),
        mutations("both", "1.36"),
        "controller.mutations",
        "does not serve in admissionregistration.k8s.io/v1",
    ),
    Case(
        "api-server-before-1.36",
        mutations("apiServer", "1.34"),
        mutations("webhook", "1.34"),
        "controller.mutations",
        "Kubernetes 1.34 does not serve",
    ),
    Case(
        "api-server-with-a-dedicated-pool",
        lambda f: mutations("apiServer")(dedicated(f)),
        lambda f: mutations("both")(dedicated(f)),
        "controller.mutations",
        "pool 'vault' is dedicated to team",
    ),
    Case(
        "api-server-with-a-coscheduling-pool",
        lambda f: mutations("apiServer")(
            f.with_pool("cs", "coscheduling")
            .with_team("solo", quota={"cs": {"nominal": 8}})
            .set("pools[2].nodeLabels", {"gpufleet.dev/pool": "cs"})
        ),
        lambda f: mutations("both")(
            f.with_pool("cs", "coscheduling")
            .with_team("solo", quota={"cs": {"nominal": 8}})
            .set("pools[2].nodeLabels", {"gpufleet.dev/pool": "cs"})
        ),
        "controller.mutations",
        "held by coscheduling",
    ),
    Case(
        "api-server-with-kueue-ray",
        lambda f: mutations("apiServer")(f.append("admission.frameworks", "ray.io/rayjob")),
        lambda f: mutations("apiServer")(f),
        "controller.mutations",
        "ray.io/rayjob integration is on",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_mutations_the_cluster_cannot_serve_are_reported_at_their_path_with_the_fix(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_mutations_setting_passes(case: Case) -> None:
    clean(case)


def test_the_defaulting_stays_on_the_webhook_by_default() -> None:
    assert FleetBuilder().model().controller.mutations == "webhook"
