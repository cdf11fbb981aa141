"""The gang-admission controller in the sandbox: the webhooks and the API server's policies the model asks for.

Review of issue 35's work: the sandbox registered both webhooks and no policy whatever
``controller.enforcement`` said, so ``sandbox up``, ``try`` and ``whatif`` of the dev stack
(``enforcement: both``) admitted what the deployed stack would refuse in the API server.
"""

from __future__ import annotations

import pytest

from gpufleet.sandbox import controller
from tests.render.builders import fleet, pool, quota, team

CA = b"-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n"


def _model(**choices: str):
    return fleet(
        pools=[pool("h100", system="volcano")], teams=[team("research", quota={"h100": quota(8)})], controller=choices
    )


@pytest.mark.parametrize(
    "enforcement, mutations, kinds",
    [
        ("webhook", "webhook", {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}),
        ("both", "webhook", {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"}),
        ("apiServer", "webhook", {"MutatingWebhookConfiguration"}),
        ("webhook", "apiServer", {"ValidatingWebhookConfiguration"}),
    ],
)
def test_the_sandbox_registers_only_the_webhooks_the_model_keeps(enforcement, mutations, kinds):
    hooks = controller.webhook_configurations(_model(enforcement=enforcement, mutations=mutations), 8443, CA)
    assert {h["kind"] for h in hooks} == kinds
    assert all(w["clientConfig"]["url"].startswith("https://127.0.0.1:8443/") for h in hooks for w in h["webhooks"])


@pytest.mark.parametrize(
    "enforcement, mutations, validating, mutating",
    [
        ("webhook", "webhook", False, False),
        ("both", "webhook", True, False),
        ("apiServer", "both", True, True),
    ],
)
def test_the_sandbox_applies_the_api_servers_policies_after_the_namespace_of_their_params(
    enforcement, mutations, validating, mutating
):
    model = _model(enforcement=enforcement, mutations=mutations)
    applied = controller.policies(model)
    kinds = [m["kind"] for m in applied]
    assert ("ValidatingAdmissionPolicy" in kinds, "MutatingAdmissionPolicy" in kinds) == (validating, mutating)
    if applied:
        assert applied[0] == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": model.controller.namespace}}
        params = [m for m in applied if m["kind"] == "ConfigMap"]
        assert params and all(m["metadata"]["namespace"] == model.controller.namespace for m in params)
