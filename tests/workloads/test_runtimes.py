"""Kubeflow Trainer runtimes: their own view, and a TrainJob seen through the runtime it references."""

from __future__ import annotations

import pytest

from gpufleet import workloads
from tests.rules import builders as b

NODE = "spec.template.spec.replicatedJobs[1].template.spec.template"


def runtime_with_initializer(**kwargs):
    jobs = [
        b.replicated_job("dataset-initializer", replicas=None, parallelism=None),
        b.replicated_job("node", replicas=None, parallelism=None, gpus=8),
    ]
    return b.training_runtime(replicated_jobs=jobs, **kwargs)


def train_job(num_nodes=None, ref=None, namespace="research"):
    job = b.train_job(num_nodes=num_nodes, namespace=namespace)
    if ref is not None:
        job["spec"]["runtimeRef"] = ref
    return job


@pytest.mark.parametrize("kind", ["ClusterTrainingRuntime", "TrainingRuntime"])
def test_a_runtime_lists_its_jobset_templates_with_exact_paths_and_the_node_job_counts_num_nodes(kind):
    view = workloads.view(runtime_with_initializer(kind=kind, num_nodes=4, namespace="research"))
    assert [(t.path, t.replicas, t.role) for t in view.templates] == [
        ("spec.template.spec.replicatedJobs[0].template.spec.template", 1, "dataset-initializer"),
        (NODE, 4, "node"),
    ]
    assert view.templates[1].spec_path == f"{NODE}.spec"
    assert view.total_pods == 5


def test_a_runtime_without_num_nodes_runs_one_node():
    assert workloads.view(b.training_runtime(num_nodes=None)).total_pods == 1


def test_a_train_job_takes_the_templates_and_node_count_of_its_runtime_in_the_run():
    job, runtime = train_job(), runtime_with_initializer(num_nodes=4)
    view = workloads.with_runtime(workloads.view(job), (job, runtime))
    assert [t.path for t in view.templates][1] == NODE
    assert (view.templates[1].replicas, view.total_pods) == (4, 5)


def test_the_train_jobs_num_nodes_overrides_the_runtimes():
    job, runtime = train_job(num_nodes=2), runtime_with_initializer(num_nodes=4)
    assert workloads.with_runtime(workloads.view(job), (job, runtime)).templates[1].replicas == 2


@pytest.mark.parametrize(
    "ref, runtime",
    [
        ({"name": "other"}, b.training_runtime()),
        ({"name": "torch-distributed", "kind": "TrainingRuntime"}, b.training_runtime()),
        ({"name": "torch-distributed", "apiGroup": "example.com"}, b.training_runtime()),
        (
            {"name": "torch-distributed", "kind": "TrainingRuntime"},
            b.training_runtime(kind="TrainingRuntime", namespace="elsewhere"),
        ),
    ],
    ids=["other-name", "other-kind", "other-group", "namespaced-runtime-in-another-namespace"],
)
def test_a_train_job_whose_runtime_is_not_in_the_run_keeps_its_own_view(ref, runtime):
    job = train_job(num_nodes=3, ref=ref)
    view = workloads.with_runtime(workloads.view(job), (job, runtime))
    assert (view.templates, view.total_pods) == ((), 3)


def test_a_namespaced_runtime_in_the_train_jobs_namespace_is_found():
    runtime = b.training_runtime(kind="TrainingRuntime", namespace="research")
    job = train_job(ref={"name": "torch-distributed", "kind": "TrainingRuntime", "apiGroup": "trainer.kubeflow.org"})
    assert workloads.runtime_for(job, (runtime,)) is runtime


def test_other_workloads_are_returned_unchanged():
    view = workloads.view(b.jobset())
    assert workloads.with_runtime(view, (b.training_runtime(),)) is view


def test_a_train_job_alone_stands_for_num_nodes_pods_of_its_resources_per_node():
    job = train_job(num_nodes=6)
    job["spec"]["trainer"]["resourcesPerNode"] = {"limits": {"nvidia.com/gpu": 8}}
    [node] = workloads.with_nodes_alone(workloads.view(job)).templates
    assert (node.replicas, node.replicas_path, node.spec["containers"][0]["resources"]) == (
        6,
        "spec.trainer.numNodes",
        {"limits": {"nvidia.com/gpu": 8}},
    )


@pytest.mark.parametrize("with_runtime", [True, False], ids=["runtime-in-the-run", "no-resources-per-node"])
def test_a_train_job_with_its_runtime_or_without_resources_per_node_is_left_as_it_is(with_runtime):
    job, runtime = train_job(num_nodes=2), runtime_with_initializer(num_nodes=4)
    view = workloads.with_runtime(workloads.view(job), (job, runtime)) if with_runtime else workloads.view(job)
    assert workloads.with_nodes_alone(view) is view
