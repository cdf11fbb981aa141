"""The rules' ValidatingAdmissionPolicies on the real API server decide as the engine (issue 35, item 4).

One sandbox (kube v1.37.2 with Kubernetes' own gang scheduling on, so a batch Job's
``spec.scheduling`` is kept; real Volcano; no gpufleet controller: only the policies judge)
with the rendered policies and bindings applied (:func:`gpufleet.rules.admission_policies.render_policies`;
each binding narrowed to a team namespace of its rule, since the API server names only the first denial)
and the Kubeflow, Trainer, JobSet and scheduler-plugins CRDs of ../shared installed (objects of other
CRDs, LeaderWorkerSet and Ray, are compared offline only). Then every rule fixture object of a resource a
form matches is created with ``dryRun=All`` in the team namespace: refused by a gpufleet policy
exactly when the engine (as the webhook runs it) has a blocking finding, the rule's code in the
refusal; a warning rule's finding comes back as an API warning. Another component's refusal
(Volcano's own webhook) is not a policy's and is told apart by the policy name in the message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from kubernetes.dynamic.exceptions import ResourceNotFoundError

from gpufleet.fleetctx.context import FleetContext
from gpufleet.model import load_model
from gpufleet.render.context import render_context
from gpufleet.rules.admission_policies import render_policies
from gpufleet.rules.api import CheckContext
from gpufleet.sandbox.kube import WaitTimeout
from gpufleet.sandbox.up import Options
from tests.conftest import shared_path
from tests.e2e.sandbox_env import model, running
from tests.render.builders import pool, quota, team
from tests.rules import test_cel_equality as eq

pytestmark = pytest.mark.shared
NAMESPACE = eq.NAMESPACE
CEL_RULES = eq.CEL_RULES
RULE_NAMESPACES = {rule.code: f"vap-{rule.code.lower()}" for rule in CEL_RULES}
"""Each rule's policies bind in a team namespace of its own: one dry run per rule and object, one verdict each."""
SCRATCH = "scratch"
"""A namespace of no team: no policy selects it (what the mutating webhooks make of an object is read there)."""


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    kubeflow = [
        shared_path("crds", "training-operator", "kubeflow.org_pytorchjobs.yaml"),
        shared_path("crds", "mpi-operator", "kubeflow.org_mpijobs.yaml"),
        *sorted(shared_path("crds", "jobset").glob("*.yaml")),
        shared_path("crds", "scheduler-plugins", "scheduling.x-k8s.io_podgroups.yaml"),
        shared_path("crds", "trainer", "trainer.kubeflow.org_trainjobs.yaml"),
    ]
    data = vap_model()
    with running(data, tmp_path_factory.mktemp("vap"), Options(controller=False, native_gang=True)) as sb:
        for path in kubeflow:
            for doc in yaml.safe_load_all(Path(path).read_text()):
                if doc:
                    sb.apply(doc)
        sb.kube.refresh()
        sb.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": SCRATCH}})
        fleet = load_model(Path(sb.state.model))
        sb.context = CheckContext(fleet=FleetContext.from_dict(render_context(fleet)))  # the webhook's, for the engine
        rendered = render_policies(fleet, CEL_RULES)
        for manifest in rendered.values():
            sb.apply(one_rule_per_namespace(manifest))
        names = [m["metadata"]["name"] for m in rendered.values() if m["kind"] == "ValidatingAdmissionPolicy"]
        # the API server type-checks each policy against every resource it matches, asynchronously: the routing
        # forms match up to twelve resources, so this takes longer than the first forms did
        try:
            sb.wait("every policy type-checked", lambda: not unchecked(sb, names), timeout=240)
        except WaitTimeout as exc:
            raise WaitTimeout(f"{exc}; not type-checked: {unchecked(sb, names)}") from None
        _wait_enforced(sb)
        yield sb


def unchecked(sb, names: list[str]) -> list[str]:
    """The policies the API server has not type-checked yet (no ``status.observedGeneration``)."""
    return [
        n
        for n in names
        if not (sb.get("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", n) or {})
        .get("status", {})
        .get("observedGeneration")
    ]


DEDICATED = "gpufleet.dev/dedicated"


def vap_model() -> dict:
    """Team research (the rules' namespaces) on pool p, and pool vault dedicated to team secure: GANG807's policy has
    another team's pool to refuse, GANG404's and GANG401's read the pools' totals and GPU resources from the params."""
    vault = pool(
        "vault",
        system="volcano",
        nodes=1,
        dedicatedTo="secure",
        nodeLabels={"gpufleet.dev/pool": "vault", "volcano.sh/nodegroup-name": "vault", DEDICATED: "secure"},
        taints=[{"key": DEDICATED, "value": "secure", "effect": "NoExecute"}],
    )
    return model(
        pools=[pool("p", system="volcano", nodes=1), vault],
        teams=[
            team(
                "research",
                {"p": quota(8)},
                namespaces=[NAMESPACE, *RULE_NAMESPACES.values()],
                volcanoNamespaces=[NAMESPACE, *RULE_NAMESPACES.values()],
            ),
            team("secure", {"vault": quota(8)}, cohort=None, namespaces=["secure"], volcanoNamespaces=["secure"]),
        ],
        engines={"volcano": {"enabled": True}},
        priorityClasses=[{"name": "gang-high", "value": 1000}],
    )


