"""Cases from files: one per pod-making document, with the file's PodGroups; fixtures and examples by id."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.difftier import cases
from gpufleet.difftier.generate import shape, shapes
from gpufleet.model import load_model

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "rules" / "fixtures"
JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "j"},
    "spec": {"parallelism": 2, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
}
GROUP = {
    "apiVersion": "scheduling.x-k8s.io/v1alpha1",
    "kind": "PodGroup",
    "metadata": {"name": "g"},
    "spec": {"minMember": 2},
}
QUEUE = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "q"}, "spec": {}}


def test_each_workload_of_a_file_is_a_case_with_the_files_pod_groups_and_without_its_cluster_objects():
    found = cases.split([QUEUE, GROUP, JOB, {**JOB, "metadata": {"name": "k"}}], "f.yaml")
    assert [c.id for c in found] == ["f.yaml#2", "f.yaml#3"]
    assert [[d["kind"] for d in c.docs] for c in found] == [["PodGroup", "Job"], ["PodGroup", "Job"]]


def test_a_file_that_is_not_yaml_has_no_case(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: [unclosed\n")
    assert cases.from_file(bad, "bad") == []


def test_every_rule_fixture_with_a_workload_gives_cases_named_by_rule_and_file():
    found = cases.fixtures(FIXTURES)
    assert any(c.id.startswith("fixture:GANG001/disallowed.yaml#") for c in found)
    assert all(c.docs and cases.makes_pods(c.docs[-1]) for c in found)


def test_the_upstream_examples_give_cases_when_shared_is_present(upstream_dir):
    found = cases.examples(upstream_dir)
    assert any(c.id == "example:volcano/example/job.yaml#0" for c in found)


DEV = load_model(ROOT / "stacks" / "dev.fleet.yaml")


def test_a_generated_shape_is_the_same_for_the_same_seed_and_number_whatever_ran_before():
    assert shape(DEV, 7, 12) == shapes(DEV, 7, 13)[12]
    assert shape(DEV, 7, 12).id == "gen:7:12" and shape(DEV, 7, 12).seed == 7


def test_generated_shapes_vary_the_fields_the_rules_read():
    docs = [c.docs[0] for c in shapes(DEV, 3, 200)]
    kinds = {(d["apiVersion"], d["kind"]) for d in docs}
    spaces = {d["metadata"]["namespace"] for d in docs}
    assert kinds == {("batch/v1", "Job"), ("batch.volcano.sh/v1alpha1", "Job")}
    assert {"scratch", "alpha", "alpha-vc", "beta", "beta-vc"} <= spaces
    volcano = [d["spec"] for d in docs if d["kind"] == "Job" and d["apiVersion"].startswith("batch.volcano")]
    pods = [sum(t["replicas"] for t in s["tasks"]) for s in volcano]
    assert {"below", "equal", "above"} <= {
        ("below" if s.get("minAvailable", p) < p else "above" if s.get("minAvailable", p) > p else "equal")
        for s, p in zip(volcano, pods)
    }
    assert any(len(s["tasks"]) == 2 for s in volcano) and any("policies" not in s for s in volcano)
    batch = [d["spec"] for d in docs if d["apiVersion"] == "batch/v1"]
    assert any(s["completions"] != s["parallelism"] for s in batch)
    assert {s["template"]["spec"]["restartPolicy"] for s in batch} == {"Never", "OnFailure"}


@pytest.mark.parametrize("seed", [1, 2])
def test_every_generated_shape_names_what_it_varied(seed):
    assert all(c.notes for c in shapes(DEV, seed, 20))
