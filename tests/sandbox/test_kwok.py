"""KWOK's pod-complete stage, as the sandbox loads it: only pods that carry its delay annotation, no jitter."""

from __future__ import annotations

import yaml

from gpufleet.kubetypes.vocab import KWOK_COMPLETE_AFTER
from gpufleet.sandbox.kwok import completion_stage

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
