"""Every object the stack creates can be applied again by another field manager: a killed ``pulumi up``'s retry.

A ``pulumi up`` killed mid-apply leaves objects the Kubernetes provider created but its state
does not hold; the next ``pulumi up`` creates them again by server-side apply under a new field
manager (``pulumi-kubernetes-<random>``). The API server accepts that without ``--force`` only
where the applied value equals the live one in every field the first manager owns, and in an
atomic field (``matchConstraints`` of an admission policy) or one the API does not store (an
empty list, ``false``) the live value is not what was sent unless the renderer spells the API
server's defaults. tests/e2e/test_pulumi_interrupt_e2e.py met it as a flake (the retry refused
with "conflict with pulumi-kubernetes-…: .spec.matchConstraints" when the kill fell after a
policy's create). Here, on the real API server with the real Kueue and Volcano CRDs, every
object of the mixed stack (quota objects, the controller's manifests with its admission
policies, mutating ones on) is applied by one manager and then by another, without force:
none may conflict. Every process is stopped by its PID afterwards.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from kubernetes.dynamic.exceptions import DynamicApiError

from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.render.controller.common import ControllerSettings
from gpufleet.sandbox.up import Options
from gpufleet.stack.controller import controller_manifests
from tests.e2e.sandbox_env import running

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "stacks" / "mixed.fleet.yaml"
MANAGERS = ("pulumi-kubernetes-killed", "pulumi-kubernetes-retry")
KINDS = {"ValidatingAdmissionPolicy", "MutatingAdmissionPolicy", "NetworkPolicy", "PriorityClass", "ClusterQueue"}


def stack_objects() -> list[dict[str, Any]]:
    """The mixed stack's quota objects, then its controller's manifests (admission policies included), mutating
    admission policies on; the webhooks with a CA bundle, as pulumi-tls gives them."""
    fleet = load_model(MODEL)
    fleet = fleet.model_copy(update={"controller": fleet.controller.model_copy(update={"mutations": "both"})})
    settings = ControllerSettings(ca_bundle=base64.b64encode(b"-----BEGIN CERTIFICATE-----").decode())
    quota = [o.manifest for o in render_all(fleet).objects]
    return quota + list(controller_manifests(fleet, settings).values())


def apply(kube, manifest: dict[str, Any], manager: str) -> str | None:
    """Server-side apply without force; the refusal's message, or None."""
    meta = manifest["metadata"]
    try:
        kube.resource(manifest["apiVersion"], manifest["kind"]).server_side_apply(
            body=manifest, name=meta["name"], namespace=meta.get("namespace"), field_manager=manager
        )
    except DynamicApiError as exc:
        return f"{exc.status}: {exc.summary()}"
    return None


@pytest.fixture(scope="module")
def applied(tmp_path_factory):
    """(object, refusal of the first manager's apply, refusal of the second's) for every object of the stack."""
    with running(MODEL, tmp_path_factory.mktemp("takeover") / "sandbox", Options(engines_only=True)) as sandbox:
        kube = sandbox.kube
        out = []
        for manifest in stack_objects():
            first = apply(kube, manifest, MANAGERS[0])
            out.append((manifest, first, None if first else apply(kube, manifest, MANAGERS[1])))
        yield out


def where(manifest: dict[str, Any]) -> str:
    meta = manifest["metadata"]
    return f"{manifest['kind']} {meta.get('namespace', '')}/{meta['name']}"


def test_the_first_manager_creates_every_object(applied):
    refused = [f"{where(m)}: {first}" for m, first, _ in applied if first]
    assert not refused, "\n".join(refused)
    assert KINDS <= {m["kind"] for m, _, _ in applied}


def test_a_second_manager_applies_every_object_again_without_a_conflict(applied):
    conflicts = [f"{where(m)}: {second}" for m, _, second in applied if second]
    assert not conflicts, "\n".join(conflicts)
