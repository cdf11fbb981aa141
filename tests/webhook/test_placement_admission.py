"""The admission controller guards coscheduling and dedicated pools: /mutate routes and pins, /validate judges GANG80x."""

from __future__ import annotations

import orjson

from gpufleet.webhook.handlers import build_registry
from gpufleet.webhook.registry import serve
from gpufleet.webhook.state import State
from tests.mutate.test_placement import context, job
from tests.webhook.reviews import apply, response_of, review

REGISTRY = build_registry()


def call(path: str, value) -> tuple[dict, str]:
    state = State()
    state.use_fleet(context())
    state.tls_loaded = True
    reply = serve(REGISTRY, state, path, orjson.dumps(value))
    return orjson.loads(reply.body), reply.result


def test_a_bare_job_of_a_coscheduling_team_is_patched_into_one_the_validator_allows():
    bare = job("robotics")
    assert call("/validate", review(bare))[1] == "denied", "GANG806: a gang without a pod group"
    answer, result = call("/mutate", review(bare))
    assert result == "patched"
    fixed = apply(bare, response_of(answer))
    spec = fixed["spec"]["template"]["spec"]
    assert spec["schedulerName"] == "scheduler-plugins-scheduler"
    assert fixed["spec"]["template"]["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"] == "train"
    assert call("/validate", review(fixed))[1] == "allowed"


def test_a_pod_group_with_a_short_timeout_is_denied_at_admission():
    group = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "robotics"},
        "spec": {"minMember": 4, "scheduleTimeoutSeconds": 10},
    }
    answer, result = call("/validate", review(group))
    assert result == "denied" and "GANG804" in answer["response"]["status"]["message"]


def test_a_dedicated_team_job_gets_the_partition_toleration_on_create():
    bare = job("secure")
    answer, _ = call("/mutate", review(bare))
    spec = apply(bare, response_of(answer))["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"gpufleet.dev/dedicated": "secure"}
    assert {"key": "gpufleet.dev/dedicated", "operator": "Equal", "value": "secure", "effect": "NoExecute"} in spec[
        "tolerations"
    ]


def test_another_teams_job_that_tolerates_every_taint_is_denied():
    intruder = job("llm", tolerations=[{"operator": "Exists"}])
    intruder["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "llm"}
    answer, result = call("/validate", review(intruder))
    assert result == "denied" and "GANG807" in answer["response"]["status"]["message"]


def test_a_self_added_gang807_waiver_is_still_denied_at_admission():
    intruder = job("llm", tolerations=[{"operator": "Exists"}])
    intruder["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "llm"}
    intruder["metadata"]["annotations"] = {"waive.gpufleet.dev/GANG807": "we need the GPUs"}
    answer, result = call("/validate", review(intruder))
    assert result == "denied" and "GANG807" in answer["response"]["status"]["message"]
    assert "cannot be waived" in answer["response"]["status"]["message"]


def test_another_teams_job_pinned_to_a_node_by_name_is_denied():
    intruder = job("llm")
    intruder["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "llm"}
    intruder["spec"]["template"]["spec"]["nodeName"] = "vault-7"
    answer, result = call("/validate", review(intruder))
    assert (
        result == "denied"
        and "GANG807 partition-breach at spec.template.spec.nodeName" in answer["response"]["status"]["message"]
    )
