"""The RayCluster and RayJob reader against KubeRay v1.5.0, one upstream function per row."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.kubetypes import vocab
from tests.workloads.contract.probes import PROBES, contract_of, ray_cluster, ray_job, worker_group

VOLCANO = {"kuberay": {"gangScheduler": "volcano"}}
PLUGINS = {"kuberay": {"gangScheduler": "scheduler-plugins"}}
MULTI_HOST = {"kuberay": {"featureGates": ["RayMultiHostIndexing"]}}

CASES = [
    # (upstream behaviour, object, operator settings, probe, expected)
    (
        "util.go GetWorkerGroupDesiredReplicas: replicas × numOfHosts",
        ray_cluster(worker_group(replicas=2, numOfHosts=4)),
        {},
        "counts",
        {"head": 1, "gpu": 8},
    ),
    (
        "GetWorkerGroupDesiredReplicas: replicas clamped up to minReplicas",
        ray_cluster(worker_group(replicas=1, minReplicas=3)),
        {},
        "counts",
        {"head": 1, "gpu": 3},
    ),
    (
        "GetWorkerGroupDesiredReplicas: replicas clamped down to maxReplicas",
        ray_cluster(worker_group(replicas=9, maxReplicas=4)),
        {},
        "counts",
        {"head": 1, "gpu": 4},
    ),
    (
        "GetWorkerGroupDesiredReplicas: absent replicas is minReplicas",
        ray_cluster(worker_group(replicas=None, minReplicas=2)),
        {},
        "counts",
        {"head": 1, "gpu": 2},
    ),
    (
        "GetWorkerGroupDesiredReplicas: a suspended group has no pods",
        ray_cluster(worker_group(replicas=4, suspend=True)),
        {},
        "counts",
        {"head": 1, "gpu": 0},
    ),
    ("without batchScheduler: no PodGroup", ray_cluster(), {}, "groups", []),
    (
        "volcano_scheduler.go calculatePodGroupParams: minMember 1 + desired workers",
        ray_cluster(worker_group(replicas=3)),
        VOLCANO,
        "groups",
        [("volcano", 4, "workload")],
    ),
    (
        "calculatePodGroupParams: 1 + Σ minReplicas × numOfHosts under autoscaling",
        ray_cluster(worker_group(replicas=6, minReplicas=1, maxReplicas=8, numOfHosts=2), autoscaling=True),
        VOLCANO,
        "admission",
        ("elastic", "volcano", 3),
    ),
    (
        "volcano_scheduler.go: the queue from the volcano.sh/queue-name label",
        ray_cluster(labels={"volcano.sh/queue-name": "team-a"}),
        VOLCANO,
        "queue",
        ["team-a"],
    ),
    (
        "scheduler_plugins.go isGangSchedulingEnabled: no PodGroup without ray.io/gang-scheduling-enabled",
        ray_cluster(worker_group(replicas=3)),
        PLUGINS,
        "groups",
        [],
    ),
    (
        "scheduler_plugins.go createPodGroup: desired + 1, autoscaling or not",
        ray_cluster(worker_group(replicas=3, minReplicas=1), autoscaling=True, labels={vocab.RAY_GANG: "true"}),
        PLUGINS,
        "groups",
        [("coscheduling", 4, "workload")],
    ),
    (
        "scheduler_plugins.go AddMetadataToPod: every pod gets the scheduler-plugins scheduler",
        ray_cluster(),
        PLUGINS,
        "schedulers",
        {"head": "scheduler-plugins-scheduler", "gpu": "scheduler-plugins-scheduler"},
    ),
    (
        "volcano_scheduler.go getAppPodGroupName: ray-<name>-pg",
        ray_cluster(),
        VOLCANO,
        "group_names",
        ["ray-rc-pg"],
    ),
    (
        "raycluster_controller.go shouldDeletePod: a failed pod is recreated alone, after the kubelet",
        ray_cluster(),
        {},
        "steps",
        {
            "head": [("kubelet", "inPlace", None), ("operator", "pod", None)],
            "gpu": [("kubelet", "inPlace", None), ("operator", "pod", None)],
        },
    ),
    (
        "reconcileMultiHostWorkerGroup: the whole multi-host replica under RayMultiHostIndexing",
        ray_cluster(worker_group(numOfHosts=4)),
        MULTI_HOST,
        "steps",
        {
            "head": [("kubelet", "inPlace", None), ("operator", "pod", None)],
            "gpu": [("kubelet", "inPlace", None), ("operator", "group", None)],
        },
    ),
    (
        "rayjob_controller.go: the submitter once the cluster is ready",
        ray_job(),
        {},
        "after",
        {"submitter": [(("head",), "ClusterReady")]},
    ),
    (
        "volcano_scheduler.go handleRayJob: the submitter is left out of minMember",
        ray_job(worker_group(replicas=3)),
        VOLCANO,
        "groups",
        [("volcano", 4, "workload")],
    ),
    (
        "rayjob_controller.go: the submitter Job's backoffLimit 2",
        ray_job(),
        {},
        "steps",
        {
            "head": [("kubelet", "inPlace", None), ("operator", "pod", None)],
            "gpu": [("kubelet", "inPlace", None), ("operator", "pod", None)],
            "submitter": [("podController", "pod", 2)],
        },
    ),
    (
        "rayjob_controller.go: HTTPMode has no submitter pod",
        ray_job(submissionMode="HTTPMode"),
        {},
        "counts",
        {"head": 1, "gpu": 2},
    ),
    (
        "rayjob_controller.go: the cluster outlives the job without shutdownAfterJobFinishes",
        ray_job(),
        {},
        "survivors_stop",
        False,
    ),
    (
        "rayjob_controller.go: shutdownAfterJobFinishes deletes the cluster",
        ray_job(shutdownAfterJobFinishes=True),
        {},
        "survivors_stop",
        True,
    ),
    (
        "kueue raycluster PodSets: queue-labelled, one Workload",
        ray_cluster(labels={vocab.QUEUE_LABEL: "q"}),
        {},
        "admission",
        ("whole", "kueue", 3),
    ),
]


@pytest.mark.parametrize(("behaviour", "obj", "operators", "probe", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_ray_reader_follows_upstream(behaviour: str, obj: dict, operators: dict, probe: str, expected: Any) -> None:
    assert PROBES[probe](contract_of(obj, operators)) == expected
