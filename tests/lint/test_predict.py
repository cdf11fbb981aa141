"""``gpufleet predict``'s core: every object's contract and invariants, on every rule fixture and upstream example."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.lint.predict import predict
from gpufleet.lint.predictout import document, render_json
from gpufleet.lint.predicttext import render
from gpufleet.rules.api import CheckContext
from tests.conftest import SHARED, shared_cases

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "rules" / "fixtures"
VALIDATOR = jsonschema.Draft202012Validator(json.loads((ROOT / "docs" / "schemas" / "predict.schema.json").read_text()))
EXAMPLES = SHARED / "examples"


def errors(doc: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(doc)]


def write(tmp_path: Path, text: str, name: str = "job.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("folder", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
def test_every_rule_fixture_is_predicted_within_the_schema(folder):
    report = predict([str(FIXTURES / folder)])
    assert report.predictions and not errors(document(report))
    assert render(report)


@pytest.mark.shared
@pytest.mark.parametrize(
    "path",
    shared_cases(sorted(str(p) for p in EXAMPLES.rglob("*") if p.suffix in (".yaml", ".yml", ".json")), 1, "examples"),
)
def test_every_shared_example_is_predicted_within_the_schema(path):
    report = predict([path])
    assert not errors(document(report)) and isinstance(render(report), str)


@pytest.mark.parametrize(
    "code, number",
    [("GANG204", 5), ("GANG001", 3), ("GANG002", 2), ("GANG201", 5), ("GANG203", 7)],
)
def test_a_rules_disallowed_fixture_breaks_the_invariant_its_code_checks(code, number):
    report = predict([str(FIXTURES / code / "disallowed.yaml")])
    broken = {(v.invariant.number, c) for p in report.predictions for v in p.verdicts if not v.holds for c in v.codes}
    assert (number, code) in broken


def test_a_job_too_big_for_its_pool_breaks_capacity_and_says_why():
    folder = FIXTURES / "GANG403"
    fleet = FleetContext.from_dict(json.loads((folder / "fleet-context.json").read_text()))
    report = predict([str(folder / "disallowed.yaml")], CheckContext(fleet=fleet))
    capacity = [v for p in report.predictions for v in p.verdicts if v.invariant.number == 9]
    assert any(not v.holds and "GANG403" in v.codes and v.why for v in capacity)


JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: team-a, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  parallelism: 4
  completions: 4
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]
"""


def test_the_json_form_carries_the_contract_of_each_object(tmp_path):
    [obj] = json.loads(render_json(predict([write(tmp_path, JOB)])))["objects"]
    assert obj["podSets"][0]["count"] == 4 and obj["podSets"][0]["gpusPerPod"] == 8
    assert (obj["admission"]["unit"], obj["admission"]["by"]) == ("whole", "kueue")
    assert obj["onRankFailure"]["by"] == "podController" and obj["onRankFailure"]["scope"] == "pod"
    assert [v["number"] for v in obj["invariants"]] == list(range(1, 13))


def test_a_list_item_and_an_embedded_manifest_are_predicted_at_their_paths(tmp_path):
    import yaml

    workflow = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {"name": "wf", "namespace": "team-a"},
        "spec": {"templates": [{"name": "t", "resource": {"action": "create", "manifest": JOB}}]},
    }
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [workflow]})
    report = predict([write(tmp_path, text)])
    assert [(p.contract.kind, str(p.at)) for p in report.predictions] == [
        ("Workflow", "items[0]"),
        ("Job", "items[0].spec.templates[0].resource.manifest"),
    ]


def test_an_unknown_kind_is_reported_unknown_never_safe(tmp_path):
    text = "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n"
    report = predict([write(tmp_path, text)])
    assert not report.predictions[0].contract.known and "unknown" in render(report)
    assert document(report)["summary"]["unknown"] == 1


def test_input_that_is_not_an_object_is_a_problem_and_exit_1(tmp_path):
    report = predict([write(tmp_path, "just: [unclosed\n")])
    assert report.problems and report.exit_code == 1 and not errors(document(report))


def test_the_operator_profile_comes_from_the_context_when_it_has_one(tmp_path, monkeypatch):
    """Until the fleet context carries ``operators`` the readers get the upstream defaults."""
    from gpufleet.workloads.contract import registry

    seen = []
    real = registry.read
    monkeypatch.setattr("gpufleet.lint.predict.read", lambda obj, run: seen.append(run.operators) or real(obj, run))
    predict([write(tmp_path, JOB)], CheckContext(fleet=FleetContext("f", (), ())))
    assert seen and seen[0] == getattr(FleetContext("f", (), ()), "operators", registry.NO_PROFILE)
