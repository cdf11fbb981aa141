"""The stack config for clusters where someone else installed the engines, or the controller runs outside.

``gpufleet:enginesInstalled`` (the sandbox, or a cluster whose Kueue and Volcano another team
runs), ``gpufleet:controllerUrl`` and ``gpufleet:controllerTlsDir`` (a backend outside the
cluster, a certificate from an organisation's PKI) and the local chart paths, under mocks;
``tests/e2e/test_pulumi_e2e.py`` runs the same keys with the real CLI.
"""

from __future__ import annotations

import base64

import pulumi
import pytest

from tests.program.capture import run_stack, stack_config, stack_names


def tls_dir(tmp_path, *names: str):
    for name in names:
        (tmp_path / name).write_text(f"-----BEGIN {name}-----\n")
    return tmp_path


def registered(stack: str, **config: str):
    return run_stack(stack, {**stack_config(stack), **{f"gpufleet:{k}": v for k, v in config.items()}}).registered


@pytest.mark.parametrize("stack", stack_names())
def test_with_the_engines_installed_no_chart_no_engine_namespace_and_no_quota_object_waits_for_one(stack):
    resources = registered(stack, enginesInstalled="true")
    types = {r.type for r in resources}
    assert "kubernetes:helm.sh/v4:Chart" not in types
    assert not types & {"gpufleet:kueue:Kueue", "gpufleet:volcano:Volcano", "gpufleet:coscheduling:Coscheduling"}
    quota = [r for r in resources if r.parent and r.parent.endswith("::quota")]
    assert quota and all(not any("Chart" in d for d in r.dependencies) for r in quota)


def test_the_controller_registered_at_a_url_serves_with_the_given_certificate(tmp_path):
    folder = tls_dir(tmp_path, "tls.crt", "tls.key", "ca.crt")
    resources = registered("dev", controllerUrl="https://127.0.0.1:9443", controllerTlsDir=str(folder))
    assert not any(r.type.startswith("tls:") and r.parent.endswith("::gang-admission") for r in resources)
    hooks = [h for r in resources if r.type.endswith("WebhookConfiguration") for h in r.inputs["webhooks"]]
    assert hooks and all(h["clientConfig"]["url"].startswith("https://127.0.0.1:9443/") for h in hooks)
    assert all("service" not in h["clientConfig"] for h in hooks)
    ca = base64.b64encode((folder / "ca.crt").read_bytes()).decode()
    assert {h["clientConfig"]["caBundle"] for h in hooks} == {ca}
    secret = next(r for r in resources if r.type == "kubernetes:core/v1:Secret" and r.name.endswith("secret-tls"))
    data = secret.inputs["stringData"]
    assert "value" in data, "the given key material reaches the state as a Pulumi secret"
    assert set(data["value"]) == {"tls.crt", "tls.key", "ca.crt"}


@pytest.mark.parametrize(
    "config, words",
    [
        ({"controllerTlsDir": "absent-folder"}, ["gpufleet:controllerTlsDir", "does not exist"]),
        ({"controllerUrl": "http://127.0.0.1:9443"}, ["gpufleet:controllerUrl", "https://"]),
        ({"kueueChartPath": "no/such/chart"}, ["gpufleet:kueueChartPath", "does not exist"]),
        ({"controllerTlsDir": "{tmp}", "certManager": "true"}, ["controllerTlsDir", "certManager", "keep one"]),
        ({"controllerTlsDir": "{tmp}"}, ["tls.crt", "tls.key", "ca.crt", "fix"]),
    ],
)
def test_a_bad_stack_setting_names_the_key_and_the_fix_and_registers_nothing(tmp_path, config, words):
    config = {k: v.replace("{tmp}", str(tmp_path)) for k, v in config.items()}
    with pytest.raises(pulumi.RunError) as caught:
        registered("dev", **config)
    for word in words:
        assert word in str(caught.value)


def test_a_local_chart_path_installs_from_it_without_a_repository(tmp_path):
    chart = tmp_path / "kueue"
    chart.mkdir()
    resources = registered("dev", kueueChartPath=str(chart))
    kueue = next(r for r in resources if r.type == "kubernetes:helm.sh/v4:Chart" and r.name == "kueue")
    assert kueue.inputs["chart"] == str(chart)
    assert "version" not in kueue.inputs and "repositoryOpts" not in kueue.inputs


def test_engines_installed_and_a_given_certificate_need_no_pulumi_tls_at_all(tmp_path):
    """The sandbox's stack: pulumi-tls has no provider module the Go module proxy serves (docs/pulumi.md)."""
    folder = tls_dir(tmp_path, "tls.crt", "tls.key", "ca.crt")
    resources = registered("dev", enginesInstalled="true", controllerTlsDir=str(folder))
    assert not any(r.type.startswith("tls:") for r in resources)
