"""The whole program (``__main__.py``) per stack, under mocks: resource set, outputs, errors."""

from __future__ import annotations

from collections import Counter

import pulumi
import pytest

from gpufleet.model import load_model
from gpufleet.model.ownership import kueue_namespaces
from gpufleet.render import render_all
from gpufleet.render.controller import ControllerSettings, render_controller
from gpufleet.render.monitoring import render_monitoring
from gpufleet.render.params_configmap import params_base
from gpufleet.rules.admission_policies import PARAMS as RULE_PARAMS
from gpufleet.rules.admission_policies import policy_forms
from gpufleet.rules.api import Severity
from gpufleet.rules.registry import all_rules
from tests.program.capture import REPO, capture_program, run_stack, stack_config, stack_names

STACKS = stack_names()
CORE_GROUPS = {"v1": "core/v1"}


def test_every_stack_file_is_found():
    assert {"dev", "prod"} <= set(STACKS)


def expected_types(stack: str) -> Counter:
    """Resource types the program must register: the wiring plus one resource per rendered object."""
    model = load_model(REPO / stack_config(stack)["gpufleet:model"])
    rendered = render_all(model)
    engines = 1 + (rendered.volcano_values is not None) + (rendered.coscheduling_values is not None)
    counts = Counter(
        f"kubernetes:{CORE_GROUPS.get(o.manifest['apiVersion'], o.manifest['apiVersion'])}:{o.manifest['kind']}"
        for o in rendered.objects
    )
    counts.update(
        {
            "gpufleet:fleet:GpuFleet": 1,
            "gpufleet:kueue:Kueue": 1,
            "gpufleet:quota:FleetQuota": 1,
            "kubernetes:core/v1:Namespace": engines,
            "kubernetes:helm.sh/v4:Chart": engines,
        }
    )
    if rendered.volcano_values is not None:
        counts["gpufleet:volcano:Volcano"] = 1
        counts.update(volcano_admission_types(stack))
    if rendered.coscheduling_values is not None:
        counts["gpufleet:coscheduling:Coscheduling"] = 1
    counts.update(controller_types(stack, model))
    counts.update(gang_alert_types(stack, model))
    return counts


def gang_alert_types(stack: str, model) -> Counter:
    """The gang alerts: with prometheus-operator, their component and one resource per rendered monitor or rule."""
    if str(stack_config(stack).get("gpufleet:prometheusOperator", "false")).lower() != "true":
        return Counter()
    counts = Counter(f"kubernetes:{m['apiVersion']}:{m['kind']}" for m in render_monitoring(model))
    if counts:
        counts["gpufleet:observability:GangAlerts"] = 1
    return counts


PULUMI_TLS = (
    "tls:index/privateKey:PrivateKey",
    "tls:index/privateKey:PrivateKey",
    "tls:index/selfSignedCert:SelfSignedCert",
    "tls:index/certRequest:CertRequest",
    "tls:index/locallySignedCert:LocallySignedCert",
    "kubernetes:core/v1:Secret",
)


def _cert_manager(stack: str) -> bool:
    return str(stack_config(stack).get("gpufleet:certManager", "false")).lower() == "true"


def volcano_admission_types(stack: str) -> Counter:
    """The Volcano admission Secret the chart only makes in a hook: pulumi-tls material, or cert-manager objects."""
    if _cert_manager(stack):
        return Counter({"kubernetes:cert-manager.io/v1:Issuer": 2, "kubernetes:cert-manager.io/v1:Certificate": 2})
    return Counter(PULUMI_TLS)


def controller_types(stack: str, model) -> Counter:
    """The gang-admission controller: its component, TLS material, one resource per rendered manifest and
    the rules' admission policies the stack's ``controller.enforcement`` applies."""
    if not model.controller.enabled:
        return Counter()
    config = stack_config(stack)
    cert_manager = str(config.get("gpufleet:certManager", "false")).lower() == "true"
    settings = ControllerSettings(
        image="x",
        cert_manager=cert_manager,
        prometheus_operator=str(config.get("gpufleet:prometheusOperator", "false")).lower() == "true",
    )
    manifests = render_controller(model, settings).values()
    counts = Counter(f"kubernetes:{CORE_GROUPS.get(m['apiVersion'], m['apiVersion'])}:{m['kind']}" for m in manifests)
    counts.update(admission_policy_types(model))
    counts["gpufleet:controller:GangAdmissionController"] = 1
    if not cert_manager:
        counts.update(PULUMI_TLS)
    return counts


def admission_policy_types(model) -> Counter:
    """With ``controller.enforcement`` apiServer or both: a policy and a binding per rule with a CEL form (a warning's
    second pair denies its blank waiver), and the ConfigMap of the params they read (counted from the rule registry)."""
    if model.controller.enforcement == "webhook":
        return Counter()
    pairs = sum(
        (1 + (rule.severity is Severity.WARNING)) * len(policy_forms(rule.cel))  # a form in parts: per part
        for rule in all_rules()
        if rule.cel is not None
    )
    group = "kubernetes:admissionregistration.k8s.io/v1"
    return Counter(
        {
            f"{group}:ValidatingAdmissionPolicy": pairs,
            f"{group}:ValidatingAdmissionPolicyBinding": pairs,
            "kubernetes:core/v1:ConfigMap": 1,
        }
    )


