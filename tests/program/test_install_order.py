"""Install order of the whole program under mocks (dev and prod): each step's preconditions hold.

The graph is what the program registers (``tests.program.capture``); the order is
the one Pulumi would follow (``tests.program.install_order``). Checked for every
stack, and for dev with cert-manager: team and engine namespaces before anything
in them; each engine's chart before its custom resources; the gang-admission
webhooks after their Deployment and Service (and after both charts, so the engines'
own objects are never sent to it); the Volcano admission Secret (or the
cert-manager Certificate that writes it) before the Volcano chart. Destroy order is
checked on recorded dependencies alone, which is all Pulumi uses when deleting.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.program.capture import run_stack, stack_config, stack_names
from tests.program.install_order import ancestors_closure, creation_order

WEBHOOK_TYPES = (
    "kubernetes:admissionregistration.k8s.io/v1:ValidatingWebhookConfiguration",
    "kubernetes:admissionregistration.k8s.io/v1:MutatingWebhookConfiguration",
)
ENGINE_GROUPS = {"kueue.x-k8s.io": "kueue", "scheduling.volcano.sh": "volcano", "scheduling.x-k8s.io": "coscheduling"}
VARIANTS = [(stack, {}) for stack in stack_names()] + [("dev", {"gpufleet:certManager": True})]


def _capture(stack: str, overrides: dict[str, Any]) -> list[dict[str, Any]]:
    return [r.to_dict() for r in run_stack(stack, {**stack_config(stack), **overrides}).registered]


@pytest.fixture(scope="module", params=VARIANTS, ids=[f"{s}{'-cert-manager' if o else ''}" for s, o in VARIANTS])
def graph(request):
    resources = _capture(*request.param)
    return resources, ancestors_closure(resources), {u: i for i, u in enumerate(creation_order(resources))}


def _meta(r: dict[str, Any]) -> dict[str, Any]:
    return r["inputs"].get("metadata") or {}


def _of_type(resources, suffix: str) -> list[dict[str, Any]]:
    return [r for r in resources if r["type"].endswith(suffix)]


def _charts(resources) -> dict[str, dict[str, Any]]:
    def engine(chart: str) -> str:
        return "volcano" if "volcano" in chart else "coscheduling" if "scheduler-plugins" in chart else "kueue"

    return {engine(r["inputs"]["chart"]): r for r in _of_type(resources, ":helm.sh/v4:Chart")}


def test_the_graph_has_no_cycle_and_every_resource_gets_a_place(graph):
    resources, _, position = graph
    assert len(position) == len(resources)


def test_every_namespaced_object_comes_after_its_namespace_which_the_stack_creates(graph):
    resources, before, _ = graph
    namespaces = {_meta(r)["name"]: r["urn"] for r in _of_type(resources, ":core/v1:Namespace")}
    for r in resources:
        ns = _meta(r).get("namespace") or (r["inputs"].get("namespace") if r["type"].endswith(":Chart") else None)
        if ns:
            assert ns in namespaces, f"{r['name']}: namespace {ns!r} is not created by the stack"
            assert namespaces[ns] in before[r["urn"]], f"{r['name']} may be created before namespace {ns!r}"


def test_every_engine_custom_resource_comes_after_its_chart(graph):
    resources, before, _ = graph
    charts = _charts(resources)
    custom = [
        (r, ENGINE_GROUPS[g]) for r in resources for g in ENGINE_GROUPS if r["type"].startswith(f"kubernetes:{g}/")
    ]
    assert {engine for _, engine in custom} == set(charts) - {"coscheduling"}  # users create the plugin's PodGroups
    for r, engine in custom:
        assert charts[engine]["urn"] in before[r["urn"]], f"{r['name']} may be created before the {engine} chart"


def test_the_webhook_configurations_come_after_their_backend_and_both_charts(graph):
    resources, before, _ = graph
    charts = _charts(resources)
    for hook_config in [r for r in resources if r["type"] in WEBHOOK_TYPES]:
        for hook in hook_config["inputs"]["webhooks"]:
            service = hook["clientConfig"]["service"]
            backend = [
                r
                for r in resources
                if r["type"].endswith((":apps/v1:Deployment", ":core/v1:Service"))
                and _meta(r).get("namespace") == service["namespace"]
            ]
            assert {r["type"].rsplit(":", 1)[1] for r in backend} == {"Deployment", "Service"}
            for r in backend:
                assert r["urn"] in hook_config["dependencies"], (
                    f"{hook_config['name']} is not deleted before {r['name']}"
                )
        assert {c["urn"] for c in charts.values()} <= before[hook_config["urn"]]


def test_the_volcano_admission_secret_exists_before_the_volcano_chart(graph):
    resources, before, _ = graph
    chart = _charts(resources)["volcano"]
    writers = [
        r for r in resources if _meta(r).get("name") == "volcano-admission-secret" and r["type"].endswith(":Secret")
    ]
    writers += [
        r
        for r in _of_type(resources, ":Certificate")
        if r["inputs"]["spec"].get("secretName") == "volcano-admission-secret"
    ]
    assert len(writers) == 1
    assert writers[0]["urn"] in before[chart["urn"]]


def test_local_queues_wait_for_their_team_namespace_and_are_deleted_before_it(graph):
    resources, _, _ = graph
    namespaces = {_meta(r)["name"]: r["urn"] for r in _of_type(resources, ":core/v1:Namespace")}
    queues = _of_type(resources, "kueue.x-k8s.io/v1beta2:LocalQueue")
    assert queues
    for queue in queues:
        assert namespaces[_meta(queue)["namespace"]] in queue["dependencies"]
