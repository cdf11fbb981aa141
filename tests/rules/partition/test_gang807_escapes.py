"""GANG807 closes the static-partitioning escapes of issue 19, item 3.

``nodeName`` (kubelet enforces only NoExecute taints at admission, so nodeName skips the
scheduler's taint check), pod templates of every kind (DaemonSets, CronJobs, Deployments,
StatefulSets, bare Pods), required node affinity, and a self-added waiver, which GANG807
does not accept.
"""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from tests.rules import builders as b
from tests.rules.fixtures import context

CTX = context("GANG807")  # pool vault is dedicated to team secure
ALL = [{"operator": "Exists"}]


def spec(**fields):
    return {"containers": [b.container()], **fields}


def controller(kind, api, pod_spec, namespace="vision"):
    template = {"spec": pod_spec}
    body = {"template": template} if kind != "CronJob" else {"jobTemplate": {"spec": {"template": template}}}
    return {"apiVersion": api, "kind": kind, "metadata": b.meta("x", namespace), "spec": body}


def bare_pod(pod_spec, namespace="vision", annotations=None):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": b.meta("x", namespace, annotations=annotations),
        "spec": pod_spec,
    }


def codes(obj):
    return [(f.code, str(f.path), f.blocking) for f in engine.check_objects([obj], CTX, select=["GANG807"])]


@pytest.mark.parametrize(
    "obj, path",
    [
        (bare_pod(spec(nodeName="vault-node-1")), "spec.nodeName"),
        (controller("Job", "batch/v1", spec(nodeName="vault-node-1")), "spec.template.spec.nodeName"),
        (controller("DaemonSet", "apps/v1", spec(tolerations=ALL)), "spec.template.spec.tolerations[0]"),
        (controller("Deployment", "apps/v1", spec(tolerations=ALL)), "spec.template.spec.tolerations[0]"),
        (controller("StatefulSet", "apps/v1", spec(tolerations=ALL)), "spec.template.spec.tolerations[0]"),
        (
            controller("CronJob", "batch/v1", spec(tolerations=ALL)),
            "spec.jobTemplate.spec.template.spec.tolerations[0]",
        ),
        (bare_pod(spec(tolerations=ALL), namespace="nobodys"), "spec.tolerations[0]"),
        (
            bare_pod(
                spec(
                    affinity={
                        "nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {
                                "nodeSelectorTerms": [
                                    {
                                        "matchExpressions": [
                                            {"key": "gpufleet.dev/dedicated", "operator": "In", "values": ["secure"]}
                                        ]
                                    }
                                ]
                            }
                        }
                    }
                )
            ),
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]",
        ),
    ],
    ids=[
        "pod-nodeName",
        "job-nodeName",
        "daemonset",
        "deployment",
        "statefulset",
        "cronjob",
        "no-team-namespace",
        "affinity",
    ],
)
def test_every_way_another_teams_pods_reach_a_dedicated_pool_is_a_blocking_finding(obj, path):
    assert codes(obj) == [("GANG807", path, True)]


def test_a_self_added_waiver_does_not_waive_the_partition():
    pod = bare_pod(spec(tolerations=ALL), annotations={"waive.gpufleet.dev/GANG807": "we need the GPUs"})
    assert codes(pod) == [("GANG807", "spec.tolerations[0]", True)]


def test_the_owner_may_use_its_own_pool_and_a_toleration_of_no_schedule_only_does_not_reach_a_no_execute_taint():
    owner = bare_pod(spec(nodeName="vault-node-1", tolerations=ALL), namespace="secure")
    weak = bare_pod(spec(tolerations=[{"key": "gpufleet.dev/dedicated", "operator": "Exists", "effect": "NoSchedule"}]))
    assert codes(owner) == [] and codes(weak) == []
