"""GANG106 and the routing rules know LeaderWorkerSets and Ray gangs (issue 19, item 2).

An LWS group (leader + workers, 8 GPUs each) or a RayJob/RayCluster with fixed GPU worker
groups that names no gang scheduler, no queue and no ``ray.io/gang-scheduling-enabled``
binds pod by pod under default-scheduler. A Kueue queue label routes it only where the
fleet enables Kueue's integration for the kind.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules import builders as b
from tests.rules.helpers import FLEET, paths

LABEL = "metadata.labels[kueue.x-k8s.io/queue-name]"
LWS_FRAMEWORK, RAY_FRAMEWORKS = "leaderworkerset.x-k8s.io/leaderworkerset", ("ray.io/rayjob", "ray.io/raycluster")


def lws(groups=2, size=4, labels=None, annotations=None, scheduler_name=None, namespace="research"):
    template = b.pod_template(gpus=8, scheduler_name=scheduler_name, restart_policy=None)
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": b.meta("infer", namespace, labels, annotations),
        "spec": {
            "replicas": groups,
            "leaderWorkerTemplate": {"size": size, "leaderTemplate": template, "workerTemplate": template},
        },
    }


def ray_cluster_spec(workers=4, hosts=1, scheduler_name=None, autoscaling=None):
    spec = {
        "headGroupSpec": {"template": b.pod_template(cpu="4", restart_policy=None)},
        "workerGroupSpecs": [
            {
                "groupName": "gpu",
                "replicas": workers,
                "minReplicas": workers,
                "maxReplicas": workers,
                "numOfHosts": hosts,
                "template": b.pod_template(gpus=8, scheduler_name=scheduler_name, restart_policy=None),
            }
        ],
    }
    if autoscaling is not None:
        spec["enableInTreeAutoscaling"] = autoscaling
    return spec


def ray_cluster(labels=None, namespace="research", **kw):
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": b.meta("rc", namespace, labels),
        "spec": ray_cluster_spec(**kw),
    }


def ray_job(labels=None, namespace="research", **kw):
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": b.meta("rj", namespace, labels),
        "spec": {"entrypoint": "python train.py", "rayClusterSpec": ray_cluster_spec(**kw)},
    }


UNROUTED = [lws(), ray_cluster(), ray_job()]
IDS = ["lws", "raycluster", "rayjob"]


@pytest.mark.parametrize("obj", UNROUTED, ids=IDS)
def test_an_unrouted_lws_or_ray_gpu_gang_is_reported(obj):
    assert paths("GANG106", obj) == [LABEL]


@pytest.mark.parametrize(
    "obj",
    [
        lws(scheduler_name="volcano"),
        lws(labels={"kueue.x-k8s.io/queue-name": "research"}),
        ray_cluster(labels={"ray.io/gang-scheduling-enabled": "true"}),
        ray_job(scheduler_name="volcano"),
        ray_job(labels={"kueue.x-k8s.io/queue-name": "research"}),
        ray_cluster(autoscaling=True),
        lws(size=1, groups=8),
    ],
    ids=[
        "lws-volcano",
        "lws-queue",
        "ray-gang-label",
        "rayjob-volcano",
        "rayjob-queue",
        "ray-autoscaling",
        "lws-single-pod-groups",
    ],
)
def test_a_routed_or_elastic_lws_or_ray_workload_is_not_reported(obj):
    assert paths("GANG106", obj) == []


def test_a_queue_label_is_no_route_where_the_fleet_does_not_enable_kueues_integration_for_the_kind():
    ctx = CheckContext(fleet=replace(FLEET, kueue_frameworks=("batch/job", "pod")))
    obj = lws(labels={"kueue.x-k8s.io/queue-name": "vision"}, namespace="vision")
    found = [f for f in engine.check_objects([obj], ctx, select=["GANG106"])]
    assert len(found) == 1 and LWS_FRAMEWORK in found[0].message


@pytest.mark.parametrize("obj", UNROUTED, ids=IDS)
def test_where_the_fleet_enables_the_integration_a_kueue_team_gets_gang103_instead(obj):
    ctx = CheckContext(fleet=replace(FLEET, kueue_frameworks=("batch/job", LWS_FRAMEWORK, *RAY_FRAMEWORKS)))
    obj["metadata"]["namespace"] = "vision"
    codes = {f.code for f in engine.check_objects([obj], ctx, select=["GANG103", "GANG106"])}
    assert codes == {"GANG103"}


def holding(frameworks=("batch/job", "pod"), manage=True):
    """The fleet with Kueue holding unlabelled work in team vision's namespace, and only ``frameworks`` on."""
    return CheckContext(
        fleet=replace(
            FLEET,
            kueue_frameworks=frameworks,
            manage_jobs_without_queue_name=manage,
            kueue_managed_namespaces=("vision",),
        )
    )


@pytest.mark.parametrize("autoscaling", [None, True], ids=["fixed", "autoscaled"])
def test_a_ray_cluster_whose_integration_is_off_has_every_pod_gated_where_kueue_holds_the_namespace(autoscaling):
    obj = ray_cluster(labels={"kueue.x-k8s.io/queue-name": "vision"}, namespace="vision", autoscaling=autoscaling)
    found = engine.check_objects([obj], holding(), select=["GANG106"])
    assert [f.path for f in found] == [LABEL]
    assert "gates" in found[0].message and "head included" in found[0].message
    assert "add ray.io/raycluster to the model's admission.frameworks" in found[0].fix


@pytest.mark.parametrize(
    "ctx",
    [
        holding(frameworks=("batch/job", "pod", "ray.io/raycluster")),
        holding(manage=False),
        holding(frameworks=("batch/job",)),
    ],
    ids=["integration-on", "namespace-not-held", "pod-integration-off"],
)
def test_an_autoscaled_ray_cluster_is_not_reported_where_its_pods_are_not_gated(ctx):
    obj = ray_cluster(labels={"kueue.x-k8s.io/queue-name": "vision"}, namespace="vision", autoscaling=True)
    assert [f.path for f in engine.check_objects([obj], ctx, select=["GANG106"])] == []
