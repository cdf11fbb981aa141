"""The defaulting's MutatingAdmissionPolicies on the real API server mutate as ``/mutate`` does (issue 35, item 4).

The dev stack's sandbox (kube v1.37.2, real Kueue and Volcano, no gpufleet controller: no
webhook mutates), shared with the other modules of that key, with the rendered policies
(:func:`gpufleet.mutate.policies.render_mutating_policies`) applied and bound to two team
namespaces only: ``beta`` (Kueue's side) and ``beta-vc`` (Volcano's). The Kubeflow, MPI, Trainer
and JobSet CRDs of ../shared are installed for the module. Every rule fixture object of a
resource the policies match is created with ``dryRun=All`` there (the policies mutate it), and,
patched by ``/mutate``'s JSON Patch (:func:`gpufleet.mutate.mutate` for the bound namespace,
applied with the jsonpatch library), in a namespace of the same side that no policy binds
(``beta-sandbox``, a namespace of the same team; ``alpha-vc``), so Kueue's and Volcano's own
webhooks act alike on both. The two objects the API server returns must be equal but for
where they were created. At the end the policies, the params and the CRDs it added are deleted,
so the next module leasing the sandbox sees none.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonpatch
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpufleet.fleetctx.context import FleetContext
from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.admission_kinds import KIND_OF
from gpufleet.kubetypes.admission_match import API_VERSION
from gpufleet.mutate import mutate
from gpufleet.mutate.policies import QUEUE_LABEL, VOLCANO, render_mutating_policies
from gpufleet.render.context import render_context
from gpufleet.sandbox.kube import established
from gpufleet.sandbox.up import Options
from tests.conftest import shared_path
from tests.e2e.sandbox_pool import pool_key
from tests.e2e.test_vap_e2e import dry_run, served
from tests.rules import test_cel_equality as eq

pytestmark = pytest.mark.shared
ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev.fleet.yaml"
POOL = pool_key(DEV, Options(controller=False))
SIDES = {"kueue": ("beta", "beta-sandbox"), "volcano": ("beta-vc", "alpha-vc")}
"""Per side: the namespace the policies are bound to, and one of the same side they are not."""
BOUND = [bound for bound, _ in SIDES.values()]
CRD_API = "apiextensions.k8s.io/v1"
VOLATILE = ("uid", "creationTimestamp", "managedFields", "resourceVersion", "generation", "namespace")


def crd_documents() -> list[dict]:
    paths = [
        shared_path("crds", "training-operator", "kubeflow.org_pytorchjobs.yaml"),
        shared_path("crds", "mpi-operator", "kubeflow.org_mpijobs.yaml"),
        *sorted(shared_path("crds", "jobset").glob("*.yaml")),
        shared_path("crds", "trainer", "trainer.kubeflow.org_trainjobs.yaml"),
    ]
    return [doc for path in paths for doc in yaml.safe_load_all(Path(path).read_text()) if doc]


def narrowed(manifest: dict) -> dict:
    """A binding matching only the bound namespaces (the others stay the policy-free comparison)."""
    if manifest["kind"] != "MutatingAdmissionPolicyBinding":
        return manifest
    selector = {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": BOUND}]}
    return {**manifest, "spec": {**manifest["spec"], "matchResources": {"namespaceSelector": selector}}}


@pytest.fixture(scope="module")
def sandbox(sandbox_pool):
    with sandbox_pool.lease(DEV, Options(controller=False)) as sb:
        docs = crd_documents()
        sb.wait("no CRD of this module still being deleted", lambda: not terminating(sb, docs), timeout=120)
        added = [d for d in docs if sb.get(CRD_API, "CustomResourceDefinition", d["metadata"]["name"]) is None]
        for doc in added:
            sb.apply(doc)
        rendered = render_mutating_policies(sb.fleet)
        try:
            sb.wait("the module's CRDs established and served", lambda: crds_served(sb, docs), timeout=120)
            sb.kube.refresh()
            sb.served_map = served(sb, {"apiVersion": API_VERSION, "kind": "MutatingAdmissionPolicy"})
            for manifest in rendered.values():
                sb.apply(narrowed(manifest))
            sb.context = FleetContext.from_dict(render_context(sb.fleet))  # the webhook's, for /mutate
            _wait_bound(sb)
            yield sb
        finally:
            for manifest in reversed(list(rendered.values())):
                sb.kube.delete(
                    manifest["apiVersion"],
                    manifest["kind"],
                    manifest["metadata"]["name"],
                    manifest["metadata"].get("namespace"),
                )
            for doc in added:
                sb.kube.delete(CRD_API, "CustomResourceDefinition", doc["metadata"]["name"])
            if added:
                # Kueue set up its deferred controllers for these kinds when their CRDs appeared; with the CRDs
                # gone their caches never sync and Kueue 0.19.2 exits ("timed out waiting for cache to be synced
                # for kind source: *v2beta1.MPIJob", two minutes on): no later module may lease this sandbox.
                sb.spoiled.append("deleted the CRDs of kinds Kueue integrates")
            sb.wait(
                "the module's CRDs deleted",
                lambda: not any(sb.get(CRD_API, "CustomResourceDefinition", d["metadata"]["name"]) for d in added),
                timeout=120,
            )


def terminating(sb, docs: list[dict]) -> list[str]:
    """The CRDs of ``docs`` still being deleted (by a module that leased the sandbox before): applying one then
    keeps it, and its kind stops being served mid-module (a 503 \"Resource kind ... not found\", seen in CI)."""
    return [
        d["metadata"]["name"]
        for d in docs
        if (sb.get(CRD_API, "CustomResourceDefinition", d["metadata"]["name"]) or {})
        .get("metadata", {})
        .get("deletionTimestamp")
    ]


def crds_served(sb, docs: list[dict]) -> bool:
    """Every CRD of ``docs`` Established, and each of its kinds listable: a create right after Established can
    still be answered 503 while the API server builds the kind's storage."""
    if not established(sb.kube, [d["metadata"]["name"] for d in docs]):
        return False
    sb.kube.refresh()
    for doc in docs:
        version = next(v["name"] for v in doc["spec"]["versions"] if v.get("served", True))
        sb.kube.resource(f"{doc['spec']['group']}/{version}", doc["spec"]["names"]["kind"]).get()
    return True


def _probe() -> dict:
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "probe", "namespace": "beta-vc"},
        "spec": {
            "tasks": [{"name": "w", "replicas": 2, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}]
        },
    }


