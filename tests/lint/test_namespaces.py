"""``--namespace``: manifests without metadata.namespace are judged in the namespace kubectl would use."""

from __future__ import annotations

import pytest

from gpufleet.lint import lint
from gpufleet.lint.namespaces import with_namespace
from gpufleet.rules.api import CheckContext
from tests.lint import manifests as m
from tests.rules.helpers import FLEET

UNLABELLED_JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train}
spec:
  replicatedJobs:
  - {name: w, template: {spec: {parallelism: 4, completions: 4, template: {spec: {restartPolicy: Never, containers: [{name: w, image: t:1}]}}}}}
"""


@pytest.mark.parametrize(
    "obj, expected",
    [
        ({"kind": "Job", "metadata": {"name": "a"}}, "team-a"),
        ({"kind": "Job", "metadata": {"name": "a", "namespace": "other"}}, "other"),
        ({"kind": "Job"}, "team-a"),
        ({"kind": "ClusterQueue", "metadata": {"name": "cq"}}, None),
        ({"kind": "ClusterTrainingRuntime", "metadata": {"name": "rt"}}, None),
    ],
)
def test_only_namespaced_objects_without_a_namespace_are_placed(obj, expected):
    assert (with_namespace(obj, "team-a").get("metadata") or {}).get("namespace") == expected


def test_placing_never_modifies_the_loaded_object():
    obj = {"kind": "Job", "metadata": {"name": "a"}}
    with_namespace(obj, "team-a")
    assert obj == {"kind": "Job", "metadata": {"name": "a"}}


def test_a_namespace_aware_rule_judges_the_manifest_in_the_given_namespace(tmp_path):
    path = str(m.write(tmp_path, "js.yaml", UNLABELLED_JOBSET))
    ctx = CheckContext(fleet=FLEET)
    in_vision = lint([path], ctx, select=["GANG103"], namespace="vision").findings
    in_default = lint([path], ctx, select=["GANG105"]).findings
    assert [(f.code, f.namespace) for f in in_vision] == [("GANG103", "vision")]
    assert [(f.code, f.namespace) for f in in_default] == [("GANG105", "default")]
