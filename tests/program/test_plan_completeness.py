"""``gpufleet plan``'s "objects to apply" is what the stack creates (issue 21, item 5).

Compared with the whole Pulumi program under mocks, per stack: every Kubernetes resource it
registers, by kind, plus the engine ConfigMaps the charts make from gpufleet's values (which
the plan also lists), with the stack settings the CLI finds for the model.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from gpufleet.cli.app import run
from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.render.files import engine_config_maps
from tests.program.capture import REPO, capture_program, run_stack, stack_config, stack_names


def registered_kinds(stack: str, config: dict | None = None) -> Counter:
    kinds: Counter = Counter()
    resources = capture_program(stack) if config is None else [r.to_dict() for r in run_stack(stack, config).registered]
    for resource in resources:
        provider, group, kind = resource["type"].split(":", 2)
        if provider != "kubernetes":
            continue
        label = (
            "Helm chart" if kind == "Chart" else "Volcano Queue" if group.startswith("scheduling.volcano.sh/") else kind
        )
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
    assert plan["stack"] == {
        "name": "prod",
        "file": str(REPO / "stacks" / "Pulumi.prod.yaml"),
        "prometheusOperator": True,
        "certManager": True,
        "enginesInstalled": False,
    }
    assert plan["objects"]["PodMonitor"] >= 1 and plan["objects"]["PrometheusRule"] >= 1
    assert {"Deployment", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ServiceMonitor"} <= set(
        plan["objects"]
    )


def test_a_model_no_stack_names_is_counted_with_the_stack_defaults(tmp_path, capsys):
    model = tmp_path / "prod.fleet.yaml"
    model.write_text((REPO / "stacks" / "prod.fleet.yaml").read_text())
    assert run(["plan", str(model)]) == 0
    out = capsys.readouterr().out
    assert "no Pulumi stack names this model" in out and "prometheusOperator false" in out
    assert "PodMonitor" not in out and "Secret" in out
    assert render_all(load_model(model)).objects


@pytest.mark.parametrize("stack", stack_names())
def test_with_the_engines_installed_the_plan_lists_no_chart_and_what_the_stack_creates(stack, tmp_path, capsys):
    config = {**stack_config(stack), "gpufleet:enginesInstalled": "true"}
    (tmp_path / "Pulumi.yaml").write_text("name: gpufleet\nruntime: python\n")
    model = tmp_path / "model.fleet.yaml"
    model.write_text((REPO / config["gpufleet:model"]).read_text())
    (tmp_path / f"Pulumi.{stack}.yaml").write_text(
        "config:\n"
        + "".join(f"  {k}: {'model.fleet.yaml' if k == 'gpufleet:model' else v!r}\n" for k, v in config.items())
    )
    assert run(["plan", str(model), "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["stack"]["enginesInstalled"] is True
    assert "Helm chart" not in plan["objects"]
    assert Counter(plan["objects"]) == +registered_kinds(stack, config)
