"""The ``render --out`` layout: numeric prefixes in apply order, engine ConfigMaps, the context."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from gpufleet.fleetctx.context import FleetContext
from gpufleet.render import files, render_all
from gpufleet.render.files import OWN_FILE, render_files
from gpufleet.render.kueue_config import render_manager_config
from gpufleet.render.volcano import render_scheduler_conf
from tests.render.builders import cohort, fleet, pool, quota, team


def _fleet(**extra):
    return fleet(
        pools=[pool("h100"), pool("a100", system="volcano")],
        cohorts=[cohort("leaf", parent="mid"), cohort("mid", parent="top"), cohort("top")],
        teams=[team("a", {"h100": quota(8), "a100": quota(8)}, cohort="leaf")],
        priorityClasses=[{"name": "gang", "value": 1}],
        **extra,
    )


def _files(f):
    return render_files(f, render_all(f))


def test_files_sort_in_apply_order_with_parents_before_children():
    names = [n for n in _files(_fleet()) if "/" not in n]
    assert names == sorted(names)
    kinds = [yaml.safe_load(_files(_fleet())[n])["kind"] for n in sorted(names)]
    assert (
        kinds.index("PriorityClass")
        < kinds.index("ResourceFlavor")
        < kinds.index("Cohort")
        < kinds.index("ClusterQueue")
    )
    ordered = [
        re.sub(r"-[0-9a-f]{8}\.yaml$", ".yaml", n) for n in sorted(names) if "-cohort-" in n or "-volcanoqueue-" in n
    ]
    assert ordered == [
        "050-cohort-top.yaml",
        "051-cohort-mid.yaml",
        "052-cohort-leaf.yaml",
        "080-volcanoqueue-top.yaml",
        "081-volcanoqueue-mid.yaml",
        "082-volcanoqueue-leaf.yaml",
        "083-volcanoqueue-a.yaml",
    ]  # parent queues carry a digest suffix (gpufleet.render.volcano)


def test_every_object_file_matches_the_pattern_the_cli_recognises_as_its_own():
    assert all(OWN_FILE.match(n) for n in _files(_fleet()) if "/" not in n)


def test_the_engine_configs_ship_as_the_configmaps_the_charts_would_create():
    f = _fleet()
    files = _files(f)
    kueue = yaml.safe_load(files["000-configmap-kueue-manager-config.yaml"])
    assert kueue["metadata"]["namespace"] == "kueue-system"
    assert yaml.safe_load(kueue["data"]["controller_manager_config.yaml"]) == render_manager_config(f)
    volcano = yaml.safe_load(files["000-configmap-volcano-scheduler-configmap.yaml"])
    assert volcano["metadata"]["namespace"] == "volcano-system"
    assert yaml.safe_load(volcano["data"]["volcano-scheduler.conf"]) == render_scheduler_conf(f)


def test_the_context_ships_as_the_controller_configmap_and_as_plain_json_outside_the_apply_set():
    files = _files(_fleet())
    config_map = yaml.safe_load(files["090-configmap-gang-admission-controller-fleet-context.yaml"])
    assert config_map["metadata"]["namespace"] == "gpufleet-system"
    assert json.loads(config_map["data"]["fleet-context.json"]) == json.loads(files["context/fleet-context.json"])
    assert FleetContext.from_dict(json.loads(files["context/fleet-context.json"])).fleet == "test"


def test_disabled_volcano_and_controller_write_no_configmap_for_them():
    names = set(_files(fleet(engines={"volcano": {"enabled": False}}, controller={"enabled": False})))
    assert "000-configmap-volcano-scheduler-configmap.yaml" not in names
    assert "090-configmap-gang-admission-controller-fleet-context.yaml" not in names
    assert "context/fleet-context.json" in names


class _StockDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """The file dumper as PyYAML's own representer and resolver would run it."""

    def ignore_aliases(self, data):
        return True


_StockDumper.add_representer(
    str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None)
)


@pytest.mark.parametrize(
    "value",
    [
        {"a": "yes", "b": "1.0", "c": "null", "d": "", "e": "~", "f": "0755", "g": "2024-01-01", "h": ":", "i": "- x"},
        {"multi": "line one\nline two\n", "trailing": "x\n\n", "indented": "  lead\nx", "unicode": "é 中 \u2028"},
        {"ints": [0, -1, 2**70], "bools": [True, False], "none": None, "floats": [1.5, float("inf"), -0.0, 1e20]},
        {"empty": {}, "list": [], "nested": [{"a": [{"b": {}}]}, [[1], []]], "long": "w " * 100},
        {"k" * 130: "v", "shared": ["same"] * 3, 7: "int key", "tuple": ("t", 1)},
    ],
)
def test_the_file_dumper_writes_what_pyyamls_representer_writes(value):
    options = {"sort_keys": False, "default_flow_style": False, "width": 120, "allow_unicode": True}
    assert files.dump(value) == yaml.dump(value, Dumper=_StockDumper, **options)
