"""The workload views: templates with paths, replica counts, gang minimum, queues, per kind."""

from __future__ import annotations

import pytest

from gpufleet import workloads
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.engine import check_object
from gpufleet.yamlin import yamlio
from tests.rules import builders as b


def templates_of(obj):
    return [(t.path, t.replicas, t.role, t.replicas_path) for t in workloads.view(obj).templates]


@pytest.mark.parametrize(
    "obj",
    [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue"},
        {"kind": "Job"},
        "not a mapping",
        None,
    ],
)
def test_objects_that_are_not_workloads_have_no_view(obj):
    assert workloads.view(obj) is None


def test_a_volcano_job_lists_each_task_with_its_path_and_replicas():
    job = b.volcano_job(
        tasks=[b.task("master", replicas=1), b.task("worker", replicas=3)], min_available=4, queue="research"
    )
    view = workloads.view(job)
    assert templates_of(job) == [
        ("spec.tasks[0].template", 1, "master", "spec.tasks[0].replicas"),
        ("spec.tasks[1].template", 3, "worker", "spec.tasks[1].replicas"),
    ]
    assert (view.total_pods, view.gang_min, view.gang_min_path) == (4, 4, "spec.minAvailable")
    assert (view.scheduler_name, view.volcano_queue, view.is_gang) == ("volcano", "research", True)
    assert view.templates[1].spec_path == "spec.tasks[1].template.spec"


@pytest.mark.parametrize("value", [["volcano"], {"name": "volcano"}, 7, ""])
def test_a_volcano_job_whose_scheduler_or_queue_is_not_a_string_names_none(value):
    job = b.volcano_job(tasks=[b.task("worker", replicas=2)], queue="research")
    job["spec"]["schedulerName"] = job["spec"]["queue"] = value
    view = workloads.view(job)
    assert (view.scheduler_name, view.volcano_queue) == (None, None)
    assert not [f for f in check_object(job) if f.internal]  # no rule crashes on it (a fuzzed review found one)


def test_a_volcano_task_without_replicas_counts_zero_pods_like_the_go_zero_value():
    job = b.volcano_job(tasks=[b.task("worker", replicas=None)])
    assert workloads.view(job).total_pods == 0


def test_a_volcano_job_without_min_available_has_no_gang_minimum():
    view = workloads.view(b.volcano_job())
    assert (view.gang_min, view.gang_min_path) == (None, None)


@pytest.mark.parametrize("flavor, queue", [("volcano", "research"), ("coscheduling", None)])
def test_a_pod_group_has_no_templates_and_counts_its_min_member(flavor, queue):
    view = workloads.view(b.pod_group(min_member=5, flavor=flavor, queue="research"))
    assert (view.templates, view.total_pods, view.gang_min, view.gang_min_path) == ((), 5, 5, "spec.minMember")
    assert view.volcano_queue == queue


@pytest.mark.parametrize("parallelism, gang", [(4, True), (1, False), (None, False)])
def test_a_batch_job_is_a_gang_only_when_it_runs_pods_in_parallel(parallelism, gang):
    view = workloads.view(b.batch_job(parallelism=parallelism, labels={"kueue.x-k8s.io/queue-name": "q"}))
    assert (view.total_pods, view.is_gang, view.queue_label) == (parallelism or 1, gang, "q")
    assert templates_of(view.obj) == [("spec.template", parallelism or 1, "", "spec.parallelism")]


def test_a_jobset_counts_replicas_times_parallelism_per_replicated_job():
    js = b.jobset(
        replicated_jobs=[
            b.replicated_job("leader", replicas=None, parallelism=1),
            b.replicated_job("workers", replicas=3, parallelism=4),
        ]
    )
    assert templates_of(js) == [
        ("spec.replicatedJobs[0].template.spec.template", 1, "leader", "spec.replicatedJobs[0].replicas"),
        ("spec.replicatedJobs[1].template.spec.template", 12, "workers", "spec.replicatedJobs[1].replicas"),
    ]
    assert workloads.view(js).total_pods == 13


@pytest.mark.parametrize(
    "build, field, roles",
    [
        (b.pytorch_job, "pytorchReplicaSpecs", ("Master", "Worker")),
        (b.mpi_job, "mpiReplicaSpecs", ("Launcher", "Worker")),
    ],
)
def test_a_kubeflow_job_lists_its_replica_types_and_its_scheduling_policy(build, field, roles):
    view = workloads.view(build(workers=3, min_available=2, queue="research"))
    assert [(t.path, t.role, t.replicas) for t in view.templates] == [
        (f"spec.{field}.{roles[0]}.template", roles[0], 1),
        (f"spec.{field}.{roles[1]}.template", roles[1], 3),
    ]
    assert (view.total_pods, view.gang_min, view.volcano_queue) == (4, 2, "research")
    assert view.gang_min_path == "spec.runPolicy.schedulingPolicy.minAvailable"