POLICIES = {
    "gpufleet-gang001",
    "gpufleet-gang002",
    "gpufleet-gang004",
    "gpufleet-gang110",
    "gpufleet-gang201",
    "gpufleet-gang203",
    "gpufleet-gang203-blank-waiver",
    "gpufleet-gang205",
    "gpufleet-gang206",
    "gpufleet-gang206-blank-waiver",
    "gpufleet-gang804",
}
"""The admission policies of the rules with a CEL form today (more may come: the test wants these at least)."""


@pytest.mark.parametrize("stack", STACKS)
def test_an_enforcement_both_stack_registers_each_rules_policy_and_binding_and_the_params_they_read(stack):
    assert load_model(REPO / stack_config(stack)["gpufleet:model"]).controller.enforcement == "both"
    registered = capture_program(stack)

    def named(kind: str) -> set[str]:
        return {r["inputs"]["metadata"]["name"] for r in registered if r["type"].endswith(f":{kind}")}

    assert POLICIES <= named("ValidatingAdmissionPolicy")
    assert POLICIES <= named("ValidatingAdmissionPolicyBinding")
    params = {n for n in named("ConfigMap") if params_base(n) == RULE_PARAMS}
    assert len(params) == 1
    bindings = [r for r in registered if r["type"].endswith(":ValidatingAdmissionPolicyBinding")]
    assert {b["inputs"]["spec"]["paramRef"]["name"] for b in bindings if "paramRef" in b["inputs"]["spec"]} == params


@pytest.mark.parametrize("stack", STACKS)
def test_the_stack_registers_exactly_the_wiring_and_the_rendered_objects(stack):
    registered = capture_program(stack)
    assert Counter(r["type"] for r in registered) == expected_types(stack)
    assert len({r["urn"] for r in registered}) == len(registered)


@pytest.mark.parametrize("stack", STACKS)
def test_the_stack_has_one_cluster_queue_per_kueue_team_and_one_local_queue_per_namespace(stack):
    model = load_model(REPO / stack_config(stack)["gpufleet:model"])
    kueue_pools = {p.name for p in model.pools_of("kueue")}
    teams = [t for t in model.teams if kueue_pools & set(t.quota)]
    registered = capture_program(stack)
    queues = {r["inputs"]["metadata"]["name"] for r in registered if r["type"].endswith(":ClusterQueue")}
    local = {
        (r["inputs"]["metadata"]["namespace"], r["inputs"]["spec"]["clusterQueue"])
        for r in registered
        if r["type"].endswith(":LocalQueue")
    }
    assert queues == {t.name for t in teams}
    assert local == {(ns, t.name) for t in teams for ns in kueue_namespaces(model, t)}


@pytest.mark.parametrize("stack", STACKS)
def test_the_stack_exports_its_queue_names_and_chart_versions(stack):
    model = load_model(REPO / stack_config(stack)["gpufleet:model"])
    outputs = run_stack(stack).exports
    assert outputs["fleet"] == model.name
    assert sorted(outputs["clusterQueues"]) == sorted(
        o.manifest["metadata"]["name"] for o in render_all(model).objects if o.manifest["kind"] == "ClusterQueue"
    )
    assert outputs["chartVersions"]["kueue"] == model.engines.kueue.chart_version


BROKEN = """\
apiVersion: gpufleet.dev/v1alpha1
kind: Fleet
name: broken
pools:
  - {name: l4, system: kueue, nodeCount: 2, allocatable: {nvidia.com/gpu: 8}}
teams:
  - {name: alpha, namespaces: [alpha], quota: {l4: {nominal: 8}}, colour: blue}
  - {name: Beta, namespaces: [beta], quota: {l4: {nominal: 8}}}
"""


def test_a_broken_model_stops_the_program_with_every_issue_and_no_traceback(tmp_path):
    model = tmp_path / "broken.fleet.yaml"
    model.write_text(BROKEN, encoding="utf-8")
    with pytest.raises(pulumi.RunError) as caught:
        run_stack("dev", {"gpufleet:model": str(model)})
    message = str(caught.value)
    assert "teams[0].colour" in message and "teams[1].name" in message
    assert str(model) in message.splitlines()[0]
    assert len(message.splitlines()) == 1 + 2
    assert "Traceback" not in message


def test_a_stack_without_a_model_setting_is_a_clear_config_error():
    with pytest.raises(pulumi.RunError, match="gpufleet:model"):
        run_stack("dev", {})


def test_a_missing_model_file_names_the_file_and_the_setting(tmp_path):
    with pytest.raises(pulumi.RunError, match="cannot read the model file") as caught:
        run_stack("dev", {"gpufleet:model": str(tmp_path / "absent.yaml")})
    assert "gpufleet:model" in str(caught.value) and "absent.yaml" in str(caught.value)


def test_the_controller_image_and_digest_come_from_stack_config():
    digest = "sha256:" + "0f" * 32
    config = {
        **stack_config("dev"),
        "gpufleet:controllerImage": "registry.example/gac:9.9",
        "gpufleet:controllerImageDigest": digest,
    }
    registered = run_stack("dev", config).registered
    deployment = next(r for r in registered if r.type == "kubernetes:apps/v1:Deployment")
    assert (
        deployment.inputs["spec"]["template"]["spec"]["containers"][0]["image"] == f"registry.example/gac:9.9@{digest}"
    )
