"""``gpufleet render --out DIR`` writes exactly what the Pulumi program registers: same objects, same content.

Each stack's program runs under recording mocks (:mod:`tests.program.capture`); every Kubernetes object it
registers, outside the engines' own components (their charts, namespaces and Volcano's admission Secret, which
the charts bring under GitOps), is compared with the folder ``render`` writes with the same stack's settings:
the quota objects, the controller, the admission policies with their params and bindings, and with
prometheus-operator the gang alerts. The only differences allowed are the two things only Pulumi makes: the
serving Secret (pulumi-tls) and the ``caBundle`` taken from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.cli.inputs import stack_settings
from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.stack.folder import KUSTOMIZATION, folder_files
from tests.program.capture import REPO, capture_program, stack_config, stack_names

ENGINE_COMPONENTS = ("gpufleet:kueue:Kueue", "gpufleet:volcano:Volcano", "gpufleet:coscheduling:Coscheduling")
PULUMI_ONLY = {("v1", "Secret", "gang-admission-controller-tls")}
"""The serving Secret whose PEMs pulumi-tls makes at deploy time (render writes it only when asked)."""


def _plain(value: Any) -> Any:
    """Mock inputs carry integers as floats; the files carry them as integers."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _identity(manifest: dict[str, Any]) -> tuple[str, str, str, str]:
    meta = manifest["metadata"]
    return manifest["apiVersion"], manifest["kind"], meta.get("namespace", ""), meta["name"]


def _without_ca_bundle(manifest: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """The manifest without its webhooks' caBundle, and the bundles taken out."""
    if not manifest["kind"].endswith("WebhookConfiguration"):
        return manifest, []
    hooks = [dict(h, clientConfig=dict(h["clientConfig"])) for h in manifest["webhooks"]]
    bundles = [h["clientConfig"].pop("caBundle", None) for h in hooks]
    return dict(manifest, webhooks=hooks), bundles


def program_objects(stack: str) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    registered = capture_program(stack)
    engines = {r["urn"] for r in registered if r["type"] in ENGINE_COMPONENTS}
    out = {}
    for r in registered:
        if not r["type"].startswith("kubernetes:") or r["type"] == "kubernetes:helm.sh/v4:Chart":
            continue
        if r["parent"] in engines:
            continue
        manifest = _plain(r["inputs"])
        if (manifest["apiVersion"], manifest["kind"], manifest["metadata"]["name"]) in PULUMI_ONLY:
            continue
        out[_identity(manifest)] = manifest
    return out


def rendered_objects(stack: str) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    model = REPO / stack_config(stack)["gpufleet:model"]
    fleet = load_model(model)
    files = folder_files(fleet, render_all(fleet), stack_settings(Path(model))[1])
    out = {}
    for folder in yaml.safe_load(files[KUSTOMIZATION])["resources"]:
        for name in yaml.safe_load(files[f"{folder}/{KUSTOMIZATION}"])["resources"]:
            manifest = yaml.safe_load(files[f"{folder}/{name}"])
            out[_identity(manifest)] = manifest
    return out


@pytest.fixture(scope="module", params=stack_names())
def both(request):
    return request.param, program_objects(request.param), rendered_objects(request.param)


def test_render_writes_every_object_the_program_registers_and_no_other(both):
    stack, program, rendered = both
    assert sorted(set(program) - set(rendered)) == [], f"{stack}: registered by the program, not rendered"
    assert sorted(set(rendered) - set(program)) == [], f"{stack}: rendered, not registered by the program"


def test_each_rendered_object_has_the_content_the_program_registers(both):
    stack, program, rendered = both
    different = []
    for key in sorted(set(program) & set(rendered)):
        registered, program_bundles = _without_ca_bundle(program[key])
        written, written_bundles = _without_ca_bundle(rendered[key])
        if registered != written:
            different.append(key)
        assert not any(written_bundles), f"{stack}: {key} names a CA bundle render cannot know"
    assert different == [], f"{stack}: content differs"


def test_the_comparison_covers_the_controller_and_the_gang_rule_policies(both):
    _, program, _ = both
    kinds = {kind for _, kind, _, _ in program}
    assert {"Deployment", "Service", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"} <= kinds
    assert {"MutatingWebhookConfiguration", "ClusterQueue"} <= kinds
    gang_policies = [name for _, kind, _, name in program if kind == "ValidatingAdmissionPolicy" and "gang" in name]
    assert len(gang_policies) >= 30
