"""gpufleet.pulumi.controller: the gang-admission controller is deployed with every safe default."""

from __future__ import annotations

import base64

import pytest

from gpufleet.model import parse_model
from gpufleet.pulumi.controller import GangAdmissionController, GangAdmissionControllerArgs
from gpufleet.render.controller.common import ControllerSettings
from gpufleet.render.params_configmap import params_base
from tests.components.builders import fleet, fleet_data, one, team
from tests.components.mocking import run_program

TOKEN = "gpufleet:controller:GangAdmissionController"


def deploy(monitor, model=None, **settings):
    model = model or fleet()
    return run_program(
        monitor,
        lambda: GangAdmissionController("gac", GangAdmissionControllerArgs(model, ControllerSettings(**settings))),
    )


SECRET_SIG = "4dabf18193072939515e22adb298388d"


def unsecret(value):
    """Secret inputs arrive wrapped in Pulumi's secret signature; the tests read the value."""
    return value["value"] if isinstance(value, dict) and SECRET_SIG in value else value


def of_type(registered, suffix):
    return [r for r in registered if r.type.endswith(suffix)]


def webhooks(registered):
    configs = of_type(registered, "WebhookConfiguration")
    return [(c.type, hook) for c in configs for hook in c.inputs["webhooks"]]


def test_the_component_has_its_token_and_parents_every_child(monitor):
    registered = deploy(monitor)
    component = one(registered, TOKEN)
    children = [r for r in registered if r is not component]
    assert children and all(r.parent == component.urn for r in children)


def test_the_service_account_has_no_token_and_no_rbac_is_granted(monitor):
    registered = deploy(monitor)
    account = one(registered, "kubernetes:core/v1:ServiceAccount")
    assert account.inputs["automountServiceAccountToken"] is False
    assert not [r for r in registered if "rbac.authorization.k8s.io" in r.type]