def _wait_bound(sb) -> None:
    """Bindings take effect asynchronously: wait until a Volcano Job gets the team's queue from a policy."""
    sb.wait(
        "the mutating policies in effect",
        lambda: dry_run(sb, _probe())[3].get("spec", {}).get("queue") == "beta",
        timeout=60,
    )


def side(obj: dict) -> str:
    return "volcano" if str(obj.get("apiVersion", "")).startswith("batch.volcano.sh/") else "kueue"


MUTATED_KINDS = {(group, KIND_OF[plural]) for group, plural in VOLCANO + QUEUE_LABEL}
"""The kinds the policies label for a queue (Volcano Jobs and the Kueue kinds)."""


def cases() -> list[tuple[str, dict]]:
    out = []
    for where, obj in eq.FIXTURE_OBJECTS:
        group = str(obj.get("apiVersion", "")).rpartition("/")[0]
        if (group, obj.get("kind")) not in MUTATED_KINDS:
            continue
        obj = {**obj, "metadata": {**(obj.get("metadata") or {}), "namespace": SIDES[side(obj)][0]}}
        if eq.reaches_admission(obj):
            out.append((f"{where}:{obj['kind']}/{obj['metadata'].get('name')}", obj))
    return out


def as_decoded(obj: dict) -> dict:
    """``obj`` as admission sees it, for the one API defaulting that touches what ``/mutate`` reads: a Job
    without labels gets its pod template's (``SetDefaults_Job``, ``pkg/apis/batch/v1/defaults.go`` at v1.37.2;
    seen here: ``/mutate`` applied before it made a Job the API server labels otherwise)."""
    out = copy.deepcopy(obj)
    template_labels = ((out.get("spec") or {}).get("template") or {}).get("metadata", {}).get("labels")
    if (
        out.get("apiVersion") == "batch/v1"
        and out.get("kind") == "Job"
        and template_labels
        and not out["metadata"].get("labels")
    ):
        out["metadata"]["labels"] = dict(template_labels)
    return out


def webhook_sends(obj: dict) -> bool:
    """Whether the API server sends ``obj`` to ``/mutate`` at all: the mutating webhook's match conditions
    (:mod:`gpufleet.render.controller.webhooks`: Pods of a Kueue pod group only, no Job a JobSet owns)."""
    meta = obj.get("metadata") or {}
    if obj.get("kind") == "Pod":
        return vocab.KUEUE_POD_GROUP in (meta.get("labels") or {})
    owners = meta.get("ownerReferences") or []
    return not (obj.get("apiVersion") == "batch/v1" and any(o.get("kind") == "JobSet" for o in owners))


