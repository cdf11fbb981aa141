"""``gpufleet plan``'s "objects to apply" is what the stack creates (issue 21, item 5).

Compared with the whole Pulumi program under mocks, per stack: every Kubernetes resource it
registers, by kind, plus the engine ConfigMaps the charts make from gpufleet's values (which
the plan also lists), with the stack settings the CLI finds for the model.
"""

from __future__ import annotations

from collections import Counter

import pytest

from gpufleet.cli.app import run
from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.render.files import engine_config_maps
from tests.program.capture import REPO, capture_program, stack_config, stack_names


def registered_kinds(stack: str) -> Counter:
    kinds: Counter = Counter()
    for resource in capture_program(stack):
        provider, group, kind = resource["type"].split(":", 2)
        if provider != "kubernetes":
            continue
        label = "Helm chart" if kind == "Chart" else "Volcano Queue" if group.startswith("scheduling.volcano.sh/") else kind
        kinds[label] += 1
    return kinds


def plan_json(stack: str, capsys) -> dict:
    import json

    assert run(["plan", str(REPO / stack_config(stack)["gpufleet:model"]), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("stack", stack_names())
def test_the_plan_lists_every_kubernetes_object_the_stack_creates(stack, capsys):
    plan = plan_json(stack, capsys)
    model = load_model(REPO / stack_config(stack)["gpufleet:model"])
    expected = registered_kinds(stack)
    expected["ConfigMap"] += len(engine_config_maps(model))
    assert Counter(plan["objects"]) == +expected


def test_prod_counts_the_gang_alerts_and_the_controller_with_the_stacks_settings(capsys):
    plan = plan_json("prod", capsys)
    assert plan["stack"] == {"name": "prod", "file": str(REPO / "stacks" / "Pulumi.prod.yaml"),
                             "prometheusOperator": True, "certManager": True}
    assert plan["objects"]["PodMonitor"] >= 1 and plan["objects"]["PrometheusRule"] >= 1
    assert {"Deployment", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ServiceMonitor"} <= set(plan["objects"])


def test_a_model_no_stack_names_is_counted_with_the_stack_defaults(tmp_path, capsys):
    model = tmp_path / "prod.fleet.yaml"
    model.write_text((REPO / "stacks" / "prod.fleet.yaml").read_text())
    assert run(["plan", str(model)]) == 0
    out = capsys.readouterr().out
    assert "no Pulumi stack names this model" in out and "prometheusOperator false" in out
    assert "PodMonitor" not in out and "Secret" in out
    assert render_all(load_model(model)).objects