def test_a_train_job_counts_its_nodes_and_has_no_templates_of_its_own():
    view = workloads.view(b.train_job(num_nodes=8, labels={"kueue.x-k8s.io/queue-name": "training"}))
    assert (view.templates, view.total_pods, view.queue_label, view.is_gang) == ((), 8, "training", True)


def test_a_pod_in_a_kueue_pod_group_is_a_gang_member_with_the_total_count_as_minimum():
    view = workloads.view(b.pod(group="g", total=4, queue="q"))
    assert (view.is_gang, view.pod_group, view.gang_min, view.total_pods) == (True, "g", 4, 1)
    assert view.gang_min_path == "metadata.annotations[kueue.x-k8s.io/pod-group-total-count]"
    assert [(t.path, t.spec_path) for t in view.templates] == [("", "spec")]


def test_a_lone_pod_is_not_a_gang():
    view = workloads.view(b.pod())
    assert (view.is_gang, view.pod_group, view.gang_min) == (False, None, None)


@pytest.mark.parametrize("kind", ["Deployment", "ReplicaSet", "StatefulSet"])
def test_a_controller_is_a_gang_only_when_its_pods_join_a_pod_group(kind):
    assert workloads.view(b.deployment(group="pg1", kind=kind)).pod_group == "pg1"
    assert workloads.view(b.deployment(kind=kind)).is_gang is False


@pytest.mark.parametrize(
    "annotations, elastic",
    [({"gpufleet.dev/elastic": "true"}, True), ({"gpufleet.dev/elastic": "false"}, False), (None, False)],
)
def test_the_elastic_annotation_is_read(annotations, elastic):
    assert workloads.view(b.volcano_job(annotations=annotations)).elastic is elastic


def test_a_volcano_queue_annotation_is_read_on_workloads_without_a_queue_field():
    job = b.batch_job(annotations={"scheduling.volcano.sh/queue-name": "research"})
    assert workloads.view(job).volcano_queue == "research"


@pytest.mark.parametrize(
    "bad",
    [
        {"spec": "oops"},
        {"spec": {"tasks": "oops"}},
        {"spec": {"tasks": [{"replicas": "x"}]}},
        {"spec": {"tasks": [None, {"template": []}]}},
    ],
)
def test_malformed_volcano_jobs_give_a_view_instead_of_a_crash(bad):
    view = workloads.view({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", **bad})
    assert view is not None and view.total_pods == 0


def test_pod_containers_yields_containers_then_init_containers_with_paths():
    spec = {"containers": [{"name": "a"}, {"name": "b"}], "initContainers": [{"name": "i"}]}
    assert [(p, c["name"]) for p, c in workloads.pod_containers(spec, FieldPath.of("spec", "template", "spec"))] == [
        ("spec.template.spec.containers[0]", "a"),
        ("spec.template.spec.containers[1]", "b"),
        ("spec.template.spec.initContainers[0]", "i"),
    ]


@pytest.mark.parametrize(
    "job_scheduler, template_scheduler, expected",
    [
        (None, None, "volcano"),
        ("volcano", None, "volcano"),
        ("volcano", "default-scheduler", "default-scheduler"),
        ("kube-batch", None, "kube-batch"),
    ],
)
def test_the_effective_scheduler_of_a_volcano_task_follows_the_job_controller(
    job_scheduler, template_scheduler, expected
):
    job = b.volcano_job(scheduler_name=job_scheduler, tasks=[b.task(scheduler_name=template_scheduler)])
    view = workloads.view(job)
    assert workloads.effective_scheduler(view, view.templates[0]) == expected


def test_a_pytorch_template_without_scheduler_reaches_the_default_scheduler():
    view = workloads.view(b.pytorch_job())
    assert workloads.effective_scheduler(view, view.templates[0]) == "default-scheduler"


def test_every_upstream_workload_example_gets_a_view(upstream_dir):
    kinds = set()
    for path in sorted(upstream_dir.rglob("*.yaml")):
        for doc in yamlio.load_documents(path.read_text()):
            view = workloads.view(doc.value)
            if view is not None:
                kinds.add(view.kind)
                assert all(t.replicas >= 0 for t in view.templates), path
    assert {"Job", "JobSet", "PyTorchJob", "MPIJob", "TrainJob", "Pod", "PodGroup"} <= kinds