def stored(body: dict) -> dict:
    """The object as returned, without what differs by namespace, time and uid alone (the Job controller's
    ``controller-uid`` labels carry the uid; a Pod's status its creation time)."""
    meta = body.get("metadata", {})
    text = json.dumps(body)
    if meta.get("uid"):
        text = text.replace(meta["uid"], "UID")
    if meta.get("generateName") and meta.get("name"):  # the name the API server made up, after admission
        text = text.replace(json.dumps(meta["name"]), json.dumps(meta["generateName"] + "*"))
    out = json.loads(text)
    out.pop("status", None)
    for key in VOLATILE:
        out.get("metadata", {}).pop(key, None)
    return out


def unaliased(sent: dict, out: dict) -> dict:
    """``out`` without the gang label on a Job's own labels when ``sent`` had none: ``SetDefaults_Job`` makes them
    the template's labels as one shared map (``obj.Labels = obj.Spec.Template.Labels``, pkg/apis/batch/v1/defaults.go
    at v1.37.2), so a label stamped on the template in place can show on the Job too. Seen in three of five runs of this
    module alone (2026-12-02), on every Job without labels; ``/mutate`` and the policies stamp only the template (compared here)."""
    if sent.get("apiVersion") != "batch/v1" or sent.get("kind") != "Job" or (sent.get("metadata") or {}).get("labels"):
        return out
    labels = {k: v for k, v in (out.get("metadata", {}).get("labels") or {}).items() if k != vocab.GANG_LABEL}
    return {**out, "metadata": {**out.get("metadata", {}), "labels": labels}}


def test_the_api_server_serves_mutating_admission_policies_in_v1_without_a_gate_or_runtime_config(sandbox):
    assert sandbox.served_map  # Options() sets no gate and no --runtime-config: kube v1.37.2's defaults


def compare(sandbox, where: str, obj: dict) -> tuple[str | None, bool | None]:
    """(how the policies mutate ``obj`` otherwise than /mutate, or None; whether /mutate changes it, None when the
    API server refused it on both sides)."""
    bound, free = SIDES[side(obj)]
    obj = {**obj, "metadata": {**(obj.get("metadata") or {}), "namespace": bound}}
    seen = as_decoded(obj)
    ops = mutate(seen, sandbox.context, bound) if webhook_sends(obj) else []
    expected_in = jsonpatch.apply_patch(seen, ops)
    expected_in = {**expected_in, "metadata": {**expected_in["metadata"], "namespace": free}}
    status, message, _, body = dry_run(sandbox, obj)
    want_status, want_message, _, want = dry_run(sandbox, expected_in)
    if status >= 400 or want_status >= 400:
        if (status >= 400) != (want_status >= 400):
            return (
                f"{where}: refused {status} {message[:200]!r} vs /mutate's {want_status} {want_message[:200]!r}",
                None,
            )
        return None, None
    if unaliased(obj, stored(body)) != unaliased(obj, stored(want)):
        diff = jsonpatch.make_patch(stored(want), stored(body)).patch
        return f"{where}: the policies differ from /mutate ({len(ops)} ops) by {diff}", bool(ops)
    return None, bool(ops)


def disagreements(sandbox) -> tuple[list[str], int, int]:
    """(each fixture object the policies mutate otherwise than /mutate, objects compared, objects /mutate changes)."""
    found, mutated, compared = [], 0, 0
    for where, obj in cases():
        if not served(sandbox, obj):
            continue
        problem, changed = compare(sandbox, where, obj)
        found += [problem] if problem else []
        compared += changed is not None
        mutated += bool(changed)
    return found, compared, mutated


def test_the_policies_mutate_every_fixture_object_as_the_controllers_mutate(sandbox):
    found, compared, mutated = disagreements(sandbox)
    assert found == [], "\n".join(found)
    assert compared > 100 and mutated > 50  # most shapes were compared, and many of them mutated


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(obj=st.one_of(eq.volcano_jobs(), eq.kubeflow_jobs(), eq.batch_jobs(), eq.jobsets()))
def test_the_policies_mutate_generated_workload_shapes_as_the_controllers_mutate(sandbox, obj):
    if not eq.reaches_admission(obj) or not served(sandbox, obj):
        return
    assert compare(sandbox, "generated", obj)[0] is None
