"""KWOK's stages as the sandbox loads them: pod-complete only for pods that carry its delay annotation, no jitter;
pod-ready at once, or after the pod's start time when it carries one."""

from __future__ import annotations

import yaml

from gpufleet.kubetypes.vocab import KWOK_COMPLETE_AFTER, KWOK_READY_AFTER
from gpufleet.sandbox.kwok import completion_stage, delayed_ready_stage, ready_stage

# The shape of the module's kustomize/stage/pod/general/pod-complete.yaml (sigs.k8s.io/kwok v0.8.0), abridged.
UPSTREAM_SHAPE = """
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-complete}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.status.phase', operator: In, values: [Running]}
    - {key: '.metadata.ownerReferences.[].kind', operator: In, values: [Job]}
  delay:
    durationMilliseconds: 1000
    durationFrom: {expressionFrom: '.metadata.annotations["pod-complete.stage.kwok.x-k8s.io/delay"]'}
    jitterDurationMilliseconds: 5000
    jitterDurationFrom: {expressionFrom: '.metadata.annotations["pod-complete.stage.kwok.x-k8s.io/jitter-delay"]'}
  next: {statusTemplate: "phase: Succeeded\\n"}
"""


def test_the_completion_stage_selects_only_pods_that_carry_a_run_time():
    stage = yaml.safe_load(completion_stage(UPSTREAM_SHAPE))
    expressions = stage["spec"]["selector"]["matchExpressions"]
    assert expressions[-1] == {"key": f'.metadata.annotations["{KWOK_COMPLETE_AFTER}"]', "operator": "Exists"}
    assert expressions[:2] == yaml.safe_load(UPSTREAM_SHAPE)["spec"]["selector"]["matchExpressions"]


def test_the_completion_stage_keeps_the_annotations_delay_and_drops_the_jitter():
    delay = yaml.safe_load(completion_stage(UPSTREAM_SHAPE))["spec"]["delay"]
    assert delay == {
        "durationMilliseconds": 1000,
        "durationFrom": {"expressionFrom": f'.metadata.annotations["{KWOK_COMPLETE_AFTER}"]'},
    }


def test_the_annotation_is_the_stages_own_delay_annotation():
    assert KWOK_COMPLETE_AFTER in UPSTREAM_SHAPE


# The shape of the module's kustomize/stage/pod/fast/pod-ready.yaml (sigs.k8s.io/kwok v0.8.0), abridged.
FAST_READY_SHAPE = """
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: pod-ready}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: '.metadata.deletionTimestamp', operator: DoesNotExist}
    - {key: '.status.phase', operator: In, values: [Pending]}
  next: {statusTemplate: "phase: Running\\n"}
"""


def _ready_selector(stage_text: str) -> dict:
    return yaml.safe_load(stage_text)["spec"]["selector"]["matchExpressions"][-1]


def test_the_fast_ready_stage_leaves_pods_with_a_start_time_to_the_delayed_one():
    fast, delayed = ready_stage(FAST_READY_SHAPE), delayed_ready_stage(FAST_READY_SHAPE)
    key = f'.metadata.annotations["{KWOK_READY_AFTER}"]'
    assert _ready_selector(fast) == {"key": key, "operator": "DoesNotExist"}
    assert _ready_selector(delayed) == {"key": key, "operator": "Exists"}


def test_the_delayed_ready_stage_waits_the_pods_start_time_and_then_does_what_the_fast_one_does():
    fast, delayed = yaml.safe_load(ready_stage(FAST_READY_SHAPE)), yaml.safe_load(delayed_ready_stage(FAST_READY_SHAPE))
    assert delayed["metadata"]["name"] != fast["metadata"]["name"]
    assert delayed["spec"]["delay"] == {
        "durationMilliseconds": 0,
        "durationFrom": {"expressionFrom": f'.metadata.annotations["{KWOK_READY_AFTER}"]'},
    }
    assert delayed["spec"]["next"] == fast["spec"]["next"]
    assert delayed["spec"]["selector"]["matchExpressions"][:-1] == fast["spec"]["selector"]["matchExpressions"][:-1]
