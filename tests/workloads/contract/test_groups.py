"""Readers of group objects (scheduler-plugins PodGroup, Kubernetes Workload and PodGroup) and Argo embeddings."""

from __future__ import annotations

import pytest

from gpufleet.workloads.contract.readers.argo import embedded_contracts
from gpufleet.workloads.contract.registry import Run
from tests.workloads.contract.builders import contract, job, pod_group


def test_a_scheduler_plugins_pod_group_is_a_coscheduling_group():
    found = contract(pod_group("scheduling.x-k8s.io", 4))
    assert (found.groups[0].backend, found.groups[0].minimum, found.admission.by) == ("coscheduling", 4, "coscheduling")


@pytest.mark.parametrize(
    "obj, minimum, path",
    [
        (
            {
                "apiVersion": "scheduling.k8s.io/v1beta1",
                "kind": "PodGroup",
                "metadata": {"name": "g"},
                "spec": {"schedulingPolicy": {"gang": {"minCount": 3}}},
            },
            3,
            "spec.schedulingPolicy.gang.minCount",
        ),
        (
            {
                "apiVersion": "scheduling.k8s.io/v1beta1",
                "kind": "Workload",
                "metadata": {"name": "w"},
                "spec": {"podGroupTemplates": [{"name": "t", "schedulingPolicy": {"gang": {"minCount": 2}}}]},
            },
            2,
            "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount",
        ),
    ],
)
def test_kubernetes_workload_and_pod_group_gangs(obj, minimum, path):
    group = contract(obj).groups[0]
    assert (group.backend, group.minimum, str(group.minimum_from)) == ("native", minimum, path)


def test_a_basic_policy_is_no_group():
    obj = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "g"},
        "spec": {"schedulingPolicy": {"basic": {}}},
    }
    assert contract(obj).groups == ()


def test_an_argo_workflow_embedding_a_job_reads_it_with_paths_under_the_manifest():
    import yaml

    inner = job(parallelism=4, completions=4)
    workflow = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Workflow",
        "metadata": {"name": "wf", "namespace": "team-a"},
        "spec": {"templates": [{"name": "t", "resource": {"action": "create", "manifest": yaml.safe_dump(inner)}}]},
    }
    [(at, found)] = embedded_contracts(workflow, Run(objects=(workflow,)))
    assert str(at) == "spec.templates[0].resource.manifest"
    assert str(found.pod_sets[0].count_from) == "spec.templates[0].resource.manifest.spec.parallelism"
    assert contract(workflow).known and "Job/train" in contract(workflow).notes[0]
