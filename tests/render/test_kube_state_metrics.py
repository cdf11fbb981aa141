"""What gpufleet tells kube-state-metrics to export, and how Prometheus must scrape it, rendered from the model.

The allowlist names the gang label for pods and exactly the node labels the rules join
pools on; the Helm values and the paste-able flag are the same value; the
ServiceMonitor keeps kube-state-metrics' labels (``honorLabels``) and is valid against
the prometheus-operator CRD; docs/observability.md shows what the stacks render.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpufleet.crdschema import CrdSet
from gpufleet.model import load_model
from gpufleet.render.alerts import render_rule_file
from gpufleet.render.files import monitoring_files, rule_file_text
from gpufleet.render.kube_state_metrics import (
    allowlist_entries,
    helm_values,
    ksm_label,
    metric_labels_allowlist,
    node_label_keys,
)
from gpufleet.render.monitoring import render_ksm_service_monitor
from tests.render import promtool
from tests.render.builders import fleet, pool, quota, team

ROOT = Path(__file__).resolve().parents[2]
STACKS = {name: load_model(ROOT / "stacks" / f"{name}.fleet.yaml") for name in ("dev", "prod", "mixed")}


def test_the_prod_allowlist_is_the_gang_label_and_the_pool_label():
    assert metric_labels_allowlist(STACKS["prod"]) == "pods=[gpufleet.dev/gang],nodes=[gpufleet.dev/pool]"


def test_a_pool_without_the_pool_label_is_joined_on_its_first_node_label_and_one_without_labels_on_none():
    model = fleet(
        pools=[
            pool("h100"),
            pool("a100", nodeLabels={"cloud.google.com/gke-nodepool": "a100", "zone": "b"}),
            pool("bare", nodeLabels={}),
        ],
        teams=[team("a", {"h100": quota(8), "a100": quota(8), "bare": quota(8)})],
        validate=False,
    )
    assert node_label_keys(model) == ["cloud.google.com/gke-nodepool", "gpufleet.dev/pool"]
    assert allowlist_entries(model) == [
        "pods=[gpufleet.dev/gang]",
        "nodes=[cloud.google.com/gke-nodepool,gpufleet.dev/pool]",
    ]


@pytest.mark.parametrize("name", sorted(STACKS))
def test_every_node_label_a_rule_reads_is_in_the_allowlist(name):
    allowed = {ksm_label(k) for k in node_label_keys(STACKS[name])}
    exprs = [r["expr"] for g in render_rule_file(STACKS[name])["groups"] for r in g["rules"]]
    read = {
        label
        for e in exprs
        for sel in re.findall(r"kube_node_labels\{([^}]*)\}", e)
        for label in re.findall(r"(\w+)=", sel)
    }
    assert read and read <= allowed


@pytest.mark.parametrize("name", sorted(STACKS))
def test_the_helm_values_join_to_the_flag_value(name):
    values = helm_values(STACKS[name])
    assert ",".join(values["metricLabelsAllowlist"]) == metric_labels_allowlist(STACKS[name])  # the chart's `join ","`
    assert values["prometheus"]["monitor"] == {"enabled": True, "honorLabels": True}


def test_render_writes_the_flag_the_helm_values_and_the_service_monitor():
    files = monitoring_files(STACKS["prod"])
    assert files["kube-state-metrics/metric-labels-allowlist.txt"] == (
        "--metric-labels-allowlist=pods=[gpufleet.dev/gang],nodes=[gpufleet.dev/pool]\n"
    )
    assert {"kube-state-metrics/helm-values.yaml", "kube-state-metrics/servicemonitor.yaml"} <= set(files)


def test_the_service_monitor_honors_kube_state_metrics_labels_and_follows_the_model():
    model = fleet(
        observability={
            "kubeStateMetrics": {"namespace": "monitoring", "port": "metrics", "serviceLabels": {"app": "ksm"}},
            "ruleLabels": {"release": "kps"},
        }
    )
    monitor = render_ksm_service_monitor(model)
    assert monitor["spec"] == {
        "selector": {"matchLabels": {"app": "ksm"}},
        "namespaceSelector": {"matchNames": ["monitoring"]},
        "endpoints": [{"port": "metrics", "honorLabels": True}],
    }
    assert monitor["metadata"]["labels"]["release"] == "kps"


@pytest.mark.parametrize("name", sorted(STACKS))
def test_the_service_monitor_is_valid_against_the_real_crd_and_loses_no_field(crds_dir, name):
    crds = CrdSet.load(crds_dir / "prometheus-operator")
    monitor = render_ksm_service_monitor(STACKS[name])
    assert crds.knows(monitor)
    assert [i.render() for i in crds.validate(monitor) + crds.pruned_fields(monitor)] == []


@pytest.mark.parametrize("name", ["dev", "prod"])
def test_the_docs_tell_users_to_run_the_rendered_flag(name):
    doc = (ROOT / "docs" / "observability.md").read_text(encoding="utf-8")
    assert f"--metric-labels-allowlist={metric_labels_allowlist(STACKS[name])}" in doc
    assert "honorLabels: true" in doc


def test_a_pool_without_node_labels_matches_every_node_with_a_valid_selector(tmp_path):
    model = fleet(pools=[pool("bare", nodeLabels={})], teams=[team("a", {"bare": quota(8)})])
    path = tmp_path / "rules.yaml"
    path.write_text(rule_file_text(model), encoding="utf-8")
    assert "kube_node_labels)" in path.read_text(encoding="utf-8")
    result = promtool.run("check", "rules", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
