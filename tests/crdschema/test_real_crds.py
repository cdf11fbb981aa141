"""The real CRDs (Kueue 0.19.2, Volcano 1.15.1, ...) of ../shared against upstream and hand-made objects."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpufleet.crdschema.cel import ext as celext
from gpufleet.yamlin import yamlio
from tests.conftest import SHARED, shared_cases
from tests.crdschema.builders import cluster_queue, sample, topology

UPSTREAM = SHARED / "examples" / "upstream"
PRUNED_UPSTREAM = {  # upstream files whose objects carry fields the API server drops, with the exact paths
    "volcano/example/kubecon-2019-china/task-priority/elastic-job.yaml": [
        "spec.tasks[0].template.spec.priorityClass",
        "spec.tasks[1].template.spec.priorityClass",
    ],
}


def upstream_documents() -> list:
    files = sorted(UPSTREAM.rglob("*.yaml")) if UPSTREAM.exists() else []
    return shared_cases(
        [(str(f.relative_to(UPSTREAM)), i) for f in files for i, _ in enumerate(_objects(f))], 2, "examples", "upstream"
    )


def _objects(path: Path) -> list[dict]:
    return [doc.value for doc in yamlio.load_documents(path.read_text()) if isinstance(doc.value, dict)]


def upstream(name: str, index: int) -> dict:
    return _objects(UPSTREAM / name)[index]


@pytest.mark.parametrize("name, index", upstream_documents())
def test_every_upstream_example_of_a_known_kind_validates_cleanly(real_crds, upstream_dir, name, index):
    obj = upstream(name, index)
    if not real_crds.knows(obj):
        pytest.skip(f"{obj.get('apiVersion')} {obj.get('kind')} has no CRD in ../shared/crds (built-in kind)")
    assert real_crds.validate(obj) == []
    assert [i.path for i in real_crds.pruned_fields(obj)] == PRUNED_UPSTREAM.get(name, [])


@pytest.mark.parametrize(
    "name, count",
    [
        ("kueue/site/static/examples/getting-started/quick-start-setup.yaml", 3),
        ("kueue/site/static/examples/tas/sample-gpu-queues.yaml", 4),
        ("volcano/example/hierarchical-jobs/queues.yaml", 4),
    ],
)
def test_the_kueue_and_volcano_queue_examples_are_all_known_kinds(real_crds, upstream_dir, name, count):
    docs = [d.value for d in yamlio.load_documents((upstream_dir / name).read_text())]
    assert sum(real_crds.knows(d) for d in docs) == count


def messages(issues) -> list[tuple[str, str]]:
    return [(i.path, i.message) for i in issues]


def test_a_rendered_cluster_queue_with_float_quotas_is_valid(real_crds):
    assert real_crds.validate(cluster_queue()) == []


def test_borrowing_limit_without_a_cohort_fails_the_cel_rule(real_crds):
    obj = cluster_queue()
    del obj["spec"]["cohortName"]
    assert messages(real_crds.validate(obj)) == [("spec", "borrowingLimit must be nil when cohort is empty")]


def test_a_v1beta1_cohort_field_on_a_v1beta2_cluster_queue_is_pruned(real_crds):
    obj = cluster_queue(cohort="org")
    [issue] = real_crds.pruned_fields(obj)
    assert (issue.path, issue.message) == (
        "spec.cohort",
        "field is not in the ClusterQueue v1beta2 schema; the API server would silently drop it",
    )
    assert "cohortName" in issue.fix


def test_the_cohort_field_is_the_v1beta1_spelling(real_crds):
    obj = {**cluster_queue(cohort="org"), "apiVersion": "kueue.x-k8s.io/v1beta1"}
    del obj["spec"]["cohortName"]
    assert (real_crds.validate(obj), real_crds.pruned_fields(obj)) == ([], [])


def test_a_misspelled_priority_class_in_a_volcano_pod_template_is_pruned(real_crds):
    job = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": "ml"},
        "spec": {
            "schedulerName": "volcano",
            "minAvailable": 2,
            "tasks": [
                {
                    "name": "worker",
                    "replicas": 2,
                    "template": {
                        "spec": {
                            "priorityClass": "high",
                            "restartPolicy": "Never",
                            "containers": [{"name": "c", "image": "x"}],
                        }
                    },
                }
            ],
        },
    }
    assert [i.path for i in real_crds.pruned_fields(job)] == ["spec.tasks[0].template.spec.priorityClass"]
    assert real_crds.pruned_fields(job)[0].fix.startswith("did you mean priorityClassName?")


@pytest.mark.parametrize(
    "levels, valid",
    [
        (["cloud.provider.com/topology-block", "kubernetes.io/hostname"], True),
        (["cloud.provider.com/topology-block", "cloud.provider.com/topology-rack"], True),
        (["kubernetes.io/hostname", "cloud.provider.com/topology-rack"], False),
    ],
)
def test_a_topology_must_put_the_hostname_level_last(real_crds, levels, valid):
    expected = (
        []
        if valid
        else [("spec.levels", "the kubernetes.io/hostname label can only be used at the lowest level of topology")]
    )
    assert messages(real_crds.validate(topology(*levels))) == expected


def test_a_flavor_with_fewer_resources_than_covered_is_rejected(real_crds):
    obj = cluster_queue()
    obj["spec"]["resourceGroups"][0]["flavors"].append(
        {"name": "a100", "resources": [{"name": "cpu", "nominalQuota": 8}]}
    )
    assert messages(real_crds.validate(obj)) == [
        ("spec.resourceGroups[0]", "flavors must have the same number of resources as the coveredResources")
    ]


def test_a_structural_error_in_a_real_crd_has_the_exact_path(real_crds):
    obj = cluster_queue()
    obj["spec"]["resourceGroups"][0]["flavors"][0]["resources"][1]["nominalQuota"] = 1.5
    assert messages(real_crds.validate(obj))[0] == (
        "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota",
        "must be of type integer or string, got number",
    )


def test_a_volcano_queue_with_a_namespace_and_a_bad_weight_is_reported(real_crds):
    queue = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": "q", "namespace": "ml"},
        "spec": {"weight": "heavy"},
    }
    assert sorted(i.path for i in real_crds.validate(queue)) == ["metadata.namespace", "spec.weight"]


def kueue_and_volcano_rules(real_crds):
    return [r for r in real_crds.cel_rules() if Path(_source(real_crds, r)).parent.name in ("kueue", "volcano")]


def _source(real_crds, rule) -> str:
    return next(v.source for v in real_crds.versions.values() if v.label == rule.crd)


def test_the_shared_crds_have_rules_to_check(real_crds):
    assert len(kueue_and_volcano_rules(real_crds)) >= 80


@pytest.mark.parametrize("full", [True, False], ids=["every-field", "required-only"])
def test_every_kueue_and_volcano_cel_rule_compiles_and_evaluates(real_crds, full):
    not_run = []
    for rule in kueue_and_volcano_rules(real_crds):
        assert rule.compile_error == "", (rule.crd, rule.schema_path, rule.rule)
        if not rule.runs_on_create:
            assert rule.transition and not rule.optional_old_self, rule.rule
            continue
        passed, detail = rule.evaluate(celext.to_cel(sample(rule.schema, full)))
        if passed is None:
            not_run.append((rule.crd, rule.schema_path, rule.rule, detail))
    assert not_run == []


def test_validating_every_upstream_example_leaves_no_unsupported_rule(real_crds, upstream_dir):
    for name, index in upstream_documents():
        real_crds.validate(upstream(name, index))
    real_crds.validate(cluster_queue())
    assert real_crds.unsupported_rules == []


def test_the_fast_runner_evaluates_like_stock_cel_python(real_crds):
    rules = [r for r in kueue_and_volcano_rules(real_crds) if r.runs_on_create]
    cases = [(r, celext.to_cel(sample(r.schema, full))) for r in rules for full in (True, False)]
    fast = [rule.evaluate(value) for rule, value in cases]
    stock = [
        dataclasses.replace(rule, program=celext.stock_program(rule.rule)).evaluate(value) for rule, value in cases
    ]
    assert fast == stock
    assert {passed for passed, _ in fast} == {True, False}