def test_the_deployment_is_replicated_hardened_and_probed(monitor):
    spec = one(deploy(monitor), "kubernetes:apps/v1:Deployment").inputs["spec"]
    pod = spec["template"]["spec"]
    container = pod["containers"][0]
    security = container["securityContext"]
    assert spec["replicas"] == 3
    assert pod["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert security["runAsNonRoot"] and security["readOnlyRootFilesystem"]
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"] == {"drop": ["ALL"]}
    assert security["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert container["resources"]["requests"] and container["resources"]["limits"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert all(
        probe["httpGet"]["scheme"] == "HTTPS" for probe in (container["livenessProbe"], container["readinessProbe"])
    )


def test_the_pod_disruption_budget_keeps_all_but_one_replica(monitor):
    pdb = one(deploy(monitor), "kubernetes:policy/v1:PodDisruptionBudget")
    assert pdb.inputs["spec"]["minAvailable"] == 2


def test_the_image_is_pinned_by_the_digest_from_stack_config(monitor):
    digest = "sha256:" + "ab" * 32
    registered = deploy(monitor, image="registry.example/gac:1.2.3", digest=digest)
    container = one(registered, "kubernetes:apps/v1:Deployment").inputs["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == f"registry.example/gac:1.2.3@{digest}"


def test_the_fleet_context_configmap_is_mounted_where_the_webhook_reads_it(monitor):
    registered = deploy(monitor)
    config_map = one(registered, "kubernetes:core/v1:ConfigMap")
    container = one(registered, "kubernetes:apps/v1:Deployment").inputs["spec"]["template"]["spec"]["containers"][0]
    assert '"teams"' in config_map.inputs["data"]["fleet-context.json"]
    assert "--fleet-context=/etc/gpufleet/fleet/fleet-context.json" in container["args"]


@pytest.mark.parametrize(
    "setting",
    [
        ("failurePolicy", "Fail"),
        ("timeoutSeconds", 3),
        ("sideEffects", "None"),
        ("admissionReviewVersions", ["v1"]),
        ("matchPolicy", "Equivalent"),
    ],
)
def test_every_webhook_has_the_fail_closed_settings(monitor, setting):
    key, value = setting
    hooks = webhooks(deploy(monitor))
    assert len(hooks) == 4
    assert all(hook[key] == value for _, hook in hooks)


def test_mutating_webhooks_are_never_reinvoked(monitor):
    hooks = [hook for kind, hook in webhooks(deploy(monitor)) if "Mutating" in kind]
    assert hooks and all(hook["reinvocationPolicy"] == "Never" for hook in hooks)


def test_the_namespace_selector_excludes_system_engine_and_opted_out_namespaces(monitor):
    model = fleet()
    for _, hook in webhooks(deploy(monitor, model)):
        exprs = {e["key"]: e for e in hook["namespaceSelector"]["matchExpressions"]}
        excluded = set(exprs["kubernetes.io/metadata.name"]["values"])
        assert {
            "kube-system",
            model.controller.namespace,
            model.engines.kueue.namespace,
            model.engines.volcano.namespace,
        } <= excluded
        assert exprs[model.controller.opt_out_label] == {
            "key": model.controller.opt_out_label,
            "operator": "NotIn",
            "values": ["disabled"],
        }


def test_the_webhooks_cover_every_gang_workload_kind(monitor):
    resources = {
        (rule["apiGroups"][0], rule["resources"][0]) for _, hook in webhooks(deploy(monitor)) for rule in hook["rules"]
    }
    assert {
        ("batch.volcano.sh", "jobs"),
        ("batch", "jobs"),
        ("jobset.x-k8s.io", "jobsets"),
        ("kubeflow.org", "pytorchjobs"),
        ("kubeflow.org", "mpijobs"),
        ("trainer.kubeflow.org", "trainjobs"),
        ("scheduling.volcano.sh", "podgroups"),
        ("scheduling.x-k8s.io", "podgroups"),
        ("", "pods"),
    } <= resources


def test_the_ca_bundle_is_the_deploy_time_ca_that_signs_the_serving_certificate(monitor):
    registered = deploy(monitor)
    ca = one(registered, "tls:index/selfSignedCert:SelfSignedCert")
    signed = one(registered, "tls:index/locallySignedCert:LocallySignedCert")
    secret = one(registered, "kubernetes:core/v1:Secret")
    assert ca.inputs["isCaCertificate"] is True
    assert ca.urn in signed.dependencies and "gang-admission-ca\n" in signed.inputs["caCertPem"]
    assert secret.inputs["type"] == "kubernetes.io/tls"
    data = unsecret(secret.inputs["stringData"])
    assert SECRET_SIG in secret.inputs["stringData"], "the TLS key must be stored as a Pulumi secret"
    assert set(data) == {"tls.crt", "tls.key", "ca.crt"}
    assert "gang-admission-serving-cert" in data["tls.crt"] and "gang-admission-ca" in data["ca.crt"]
    for _, hook in webhooks(registered):
        assert base64.b64decode(hook["clientConfig"]["caBundle"]).decode() == data["ca.crt"]


def test_cert_manager_replaces_pulumi_tls_and_injects_the_ca(monitor):
    registered = deploy(monitor, cert_manager=True)
    assert not of_type(registered, "SelfSignedCert")
    certificates = of_type(registered, "cert-manager.io/v1:Certificate")
    assert {c.inputs["metadata"]["name"] for c in certificates} == {
        "gang-admission-controller",
        "gang-admission-controller-ca",
    }
    for config in of_type(registered, "WebhookConfiguration"):
        assert (
            config.inputs["metadata"]["annotations"]["cert-manager.io/inject-ca-from"]
            == "gpufleet-system/gang-admission-controller"
        )
        assert all("caBundle" not in hook["clientConfig"] for hook in config.inputs["webhooks"])


def _hours(text):
    return int(text.removesuffix("h"))


def test_with_cert_manager_the_mounted_secret_is_renewed_before_the_expiry_alert_warns(monitor):
    registered = deploy(monitor, cert_manager=True)
    serving = next(
        c
        for c in of_type(registered, "cert-manager.io/v1:Certificate")
        if c.inputs["metadata"]["name"] == "gang-admission-controller"
    )
    mounted = one(registered, "kubernetes:apps/v1:Deployment").inputs["spec"]["template"]["spec"]["volumes"]
    assert {
        "name": "tls",
        "secret": {"secretName": serving.inputs["spec"]["secretName"], "defaultMode": 0o440},
    } in mounted
    assert not of_type(registered, "kubernetes:core/v1:Secret")  # cert-manager writes it, not the stack
    renew_before, duration = _hours(serving.inputs["spec"]["renewBefore"]), _hours(serving.inputs["spec"]["duration"])
    warning = fleet().observability.certificate_expiry.warning // 3600
    assert warning < renew_before < duration


def test_the_network_policy_admits_only_the_webhook_port(monitor):
    spec = one(deploy(monitor), "kubernetes:networking.k8s.io/v1:NetworkPolicy").inputs["spec"]
    assert spec["ingress"] == [{"ports": [{"port": 8443, "protocol": "TCP"}]}]
    assert "egress" not in spec and set(spec["policyTypes"]) == {"Ingress", "Egress"}  # no rules: no egress


@pytest.mark.parametrize("prometheus_operator", [True, False])
def test_a_service_monitor_exists_only_with_prometheus_operator(monitor, prometheus_operator):
    registered = deploy(monitor, prometheus_operator=prometheus_operator)
    assert bool(of_type(registered, "monitoring.coreos.com/v1:ServiceMonitor")) is prometheus_operator


def test_the_deployment_waits_for_its_secret_and_configmap(monitor):
    registered = deploy(monitor)
    deployment = one(registered, "kubernetes:apps/v1:Deployment")
    for kind in ("kubernetes:core/v1:Secret", "kubernetes:core/v1:ConfigMap"):
        assert one(registered, kind).urn in deployment.dependencies


def _operations(monitor, kind: str) -> dict[tuple[str, str], list[str]]:
    hooks = [hook for k, hook in webhooks(deploy(monitor)) if kind in k]
    return {
        (rule["apiGroups"][0], rule["resources"][0]): rule["operations"] for hook in hooks for rule in hook["rules"]
    }


def test_mutation_happens_at_creation_only(monitor):
    assert set(map(tuple, _operations(monitor, "Mutating").values())) == {("CREATE",)}


def test_validation_sees_updates_only_of_volcano_jobs_which_no_engine_updates_in_full(monitor):
    operations = _operations(monitor, "Validating")
    assert operations.pop(("batch.volcano.sh", "jobs")) == ["CREATE", "UPDATE"]
    assert {("batch", "jobs"), ("scheduling.volcano.sh", "podgroups"), ("", "pods")} <= set(operations)
    assert all(ops == ["CREATE"] for ops in operations.values())


def test_the_webhook_configurations_wait_for_their_backend(monitor):
    registered = deploy(monitor)
    backend = {one(registered, "kubernetes:apps/v1:Deployment").urn, one(registered, "kubernetes:core/v1:Service").urn}
    for suffix in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
        assert backend <= set(one(registered, f"kubernetes:admissionregistration.k8s.io/v1:{suffix}").dependencies)


CHOICES = {
    "enforcement": ("Validating", "gpufleet-gang001", "gpufleet-rule-params"),
    "mutations": ("Mutating", "gpufleet-mutate-volcano", "gpufleet-mutation-params"),
}
"""Per admission choice of ``controller``: the kinds' prefix, one policy it applies, its params ConfigMap's base name."""


def params_of(registered, base):
    return [r for r in of_type(registered, "ConfigMap") if params_base(r.inputs["metadata"]["name"]) == base]


@pytest.mark.parametrize("setting, where", [(s, w) for s in CHOICES for w in ("webhook", "both", "apiServer")])
def test_the_stacks_admission_choices_apply_the_api_servers_policies_and_keep_the_webhook_unless_api_server(
    monitor, setting, where
):
    prefix, policy, params_name = CHOICES[setting]
    policies, webhook = where != "webhook", where != "apiServer"
    registered = deploy(monitor, fleet(controller={setting: where}))
    names = {r.inputs["metadata"]["name"] for r in of_type(registered, f"{prefix}AdmissionPolicy")}
    assert (policy in names) is policies
    assert bool(of_type(registered, f"{prefix}AdmissionPolicyBinding")) is policies
    assert bool(of_type(registered, f"{prefix}WebhookConfiguration")) is webhook
    assert bool(params_of(registered, params_name)) is policies


@pytest.mark.parametrize("setting, where", [(s, w) for s in CHOICES for w in ("both", "apiServer")])
def test_each_policy_binding_waits_for_its_policy_and_the_params_it_reads_so_nothing_is_denied_in_between(
    monitor, setting, where
):
    prefix, _, params_name = CHOICES[setting]
    registered = deploy(monitor, fleet(controller={setting: where}))
    policies = {r.inputs["metadata"]["name"]: r.urn for r in of_type(registered, f":{prefix}AdmissionPolicy")}
    params = [r.urn for r in params_of(registered, params_name)]
    bindings = of_type(registered, f"{prefix}AdmissionPolicyBinding")
    reading = [b for b in bindings if "paramRef" in b.inputs["spec"]]
    assert bindings and reading and len(params) == 1
    for binding in bindings:
        assert policies[binding.inputs["spec"]["policyName"]] in binding.dependencies, binding.name
    for binding in reading:
        assert params[0] in binding.dependencies, binding.name


def _policies_fleet(*teams: str):
    """The unit fleet with both admission choices on the API server, and ``teams`` added (a facts change)."""
    data = fleet_data(controller={"enforcement": "both", "mutations": "both"})
    data["teams"] += [
        team(name, namespaces=[name], volcanoNamespaces=[], quota={"l4": {"nominal": 1}}) for name in teams
    ]
    return parse_model(data, "unit.fleet.yaml")


@pytest.mark.parametrize("setting, base", [(s, CHOICES[s][2]) for s in CHOICES])
def test_a_facts_change_renames_the_params_under_the_same_resource_and_the_bindings_follow(monitor, setting, base):
    """The params ConfigMap is named by its content, its Pulumi resource by its key: a facts change (a pool resized, a
    team added) is a ConfigMap of another name under the same URN, which the provider replaces create-before-delete
    (the names differ), and every binding reading params names the new one and depends on that resource."""
    seen = []
    for model in (_policies_fleet(), _policies_fleet("gamma")):
        registered = deploy(monitor, model)
        params = params_of(registered, base)
        assert len(params) == 1
        reading = [
            b
            for b in of_type(registered, "AdmissionPolicyBinding")
            if "paramRef" in b.inputs["spec"] and params_base(b.inputs["spec"]["paramRef"]["name"]) == base
        ]
        assert reading and {b.inputs["spec"]["paramRef"]["name"] for b in reading} == {
            params[0].inputs["metadata"]["name"]
        }
        assert all(params[0].urn in b.dependencies for b in reading)
        seen.append((params[0].urn, params[0].inputs["metadata"]["name"]))
        monitor.registered.clear()
    (urn_before, name_before), (urn_after, name_after) = seen
    assert urn_before == urn_after and name_before != name_after