def one_rule_per_namespace(manifest: dict) -> dict:
    """A binding narrowed to its rule's namespace (the API server answers a create with the first denial only)."""
    if manifest["kind"] != "ValidatingAdmissionPolicyBinding":
        return manifest
    code = manifest["spec"]["policyName"].split("-")[1].upper()
    selector = {"matchLabels": {"kubernetes.io/metadata.name": RULE_NAMESPACES[code]}}
    return {**manifest, "spec": {**manifest["spec"], "matchResources": {"namespaceSelector": selector}}}


def _wait_enforced(sb) -> None:
    """Bindings take effect asynchronously: wait until a known-bad job is refused by a policy."""
    probe = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "probe", "namespace": RULE_NAMESPACES["GANG001"]},
        "spec": {
            "minAvailable": 1,
            "tasks": [
                {"name": "w", "replicas": 2, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}
            ],
        },
    }
    sb.wait("the policies enforced", lambda: "gpufleet-gang001" in dry_run(sb, probe)[1], timeout=60)


def dry_run(sb, obj: dict) -> tuple[int, str, str, dict]:
    """(status, refusal message, the Warning headers joined, the object as the API server would store it)
    of a server-side dry-run create of ``obj``."""
    api = sb.kube.api
    path = sb.kube.resource(obj["apiVersion"], obj["kind"]).path(namespace=obj["metadata"]["namespace"])
    method, url, headers, body, _ = api.param_serialize(
        "POST",
        path,
        query_params=[("dryRun", "All")],
        body=obj,
        auth_settings=["BearerToken"],
        header_params={"Content-Type": "application/json", "Accept": "application/json"},
    )
    response = api.call_api(method, url, header_params=headers, body=body)
    response.read()
    warnings = (
        ", ".join(response.getheaders().get_all("Warning") or [])
        if hasattr(response.getheaders(), "get_all")
        else str(response.getheader("Warning") or "")
    )
    if response.status >= 400:
        return response.status, json.loads(response.data or b"{}").get("message", ""), warnings, {}
    return response.status, "", warnings, json.loads(response.data or b"{}")


def cases() -> list[tuple[str, dict]]:
    out = []
    for where, obj in eq.FIXTURE_OBJECTS:
        obj = {**obj, "metadata": {**(obj.get("metadata") or {}), "namespace": NAMESPACE}}
        if any(eq.request_for(rule, obj) for rule in CEL_RULES) and eq.reaches_admission(obj):
            out.append((f"{where}:{obj['kind']}/{obj['metadata'].get('name')}", obj))
    return out


def as_admitted(sb, obj: dict) -> dict:
    """``obj`` as the admission policies see it: after the mutating webhooks (Volcano's writes ``minAvailable``),
    read from a dry run in a namespace no policy selects; when that dry run is refused (by Volcano's own validation),
    as submitted with the one default of Volcano's that a policy reads (:func:`volcano_defaults`)."""
    scratch = {**obj, "metadata": {**obj["metadata"], "namespace": SCRATCH}}
    status, _, _, body = dry_run(sb, scratch)
    if status >= 400:
        return volcano_defaults(obj)
    return {**body, "metadata": {**body["metadata"], "namespace": NAMESPACE}}


def volcano_defaults(obj: dict) -> dict:
    """A Volcano Job as Volcano's mutating webhook hands it on: ``spec.queue`` ``default`` when unset
    (pkg/webhooks/admission/jobs/mutate/mutate_job.go, ``patchDefaultQueue``, v1.14); found on the real API server,
    where GANG104's policy judged that queue on a Job Volcano's validation then refused."""
    if not str(obj.get("apiVersion", "")).startswith("batch.volcano.sh/") or (obj.get("spec") or {}).get("queue"):
        return obj
    return {**obj, "spec": {**(obj.get("spec") or {}), "queue": "default"}}


def served(sb, obj: dict) -> bool:
    try:
        sb.kube.resource(obj["apiVersion"], obj["kind"])
    except ResourceNotFoundError:
        return False
    return True


def test_the_api_server_refuses_exactly_what_the_engine_refuses_with_the_rules_code(sandbox):
    found, verdicts, warned_any, refused = [], set(), False, set()
    for where, obj in cases():
        if not served(sandbox, obj):  # no CRD in this sandbox (LeaderWorkerSet, Ray): compared offline only
            continue
        seen = as_admitted(sandbox, obj)
        for rule in CEL_RULES:
            if eq.request_for(rule, obj) is None:
                continue
            _, message, warnings, _ = dry_run(
                sandbox, {**obj, "metadata": {**obj["metadata"], "namespace": RULE_NAMESPACES[rule.code]}}
            )
            denied, warned = eq.engine_verdict(rule, seen, sandbox.context)
            verdicts.add(denied)
            refused |= {rule.code} if denied else set()
            warned_any |= warned
            by_policy = f"'gpufleet-{rule.code.lower()}" in message
            if denied != by_policy or (denied and rule.code not in message):
                found.append(f"{where} {rule.code}: engine denies={denied}, API server: {message[:300]!r}")
            if warned != (rule.code in warnings):
                found.append(f"{where} {rule.code}: engine warns={warned}, API server warnings: {warnings}")
    assert found == []
    assert verdicts == {True, False} and warned_any  # refusals, admissions and warnings were compared
    assert {
        "GANG401",
        "GANG404",
        "GANG807",
    } <= refused  # the GPU and partition forms and their fleet facts were exercised
