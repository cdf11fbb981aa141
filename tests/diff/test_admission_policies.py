"""gpufleet diff sees the rules' admission policies the stack applies (controller.enforcement)."""

from __future__ import annotations

import pytest

from gpufleet.diff import stack_objects
from tests.render.builders import fleet, pool, quota, team


def model(enforcement: str):
    return fleet(
        pools=[pool("h100")], teams=[team("a", quota={"h100": quota(8)})], controller={"enforcement": enforcement}
    )


@pytest.mark.parametrize("enforcement, listed", [("webhook", False), ("both", True), ("apiServer", True)])
def test_the_stack_objects_hold_the_policies_named_as_the_component_names_them(enforcement, listed):
    names = {o.key for o in stack_objects(model(enforcement))}
    assert ("gang-admission-validatingadmissionpolicy-gpufleet-gang001" in names) is listed
    assert ("gang-admission-validatingadmissionpolicybinding-gpufleet-gang001" in names) is listed
    assert ("gang-admission-validatingwebhookconfiguration" in names) is (enforcement != "apiServer")
