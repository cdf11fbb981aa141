"""render_all: apply order, unique keys, engines, protection, labels, determinism."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.yamlin import yamlio
from tests.render.builders import cohort, fleet, pool, quota, team

STACKS = Path(__file__).resolve().parents[2] / "stacks"
APPLY_ORDER = [
    "Namespace",
    "PriorityClass",
    "WorkloadPriorityClass",
    "Topology",
    "ResourceFlavor",
    "Cohort",
    "ClusterQueue",
    "LocalQueue",
    "Queue",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
]


def _mixed():
    return fleet(
        pools=[pool("h100", topologyLevels=["kubernetes.io/hostname"]), pool("a100", system="volcano")],
        cohorts=[cohort("child", parent="org"), cohort("org"), cohort("lonely")],
        teams=[
            team("live", {"h100": quota(8), "a100": quota(8)}, cohort="child"),
            team("old", {"h100": quota(8), "a100": quota(8)}, cohort="child", lifecycle="retired"),
            team("gone", {"h100": quota(8)}, cohort="lonely", lifecycle="retired"),
        ],
        priorityClasses=[{"name": "gang", "value": 1}],
    )


@pytest.fixture(params=["dev", "prod", "mixed"])
def a_fleet(request):
    return _mixed() if request.param == "mixed" else load_model(STACKS / f"{request.param}.fleet.yaml")


def test_objects_come_in_apply_order(a_fleet):
    kinds = [o.manifest["kind"] for o in render_all(a_fleet).objects]
    assert kinds == sorted(kinds, key=APPLY_ORDER.index)


def test_parents_come_before_their_children(a_fleet):
    seen: set[str] = set()
    for obj in render_all(a_fleet).objects:
        spec, name = obj.manifest.get("spec", {}), obj.manifest["metadata"]["name"]
        kind = obj.manifest["kind"]
        parent = spec.get("parentName") if kind == "Cohort" else spec.get("parent") if kind == "Queue" else None
        if parent and parent != "root":
            assert f"{kind}/{parent}" in seen, name
        seen.add(f"{kind}/{name}")


def test_every_object_has_a_unique_key_and_gpufleet_labels(a_fleet):
    objects = render_all(a_fleet).objects
    assert len({o.key for o in objects}) == len(objects)
    for obj in objects:
        labels = obj.manifest["metadata"]["labels"]
        assert labels["app.kubernetes.io/managed-by"] == "gpufleet"
        assert labels["gpufleet.dev/fleet"] == a_fleet.name


def test_team_objects_carry_the_team_label():
    for obj in render_all(_mixed()).objects:
        if obj.manifest["kind"] in ("ClusterQueue", "LocalQueue"):
            assert obj.manifest["metadata"]["labels"]["gpufleet.dev/team"] in {"live", "old", "gone"}


def test_engines_name_the_chart_each_object_needs():
    engines = {o.manifest["kind"]: o.engine for o in render_all(_mixed()).objects}
    assert engines == {
        "Namespace": "core",
        "PriorityClass": "core",
        "WorkloadPriorityClass": "kueue",
        "Topology": "kueue",
        "ResourceFlavor": "kueue",
        "Cohort": "kueue",
        "ClusterQueue": "kueue",
        "LocalQueue": "kueue",
        "Queue": "volcano",
        "ValidatingAdmissionPolicy": "core",
        "ValidatingAdmissionPolicyBinding": "core",
    }


def test_quota_objects_of_live_teams_and_their_cohorts_are_protected_and_retired_ones_and_volcano_parents_are_not():
    protect = {o.key: o.protect for o in render_all(_mixed()).objects}
    assert protect["clusterqueue-live"] and protect["localqueue-live-live"] and protect["volcanoqueue-live"]
    assert protect["cohort-child"] and protect["cohort-org"]
    parents = [key for key in protect if key.startswith(("volcanoqueue-child-", "volcanoqueue-org-"))]
    assert parents and not any(protect[key] for key in parents)  # a parent queue holds no jobs: deletable once empty
    assert not (protect["clusterqueue-old"] or protect["localqueue-old-old"] or protect["volcanoqueue-old"])
    assert not protect["cohort-lonely"]
    assert not (protect["priorityclass-gang"] or protect["resourceflavor-h100"] or protect["topology-h100"])


def test_volcano_disabled_renders_no_volcano_queues_or_values():
    f = fleet(engines={"volcano": {"enabled": False}})
    rendered = render_all(f)
    assert rendered.volcano_values is None
    assert not [o for o in rendered.objects if o.engine == "volcano"]


def test_rendering_twice_gives_identical_output(a_fleet):
    first, second = render_all(a_fleet), render_all(a_fleet)
    dump = lambda r: (
        yamlio.dump_all([o.manifest for o in r.objects]) + yamlio.dump([r.kueue_values, r.volcano_values, r.context])
    )
    assert dump(first) == dump(second)
    assert [o.key for o in first.objects] == [o.key for o in second.objects]


def _quantities(manifest: dict) -> list:
    spec = manifest.get("spec", {})
    out = [spec.get("fairSharing", {}).get("weight")] if manifest["kind"] in ("ClusterQueue", "Cohort") else []
    for group in spec.get("resourceGroups", []):
        for flavor in group["flavors"]:
            for res in flavor["resources"]:
                out += [v for k, v in res.items() if k != "name"]
    for field in ("deserved", "capability"):
        out += list(spec.get(field, {}).values())
    out += list(spec.get("guarantee", {}).get("resource", {}).values())
    return out


def test_rendered_quantities_are_strings(a_fleet):
    quantities = [q for o in render_all(a_fleet).objects for q in _quantities(o.manifest)]
    assert quantities and all(isinstance(q, str) for q in quantities)
