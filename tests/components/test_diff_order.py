"""The diff's step order is the order the program's resource graph imposes (pulumi mocks).

The program (``FleetQuota``) registers every rendered object with its ``depends_on``;
from the recorded dependencies this test derives the order Pulumi's step executor
must follow (creates and updates after what they depend on, deletes before it) and
checks ``gpufleet.diff.steps.plan_steps`` against it, and that the objects the diff
replaces are exactly those registered with ``replace_on_changes`` and
``delete_before_replace``.
"""

from __future__ import annotations

import pytest

from gpufleet.diff.steps import plan_steps
from gpufleet.pulumi.quota import FleetQuota, FleetQuotaArgs
from gpufleet.render import render_all
from tests.components.builders import fleet, pools, team
from tests.components.mocking import run_program
from tests.components.test_quota import chart


def graph(monitor, objects):
    """{key: keys it depends on} as registered by the program (chart edges left out)."""

    def build():
        FleetQuota("quota", FleetQuotaArgs(tuple(objects), {"kueue": chart("kueue"), "volcano": chart("volcano")}))

    registered = [
        r
        for r in run_program(monitor, build)
        if r.custom
        and r.type.startswith(
            (
                "kubernetes:kueue",
                "kubernetes:scheduling",
                "kubernetes:core/v1:Namespace",
                "kubernetes:admissionregistration",
            )
        )
    ]
    by_urn = {r.urn: r.name for r in registered}
    return {r.name: [by_urn[d] for d in r.dependencies if d in by_urn] for r in registered}, {
        r.name: r for r in registered
    }


def respects(order: list[str], edges: dict[str, list[str]], reverse: bool = False) -> list[str]:
    position = {key: i for i, key in enumerate(order)}
    bad = []
    for key, deps in edges.items():
        for dep in deps:
            if key in position and dep in position and (position[dep] > position[key]) != reverse:
                bad.append(f"{key} vs {dep}")
    return bad


BASE = dict(teams=[team("alpha"), team("beta", quota={"l4": {"nominal": 8}})])
CHANGES = {
    "grow": dict(teams=[team("alpha", quota={"l4": {"nominal": 24}}), team("beta", quota={"l4": {"nominal": 8}})]),
    "add a team": dict(teams=[*BASE["teams"], team("gamma", quota={"l4": {"nominal": 8}})]),
    "remove a team": dict(teams=[team("alpha")]),
}


@pytest.mark.parametrize("change", CHANGES)
def test_creates_and_updates_follow_the_programs_dependencies_and_deletes_go_last_in_reverse(monitor, change):
    base, new = render_all(fleet(**BASE)).objects, render_all(fleet(**CHANGES[change])).objects
    new_edges, _ = graph(monitor, new)
    steps = plan_steps(base, new)
    forward = [s.key for s in steps if s.op != "delete"]
    deletes = [s.key for s in steps if s.op == "delete" and not s.replaced]
    assert steps, change
    assert respects(forward, new_edges) == []
    # the program's order breaks ties: the component creates the objects in rendered order (a Volcano
    # child queue's RegisterResource waits for its parent's ID, so the mock's arrival order is not it)
    assert forward == [o.key for o in new if o.key in forward]
    assert [s.op for s in steps[len(steps) - len(deletes) :]] == ["delete"] * len(deletes)


def test_deletes_run_dependents_first_by_the_old_programs_graph():
    from tests.components.mocking import install_mocks

    base, new = render_all(fleet(**BASE)).objects, render_all(fleet(teams=[team("alpha")])).objects
    old_edges, _ = graph(install_mocks(), base)
    deletes = [s.key for s in plan_steps(base, new) if s.op == "delete"]
    assert len(deletes) >= 2 and respects(deletes, old_edges, reverse=True) == []


def test_the_diff_replaces_exactly_what_the_program_registers_with_replace_on_changes(monitor):
    model = fleet()
    edited = fleet(priorityClasses=[{"name": "gang-standard", "value": 5000}])
    _, registered = graph(monitor, render_all(edited).objects)
    replaced = {s.key for s in plan_steps(render_all(model).objects, render_all(edited).objects) if s.op == "replace"}
    assert replaced == {"priorityclass-gang-standard"}
    resource = registered["priorityclass-gang-standard"]
    assert resource.delete_before_replace and set(resource.replace_on_changes) == {"value", "preemptionPolicy"}
    assert not registered["workloadpriorityclass-gang-standard"].replace_on_changes


def test_every_object_is_registered_with_the_immutable_paths_the_diff_replaces_on(monitor):
    from gpufleet.render.immutable import replace_paths

    objects = render_all(fleet(pools=pools(topologyLevels=["kubernetes.io/hostname"]))).objects
    _, registered = graph(monitor, objects)
    kinds = set()
    for obj in objects:
        expected = replace_paths(obj.manifest)
        resource = registered[obj.key]
        assert (set(resource.replace_on_changes), resource.delete_before_replace) == (set(expected), bool(expected)), (
            obj.key
        )
        kinds.update([obj.manifest["kind"]] if expected else [])
    assert {"Topology", "ResourceFlavor", "LocalQueue", "PriorityClass"} <= kinds
