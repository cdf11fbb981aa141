"""gpufleet.render.controller: the controller's manifests, checked against the real CRDs where they are CRD kinds."""

from __future__ import annotations

import json

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.render.controller import ControllerSettings, render_controller
from gpufleet.render.controller.common import CONTEXT_KEY
from tests.conftest import REPO

STACKS = sorted(p.name.removesuffix(".fleet.yaml") for p in (REPO / "stacks").glob("*.fleet.yaml"))


@pytest.fixture(params=STACKS)
def stack_fleet(request):
    return load_model(REPO / "stacks" / f"{request.param}.fleet.yaml")


def manifests(fleet, **settings):
    return render_controller(fleet, ControllerSettings(image="registry.example/gac:1.0", **settings))


def test_the_mounted_fleet_context_is_readable_by_the_webhook(stack_fleet):
    text = manifests(stack_fleet)["configmap-fleet-context"]["data"]["fleet-context.json"]
    context = FleetContext.from_dict(json.loads(text))
    assert {t.name for t in context.teams} == {t.name for t in stack_fleet.teams}


@pytest.mark.parametrize("settings", [{"cert_manager": True, "prometheus_operator": True}])
def test_crd_kinds_pass_the_real_crds(stack_fleet, crds_dir, settings):
    from gpufleet.crdschema import CrdSet

    crds = CrdSet.load(crds_dir)
    custom = [m for m in manifests(stack_fleet, **settings).values() if crds.knows(m)]
    assert {m["kind"] for m in custom} == {"Issuer", "Certificate", "ServiceMonitor"}
    for manifest in custom:
        assert crds.validate(manifest) == [], manifest["kind"]
        assert crds.pruned_fields(manifest) == [], manifest["kind"]


def test_a_disabled_controller_renders_nothing(stack_fleet):
    disabled = stack_fleet.model_copy(
        update={"controller": stack_fleet.controller.model_copy(update={"enabled": False})}
    )
    assert manifests(disabled) == {}


def test_rendering_is_deterministic(stack_fleet):
    assert json.dumps(manifests(stack_fleet), sort_keys=False) == json.dumps(manifests(stack_fleet), sort_keys=False)


def test_a_given_context_written_compact_carries_the_same_fleet_context(stack_fleet):
    pretty = manifests(stack_fleet)["configmap-fleet-context"]["data"][CONTEXT_KEY]
    compact = render_controller(stack_fleet, ControllerSettings(), render_all(stack_fleet).context, indent=None)
    text = compact["configmap-fleet-context"]["data"][CONTEXT_KEY]
    assert json.loads(text) == json.loads(pretty) and "\n" not in text


def with_replicas(fleet, replicas):
    return fleet.model_copy(update={"controller": fleet.controller.model_copy(update={"replicas": replicas})})


def test_the_controller_has_a_memory_limit_but_no_cpu_limit(stack_fleet):
    resources = manifests(stack_fleet)["deployment"]["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert resources["limits"] == {"memory": "256Mi"}
    assert set(resources["requests"]) == {"cpu", "memory"}


@pytest.mark.parametrize("replicas, min_available", [(2, 1), (3, 2), (5, 4)])
def test_the_disruption_budget_keeps_all_but_one_replica(stack_fleet, replicas, min_available):
    budget = manifests(with_replicas(stack_fleet, replicas))["poddisruptionbudget"]
    assert budget["spec"]["minAvailable"] == min_available


def test_one_replica_gets_no_disruption_budget_that_would_block_every_drain(stack_fleet):
    assert "poddisruptionbudget" not in manifests(with_replicas(stack_fleet, 1))
