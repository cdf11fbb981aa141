"""gpufleet diff and gpufleet plan see the defaulting's MutatingAdmissionPolicies the stack applies (controller.mutations)."""

from __future__ import annotations

import json

import pytest
import yaml

from gpufleet.cli import fleet_cmds
from gpufleet.diff import stack_objects
from tests.cli.builders import cli_runner
from tests.cli.test_fleet_cli import DEV
from tests.render.builders import fleet, pool, quota, team


def model(mutations: str):
    return fleet(pools=[pool("h100")], teams=[team("a", quota={"h100": quota(8)})], controller={"mutations": mutations})


@pytest.mark.parametrize("mutations, listed", [("webhook", False), ("both", True), ("apiServer", True)])
def test_the_stack_objects_hold_the_mutating_policies_named_as_the_component_names_them(mutations, listed):
    names = {o.key for o in stack_objects(model(mutations))}
    for concern in ("volcano", "queue-label", "gang-label"):
        assert (f"gang-admission-mutatingadmissionpolicy-gpufleet-mutate-{concern}" in names) is listed
        assert (f"gang-admission-mutatingadmissionpolicybinding-gpufleet-mutate-{concern}" in names) is listed
    assert ("gang-admission-configmap-mutation-params" in names) is listed
    assert ("gang-admission-mutatingwebhookconfiguration" in names) is (mutations != "apiServer")


@pytest.mark.parametrize("mutations, counted", [("webhook", 0), ("both", 3)])
def test_the_plan_counts_the_mutating_policies_the_stack_applies(tmp_path, mutations, counted):
    data = yaml.safe_load(DEV.read_text())
    data["controller"]["mutations"] = mutations
    path = tmp_path / "dev.fleet.yaml"
    path.write_text(yaml.safe_dump(data))
    result = cli_runner(fleet_cmds)("plan", str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    objects = json.loads(result.stdout)["objects"]
    assert objects.get("MutatingAdmissionPolicy", 0) == objects.get("MutatingAdmissionPolicyBinding", 0) == counted
