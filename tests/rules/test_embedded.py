"""A manifest an Argo Workflow creates as written is checked as its own object, at a path inside the outer one (issue 32, item 13)."""

from __future__ import annotations

import pytest

from gpufleet.lint import lint_sources
from gpufleet.lint.sources import Source
from gpufleet.rules import engine
from gpufleet.workloads.embedded import embedded_manifests

AT = "spec.templates[0].resource.manifest"
PYTORCH = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  generateName: train-
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 4
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: trainer:1
            resources: {limits: {nvidia.com/gpu: 8}}
"""


def workflow(manifest: str = PYTORCH, action: str = "create", kind: str = "Workflow") -> dict:
    templates = [{"name": "train", "resource": {"action": action, "manifest": manifest}}]
    spec = {"workflowSpec": {"templates": templates}} if kind == "CronWorkflow" else {"templates": templates}
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": kind,
        "metadata": {"name": "pipeline", "namespace": "research"},
        "spec": spec,
    }


def gang205(obj: dict) -> list[tuple[str, str]]:
    return [(f.kind, str(f.path)) for f in engine.check_object(obj, select=["GANG205"])]


@pytest.mark.parametrize(
    "kind, at",
    [
        ("Workflow", AT),
        ("WorkflowTemplate", AT),
        ("ClusterWorkflowTemplate", AT),
        ("CronWorkflow", "spec.workflowSpec.templates[0].resource.manifest"),
    ],
)
def test_the_embedded_pytorchjob_is_judged_as_its_own_object_at_a_path_inside_the_workflow(kind, at):
    assert gang205(workflow(kind=kind)) == [("PyTorchJob", f"{at}.spec.pytorchReplicaSpecs.Worker.restartPolicy")]


@pytest.mark.parametrize(
    "manifest, action",
    [
        (PYTORCH, "delete"),
        (PYTORCH, "patch"),
        (PYTORCH, "get"),
        ("kind: [unclosed", "create"),
        ("just a string", "create"),
    ],
)
def test_a_manifest_not_created_as_written_or_not_an_object_is_left_to_argo(manifest, action):
    assert gang205(workflow(manifest, action)) == []


def test_an_embedded_manifest_without_a_namespace_is_created_in_the_workflows():
    [(_, inner)] = embedded_manifests(workflow())
    assert inner["metadata"]["namespace"] == "research"


def test_lint_places_the_finding_on_the_line_inside_the_manifest_string():
    lines = [
        "apiVersion: argoproj.io/v1alpha1",
        "kind: Workflow",
        "metadata: {name: pipeline, namespace: research}",
        "spec:",
        "  templates:",
        "  - name: train",
        "    resource:",
        "      action: create",
        "      manifest: |",
        *("        " + line for line in PYTORCH.splitlines()),
    ]
    report = lint_sources([Source("wf.yaml", "\n".join(lines) + "\n")], select=["GANG205"])
    [result] = report.results
    assert lines[result.finding.line - 1].strip() == "restartPolicy: OnFailure"
    assert str(result.finding.path) == f"{AT}.spec.pytorchReplicaSpecs.Worker.restartPolicy"
