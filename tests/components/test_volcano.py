"""gpufleet.pulumi.volcano: the Volcano namespace and pinned chart, scheduler conf from the renderer."""

from __future__ import annotations

import pytest
import yaml

from gpufleet.pulumi.volcano import VOLCANO_REPO, Volcano, VolcanoArgs
from gpufleet.render.volcano import render_volcano_values
from tests.components.builders import chart_in_namespace, fleet, fleet_data, one, team
from tests.components.mocking import run_program
from tests.components.test_controller import SECRET_SIG, unsecret


def install(monitor, model):
    return run_program(monitor, lambda: Volcano("volcano", VolcanoArgs(model, render_volcano_values(model))))


def scheduler_conf(chart) -> dict:
    return yaml.safe_load(chart.inputs["values"]["custom"]["scheduler_config_override"])


def plugins(conf: dict) -> dict[str, dict]:
    return {p["name"]: p for tier in conf["tiers"] for p in tier["plugins"]}


def test_the_component_has_its_token_and_parents_the_namespace_and_chart(monitor):
    registered = install(monitor, fleet())
    component = one(registered, "gpufleet:volcano:Volcano")
    children = [r for r in registered if r is not component]
    assert {r.type for r in children} == {
        "kubernetes:core/v1:Namespace",
        "kubernetes:helm.sh/v4:Chart",
        "kubernetes:core/v1:Secret",
        "tls:index/privateKey:PrivateKey",
        "tls:index/selfSignedCert:SelfSignedCert",
        "tls:index/certRequest:CertRequest",
        "tls:index/locallySignedCert:LocallySignedCert",
    }
    assert all(r.parent == component.urn for r in children)


def test_the_admission_secret_the_chart_mounts_exists_before_the_chart(monitor):
    registered = install(monitor, fleet())
    secret = one(registered, "kubernetes:core/v1:Secret")
    chart = one(registered, "kubernetes:helm.sh/v4:Chart")
    assert secret.inputs["metadata"]["name"] == "volcano-admission-secret"
    assert secret.inputs["metadata"]["namespace"] == "volcano-system"
    assert SECRET_SIG in secret.inputs["stringData"], "the admission key must be stored as a Pulumi secret"
    data = unsecret(secret.inputs["stringData"])
    assert set(data) == {"tls.key", "tls.crt", "ca.crt"}
    assert "volcano-admission-ca" in data["ca.crt"] and "volcano-admission-serving-cert" in data["tls.crt"]
    assert secret.urn in chart.dependencies
    assert one(registered, "kubernetes:core/v1:Namespace").urn in secret.dependencies


def test_with_cert_manager_the_serving_certificate_writes_the_secret_before_the_chart(monitor):
    model = fleet()
    registered = run_program(
        monitor, lambda: Volcano("volcano", VolcanoArgs(model, render_volcano_values(model), cert_manager=True))
    )
    certificates = [r for r in registered if r.type == "kubernetes:cert-manager.io/v1:Certificate"]
    serving = next(c for c in certificates if c.inputs["spec"].get("secretName") == "volcano-admission-secret")
    assert "volcano-admission-service.volcano-system.svc" in serving.inputs["spec"]["dnsNames"]
    assert serving.urn in one(registered, "kubernetes:helm.sh/v4:Chart").dependencies
    assert not [r for r in registered if r.type.startswith("tls:")]


@pytest.mark.parametrize(
    "volcano",
    [
        {"chartVersion": "1.15.1"},
        {"chartVersion": "1.15.0", "namespace": "vc-system", "releaseName": "vc"},
    ],
)
def test_the_chart_is_the_pinned_volcano_chart_from_its_repository(monitor, volcano):
    model = fleet(engines={"kueue": {}, "volcano": volcano})
    registered = install(monitor, model)
    chart = chart_in_namespace(registered, model.engines.volcano)
    assert chart.inputs["chart"] == "volcano"
    assert (
        chart.inputs["repositoryOpts"] == {"repo": VOLCANO_REPO} == {"repo": "https://volcano-sh.github.io/helm-charts"}
    )
    assert "skipAwait" not in chart.inputs


@pytest.mark.parametrize(
    ("scheduler", "loaded", "absent"),
    [
        (
            {"plugin": "capacity", "hierarchy": True, "actions": ["enqueue", "allocate", "gangreclaim", "backfill"]},
            "capacity",
            "proportion",
        ),
        (
            {"plugin": "proportion", "hierarchy": False, "actions": ["enqueue", "allocate", "gangpreempt", "backfill"]},
            "proportion",
            "capacity",
        ),
    ],
)
def test_the_scheduler_conf_override_matches_the_model(monitor, scheduler, loaded, absent):
    flat = [team(name, cohort=None, quota={"l4": {"nominal": 8}, "t4": {"nominal": 4}}) for name in ("alpha", "beta")]
    model = fleet(volcano=scheduler, teams=flat if loaded == "proportion" else fleet_data()["teams"])
    conf = scheduler_conf(one(install(monitor, model), "kubernetes:helm.sh/v4:Chart"))
    assert [a.strip() for a in conf["actions"].split(",")] == model.volcano.actions
    found = plugins(conf)
    assert loaded in found and absent not in found
    assert found.get("capacity", {}).get("enableHierarchy", False) == (loaded == "capacity" and model.volcano.hierarchy)
    assert {"gang", "priority"} <= set(found)
