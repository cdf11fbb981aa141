"""The CRD schemas gpufleet carries: they match the model's pins, load, and a user's folder overrides them."""

from __future__ import annotations

import copy
import fnmatch
import hashlib
import json
import tomllib
from pathlib import Path

import pytest
import yaml

from gpufleet.crdschema import bundle
from gpufleet.model.coscheduling import CoschedulingEngine
from gpufleet.model.fleet import KueueEngine, VolcanoEngine
from gpufleet.settings import load_crds

REPO = Path(__file__).resolve().parents[2]
PROVENANCE = bundle.provenance()


def volcano_job(min_available: object) -> dict:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": "ml"},
        "spec": {"minAvailable": min_available, "tasks": [{"name": "w", "replicas": 4, "template": {}}]},
    }


@pytest.mark.parametrize(
    "project, module, pinned",
    [
        ("kueue", "sigs.k8s.io/kueue", KueueEngine().chart_version),
        ("volcano", "volcano.sh/volcano", VolcanoEngine().chart_version),
        ("scheduler-plugins", "sigs.k8s.io/scheduler-plugins", CoschedulingEngine().chart_version),
    ],
)
def test_the_engines_schemas_are_of_the_versions_the_model_pins(project, module, pinned):
    assert PROVENANCE[project]["module"] == module
    assert PROVENANCE[project]["version"] == f"v{pinned}"


def test_the_scheduler_plugins_schemas_are_of_the_module_the_sandbox_builds():
    go_mod = (REPO / "sandbox" / "engines" / "coscheduling" / "go.mod").read_text(encoding="utf-8")
    assert f"sigs.k8s.io/scheduler-plugins {PROVENANCE['scheduler-plugins']['version']}" in go_mod


@pytest.mark.parametrize("project", sorted(PROVENANCE))
def test_each_project_carries_its_apache_licence_and_a_record_of_every_file(project):
    entry = PROVENANCE[project]
    licence = (bundle.BUNDLED / entry["license"]).read_text(encoding="utf-8")
    assert "Apache License" in licence and "Version 2.0" in licence
    assert entry["files"], f"{project} carries no CRD"
    for file in entry["files"]:
        assert len(file["sha256"]) == 64 and (bundle.BUNDLED / file["bundled"]).is_file()


def test_the_index_names_every_bundled_file_and_each_serves_what_it_says():
    index = bundle.index()
    recorded = {f["bundled"] for entry in PROVENANCE.values() for f in entry["files"]}
    assert {str(p.relative_to(bundle.BUNDLED)) for p in index.values()} == recorded
    crds = bundle.schemas()
    for (group, version, kind), _ in index.items():
        assert crds.knows({"apiVersion": f"{group}/{version}", "kind": kind}), (group, version, kind)


def test_mpijob_v1_is_training_operators_and_v2beta1_mpi_operators():
    index = bundle.index()
    assert index[("kubeflow.org", "v1", "MPIJob")].parent.name == "training-operator"
    assert index[("kubeflow.org", "v2beta1", "MPIJob")].parent.name == "mpi-operator"


def test_nothing_is_read_until_an_object_of_a_bundled_kind_is_met():
    crds = bundle.schemas()
    assert not crds.knows({"apiVersion": "apps/v1", "kind": "Deployment"})
    assert crds.versions == {}
    assert crds.validate(volcano_job("four"))[0].message == "must be of type integer, got string"
    assert {key[0] for key in crds.versions} == {"batch.volcano.sh"}


def _string_min_available_crd(tmp_path: Path) -> Path:
    """Volcano's Job CRD as a cluster might serve it, with minAvailable a string (an override to see)."""
    doc = json.loads(bundle.index()[("batch.volcano.sh", "v1alpha1", "Job")].read_bytes())
    doc = copy.deepcopy(doc)
    spec = doc["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"]["minAvailable"] = {"type": "string"}
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "cluster.yaml").write_text(yaml.safe_dump({"kind": "List", "items": [doc]}))
    return tmp_path / "crds"


def test_a_folders_crd_overrides_the_bundled_one_of_the_same_group_version_and_kind(tmp_path):
    crds = load_crds(str(_string_min_available_crd(tmp_path)))
    assert crds is not None
    assert crds.validate(volcano_job("four")) == []
    assert crds.validate(volcano_job(4))[0].message == "must be of type string, got integer"
    assert crds.knows({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue"})  # the rest stays


def test_without_bundled_schemas_or_a_folder_no_schemas_are_in_force(tmp_path):
    assert load_crds(None, bundled=False) is None
    only_folder = load_crds(str(_string_min_available_crd(tmp_path)), bundled=False)
    assert only_folder is not None
    assert not only_folder.knows({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue"})


def test_the_wheel_carries_every_bundled_file():
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    patterns = data["gpufleet.crdschema.bundled"] + data["*"]
    files = [p.relative_to(bundle.BUNDLED).as_posix() for p in bundle.BUNDLED.rglob("*") if p.is_file()]
    missing = [
        f
        for f in files
        if f != "__init__.py"
        and "__pycache__" not in f
        and not any(fnmatch.fnmatch(f, p) and ("/" in p) == ("/" in f) for p in patterns)
    ]
    assert missing == []


def test_the_recorded_sha256_is_that_of_the_file_in_the_module():
    """Needs the modules in the cache scripts/bundle_crds.py uses (its --check re-derives the whole folder)."""
    cache = Path.home() / ".cache" / "gpufleet" / "crd-modules"
    entry = PROVENANCE["volcano"]
    source_dir = cache / f"{entry['module']}@{entry['version']}"
    if not source_dir.is_dir():
        pytest.skip(f"{source_dir} is absent: run scripts/bundle_crds.py to download the modules")
    for file in entry["files"]:
        assert hashlib.sha256((source_dir / file["path"]).read_bytes()).hexdigest() == file["sha256"]


def test_the_carried_schemas_judge_the_upstream_examples_and_rule_fixtures_as_the_shared_crds_do(
    upstream_dir, crds_dir
):
    from gpufleet.lint import lint
    from gpufleet.rules.api import CheckContext

    paths = [str(upstream_dir), str(REPO / "tests" / "rules" / "fixtures")]
    select = ["GANG601", "GANG602"]

    def findings(crds) -> set[tuple]:
        report = lint(paths, CheckContext(crds=crds), select=select)
        return {(f.file, f.code, str(f.path), f.message) for f in report.findings}

    carried = findings(load_crds(None))
    assert carried == findings(load_crds(str(crds_dir), bundled=False))
    assert {code for _, code, _, _ in carried} == set(select)  # each rule finds something to compare
