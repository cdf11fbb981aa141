"""The controller's namespace guard and the certificate-expiry thresholds: defaults, and bad values reported at their paths."""

from __future__ import annotations

import pytest

from gpufleet.model.loader import ModelError
from tests.model.builders import FleetBuilder


def test_the_defaults_name_the_cluster_admin_group_and_warn_three_weeks_ahead():
    fleet = FleetBuilder().model()
    guard, expiry = fleet.controller.namespace_guard, fleet.observability.certificate_expiry
    assert guard.enabled and guard.groups == ["system:masters"] and not guard.users and not guard.service_accounts
    assert (expiry.warning, expiry.critical) == (21 * 86400, 7 * 86400)


@pytest.mark.parametrize(
    "path, value, where, says",
    [
        (
            "controller.namespaceGuard.serviceAccounts",
            ["pulumi-operator"],
            "controller.namespaceGuard.serviceAccounts",
            "<namespace>/<name>",
        ),
        (
            "controller.namespaceGuard.serviceAccounts",
            ["a/b/c"],
            "controller.namespaceGuard.serviceAccounts",
            "<namespace>/<name>",
        ),
        (
            "observability.certificateExpiry",
            {"warning": "24h", "critical": "48h"},
            "observability.certificateExpiry",
            "shorter than warning",
        ),
        (
            "observability.certificateExpiry",
            {"warning": "168h", "critical": "168h"},
            "observability.certificateExpiry",
            "shorter than warning",
        ),
        ("observability.certificateExpiry.warning", "30d", "observability.certificateExpiry.warning", "unit"),
    ],
)
def test_a_bad_value_is_one_issue_at_its_path(path, value, where, says):
    with pytest.raises(ModelError) as error:
        FleetBuilder().set(path, value).model()
    assert any(i.path == where and says in i.message for i in error.value.issues), error.value.issues


def test_named_service_accounts_are_accepted():
    guard = FleetBuilder().set("controller.namespaceGuard.serviceAccounts", ["pulumi-system/pulumi-operator"]).model()
    assert guard.controller.namespace_guard.service_accounts == ["pulumi-system/pulumi-operator"]
