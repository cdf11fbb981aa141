"""The engine charts come up under Chart v4: every Secret and ConfigMap their workloads need exists.

Reads the real chart sources in ``../shared/charts`` (Kueue 0.19.2, Volcano 1.15.1;
``tests.program.chart_sources``) with the values the stack passes, and the stack's
own resources under mocks. pulumi-kubernetes' ``helm.v4.Chart`` never runs Helm
hooks (provider ``chart.go`` sets ``DisableHooks``), so a hook template creates
nothing: every Secret or ConfigMap a chart workload mounts without
``optional: true`` must come from a non-hook template or from the stack.
"""

from __future__ import annotations

import pytest

from gpufleet.model import load_model
from gpufleet.render import render_all
from tests.conftest import shared_path
from tests.program.capture import REPO, capture_program, stack_config, stack_names
from tests.program.chart_sources import Document, read_chart

pytestmark = pytest.mark.shared  # the real chart sources of ../shared/charts (skips without them)

CHARTS = {"kueue": "kueue-0.19.2", "volcano": "volcano-1.15.1"}
DROPPED_HOOKS = {
    "volcano": {
        ("ServiceAccount", "volcano-admission-init"),
        ("Role", "volcano-admission-init"),
        ("RoleBinding", "volcano-admission-init-role"),
        ("Job", "volcano-admission-init"),
    },
    "kueue": set(),
}
"""What Chart v4 drops: Volcano's admission-init hook (it only makes ``volcano-admission-secret``, which the stack creates)."""


def _chart(stack: str, engine: str) -> list[Document]:
    model = load_model(REPO / stack_config(stack)["gpufleet:model"])
    settings = getattr(model.engines, engine)
    rendered = render_all(model)
    values = rendered.kueue_values if engine == "kueue" else rendered.volcano_values
    return read_chart(shared_path("charts", CHARTS[engine]), settings.release_name, settings.namespace, values)


def _made_by_stack(stack: str) -> set[tuple[str, str]]:
    made = set()
    for r in capture_program(stack):
        kind = r["type"].rsplit(":", 1)[1]
        meta = r["inputs"].get("metadata") or {}
        if kind in ("Secret", "ConfigMap"):
            made.add((kind, meta.get("name")))
        if kind == "Certificate":
            made.add(("Secret", r["inputs"]["spec"]["secretName"]))
    return made


def _missing(docs: list[Document], extra: set[tuple[str, str]]) -> list[str]:
    made = {(d.kind, d.name) for d in docs if not d.hook} | extra
    return [
        f"{d.file}: {d.kind} {d.name} mounts {kind} {name}"
        for d in docs
        if not d.hook
        for kind, name, optional in d.mounts
        if not optional and (kind, name) not in made
    ]


@pytest.mark.parametrize("stack", stack_names())
@pytest.mark.parametrize("engine", sorted(CHARTS))
def test_every_mount_of_a_chart_workload_is_made_by_a_non_hook_template_or_the_stack(stack, engine):
    docs = _chart(stack, engine)
    assert [d for d in docs if d.kind == "Deployment" and d.mounts], "the chart reading found no workload mounts"
    assert _missing(docs, _made_by_stack(stack)) == []


def test_without_the_stacks_secret_the_volcano_admission_pods_would_never_start():
    assert _missing(_chart("dev", "volcano"), set()) == [
        "templates/admission.yaml: Deployment volcano-admission mounts Secret volcano-admission-secret"
    ]


@pytest.mark.parametrize("engine", sorted(CHARTS))
def test_the_hooks_chart_v4_drops_are_exactly_the_listed_ones(engine):
    assert {(d.kind, d.name) for d in _chart("dev", engine) if d.hook} == DROPPED_HOOKS[engine]


def test_the_dropped_volcano_hook_made_only_the_secret_the_stack_now_makes():
    job = next(d for d in _chart("dev", "volcano") if d.hook and d.kind == "Job")
    assert "gen-admission-secret.sh" in job.text and "--secret" in job.text and "volcano-admission-secret" in job.text


def test_the_volcano_webhooks_get_their_ca_bundle_from_the_admission_binary_not_the_chart():
    webhooks = [d for d in _chart("dev", "volcano") if d.kind.endswith("WebhookConfiguration")]
    assert webhooks and all("caBundle" not in d.text for d in webhooks)
    admission = next(d for d in _chart("dev", "volcano") if d.kind == "Deployment" and d.name == "volcano-admission")
    assert "--ca-cert-file=/admission.local.config/certificates/ca.crt" in admission.text


@pytest.mark.parametrize(
    "expr, expected",
    [
        (".Values.on", True),
        ("not .Values.on", False),
        (".Values.off", False),
        ("and .Values.on (not .Values.off)", True),
        ("and .Values.off (.Capabilities.APIVersions.Has \"x/v1\")", False),
        ("and .Values.on (.Capabilities.APIVersions.Has \"x/v1\")", None),
        ('.Values.admissions | regexMatch "/jobs/validate"', True),
        ('.Values.admissions | regexMatch "/pods/mutate"', False),
        ("eq .Values.on true", None),
    ],
)
def test_the_reading_decides_value_conditions_and_keeps_the_rest(expr, expected):
    from tests.program.chart_sources import Chart, _condition

    chart = Chart("c", "r", "ns", {"on": True, "off": False, "admissions": "/jobs/mutate,/jobs/validate"})
    assert _condition(chart, expr) is expected


def test_objects_behind_false_values_are_not_predicted_as_a_real_chart_v4_preview_showed():
    """Chart v4 (provider 4.25.0, docs/policy-pack.md) created none of these; the reading used to keep them."""
    kueue = {(d.kind, d.name) for d in _chart("dev", "kueue")}
    volcano = {(d.kind, d.name) for d in _chart("dev", "volcano")}
    assert not kueue & {("Issuer", "kueue-selfsigned-issuer"), ("Ingress", "kueue-kueueviz-backend-ingress")}
    assert ("MutatingWebhookConfiguration", "volcano-admission-service-pods-mutate") not in volcano
    assert ("ValidatingWebhookConfiguration", "volcano-admission-service-jobs-validate") in volcano
