"""Properties of every patch: it applies, it is idempotent, it only adds, and it keeps real objects valid."""

from __future__ import annotations

import copy

import jsonpatch
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpufleet.crdschema import CrdSet
from gpufleet.mutate import escape, mutate
from tests.mutate.builders import TEAM_NS, fleet, upstream_documents, volcano_job


@pytest.mark.parametrize(
    "key, token",
    [
        ("plain", "plain"),
        ("kueue.x-k8s.io/queue-name", "kueue.x-k8s.io~1queue-name"),
        ("a~b/c", "a~0b~1c"),
        (3, "3"),
    ],
)
def test_pointer_tokens_are_escaped_per_rfc_6901(key, token):
    assert escape(key) == token


def in_team_namespace(obj: dict) -> dict:
    out = copy.deepcopy(obj)
    if isinstance(out.get("metadata"), dict):
        out["metadata"]["namespace"] = TEAM_NS
    return out


def test_every_upstream_manifest_patches_cleanly_and_idempotently(upstream_dir):
    problems, patched = [], 0
    for where, doc in upstream_documents(upstream_dir):
        obj = in_team_namespace(doc)
        ops = mutate(obj, fleet())
        patched += bool(ops)
        try:
            out = jsonpatch.apply_patch(obj, ops)
        except jsonpatch.JsonPatchException as exc:
            problems.append(f"{where}: patch does not apply: {exc}")
            continue
        if again := mutate(out, fleet()):
            problems.append(f"{where}: second pass patches again: {again}")
        if any(op["op"] not in ("add", "replace") for op in ops):
            problems.append(f"{where}: unexpected op in {ops}")
    assert not problems, "\n".join(problems)
    assert patched >= 10, "the upstream examples should exercise the mutator"


def test_every_patched_upstream_manifest_still_passes_its_crd(upstream_dir, crds_dir):
    crds = CrdSet.load(crds_dir)
    problems, checked = [], 0
    for where, doc in upstream_documents(upstream_dir):
        obj = in_team_namespace(doc)
        ops = mutate(obj, fleet())
        if not ops or not crds.knows(obj):
            continue
        checked += 1
        fixed = jsonpatch.apply_patch(obj, ops)
        for check in (crds.validate, crds.pruned_fields):
            before = {(i.path, i.message) for i in check(obj)}
            problems += [
                f"{where}: {check.__name__}: {i.path}: {i.message}"
                for i in check(fixed)
                if (i.path, i.message) not in before
            ]
    assert checked >= 10, "the CRDs should cover the patched upstream manifests"
    assert not problems, "\n".join(problems)


json_scalars = (
    st.none() | st.booleans() | st.integers(-3, 70) | st.sampled_from(["", "volcano", "default", "*", "x/y~z"])
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "spec",
                    "tasks",
                    "template",
                    "replicas",
                    "policies",
                    "event",
                    "events",
                    "metadata",
                    "labels",
                    "annotations",
                    "schedulerName",
                    "queue",
                    "minAvailable",
                    "restartPolicy",
                    "x",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=25,
)
kinds = st.sampled_from(
    [
        ("batch.volcano.sh/v1alpha1", "Job"),
        ("batch/v1", "Job"),
        ("v1", "Pod"),
        ("jobset.x-k8s.io/v1alpha2", "JobSet"),
        ("kubeflow.org/v1", "PyTorchJob"),
        ("v1", "ConfigMap"),
    ]
)


@st.composite
def random_workloads(draw):
    api_version, kind = draw(kinds)
    obj = {"apiVersion": api_version, "kind": kind, "metadata": draw(json_values), "spec": draw(json_values)}
    if draw(st.booleans()):
        obj["spec"] = volcano_job(*draw(st.lists(st.integers(0, 9), min_size=1, max_size=3)))["spec"]
        obj["spec"]["tasks"][0].update(
            draw(st.dictionaries(st.sampled_from(["template", "policies", "replicas"]), json_values))
        )
    if draw(st.booleans()):
        obj["metadata"] = {"namespace": TEAM_NS, "labels": draw(json_values), "annotations": draw(json_values)}
    return obj


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_workloads())
def test_random_objects_never_crash_and_every_patch_applies_and_is_idempotent(obj):
    ops = mutate(obj, fleet(), TEAM_NS)
    out = jsonpatch.apply_patch(obj, ops)
    assert mutate(out, fleet(), TEAM_NS) == []


@pytest.mark.parametrize("replicas", [(1,), (1, 63), (2, 0, 5)])
def test_a_bare_volcano_job_once_patched_is_valid_against_the_real_volcano_crd(crds_dir, replicas):
    crds = CrdSet.load(crds_dir / "volcano")
    job = volcano_job(*replicas)
    fixed = jsonpatch.apply_patch(job, mutate(job, fleet()))
    assert crds.knows(fixed)
    assert crds.validate(fixed) == [] and crds.pruned_fields(fixed) == []


def test_the_builder_creates_missing_maps_but_never_list_items_or_through_scalars():
    from gpufleet.mutate import PatchBuilder

    obj = {"a": [None, {"b": 1}], "s": "text"}
    patch = PatchBuilder(obj)
    assert not patch.set_default(("a", 0, "x"), 1)
    assert not patch.set_default(("a", 5, "x"), 1)
    assert not patch.set_default(("s", "x"), 1)
    assert patch.set_default(("a", 1, "c", "d"), 2) and patch.set_default(("a", 1, "c", "e"), 3)
    assert patch.append(("m", "list"), "x") and patch.append(("m", "list"), "y")
    assert patch.ops == [
        {"op": "add", "path": "/a/1/c", "value": {"d": 2, "e": 3}},
        {"op": "add", "path": "/m", "value": {"list": ["x", "y"]}},
    ]
    assert jsonpatch.apply_patch(obj, patch.ops)["m"]["list"] == ["x", "y"]
