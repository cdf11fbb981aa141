"""The namespace-label guard on a real API server: only the identities the model names may relabel a team namespace.

The policy (``gpufleet.render.namespace_guard``) needs no engine, so this module starts
the sandbox's control plane only (etcd, kube-apiserver, controller-manager, scheduler:
``gpufleet.sandbox.up``'s own steps), applies the mixed stack's team namespaces and the
rendered policy and binding as the stack would (the sandbox's ``system:masters`` client),
and then acts as other users by impersonation. RBAC lets the group ``EDITORS`` patch
namespaces, so only the policy stands between them and the labels: a user the model does
not name is refused the opt-out label and the removal of ``gpufleet.dev/team``; the user
``controller.namespaceGuard.users`` names is not; a namespace of no team is anyone's.
Every process is stopped by its PID afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from kubernetes import config as kube_config
from kubernetes.client import CoreV1Api
from kubernetes.client.exceptions import ApiException

from gpufleet.kubetypes.vocab import TEAM_LABEL
from gpufleet.model import load_model
from gpufleet.render.namespace_guard import render_namespace_guard
from gpufleet.render.namespaces import render_namespaces
from gpufleet.sandbox.kube import Kube, wait_for
from gpufleet.sandbox.state import State, down
from gpufleet.sandbox.up import control_plane
from tests.e2e.sandbox_env import require_go

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "stacks" / "mixed.fleet.yaml"
FLEET = load_model(MODEL)
OPT_OUT = FLEET.controller.opt_out_label
NAMED = FLEET.controller.namespace_guard.users[0]
EDITORS = "e2e-namespace-editors"
RBAC = "rbac.authorization.k8s.io/v1"
TEAM_NS = "vision"


@dataclass(frozen=True)
class ControlPlane:
    state: State
    kube: Kube
    kubeconfig: Path


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    """The control plane with the stack's team namespaces, the guard, and RBAC for ``EDITORS``."""
    require_go()
    state = control_plane(tmp_path_factory.mktemp("guard") / "sandbox")
    run = ControlPlane(state, Kube(Path(state.kubeconfig)), Path(state.kubeconfig))
    try:
        run.kube.apply_all(render_namespaces(FLEET))
        run.kube.apply_all(render_namespace_guard(FLEET))
        run.kube.apply(
            {
                "apiVersion": RBAC,
                "kind": "ClusterRole",
                "metadata": {"name": EDITORS},
                "rules": [{"apiGroups": [""], "resources": ["namespaces"], "verbs": ["get", "patch", "update"]}],
            }
        )
        run.kube.apply(
            {
                "apiVersion": RBAC,
                "kind": "ClusterRoleBinding",
                "metadata": {"name": EDITORS},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": EDITORS},
                "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": EDITORS}],
            }
        )
        _wait_until_enforced(run)
        yield run
    finally:
        down(run.state, keep=True)


def _as(run, user: str) -> CoreV1Api:
    """A client acting as ``user`` in the group ``EDITORS`` (impersonation by the sandbox's admin)."""
    client = kube_config.new_client_from_config(config_file=str(run.kubeconfig))
    client.set_default_header("Impersonate-User", user)
    client.set_default_header("Impersonate-Group", EDITORS)
    return CoreV1Api(client)


def _patch(run, user: str, namespace: str, labels: dict[str, str | None]) -> None:
    _as(run, user).patch_namespace(namespace, {"metadata": {"labels": labels}})


def _labels(run, namespace: str) -> dict[str, str]:
    return run.kube.get("v1", "Namespace", namespace)["metadata"].get("labels", {})


def _wait_until_enforced(run) -> None:
    """The API server loads a new policy within a second or two: wait until it refuses a dry-run relabel."""

    def refused() -> bool:
        try:
            _as(run, "mallory").patch_namespace(TEAM_NS, {"metadata": {"labels": {OPT_OUT: "disabled"}}}, dry_run="All")
        except ApiException as exc:
            return exc.status in (403, 422) and "ValidatingAdmissionPolicy" in exc.body
        return False

    wait_for("the namespace-label policy to be enforced", refused, timeout=60, interval=0.5)


@pytest.mark.parametrize(
    "labels",
    [{OPT_OUT: "disabled"}, {TEAM_LABEL: None}, {TEAM_LABEL: "llm"}],
    ids=["opt-out", "drop-team", "other-team"],
)
def test_a_user_not_named_is_refused_and_the_named_user_is_not(api, labels):
    before = _labels(api, TEAM_NS)
    with pytest.raises(ApiException) as refused:
        _patch(api, "mallory", TEAM_NS, labels)
    assert refused.value.status in (403, 422) and "ValidatingAdmissionPolicy" in refused.value.body
    assert _labels(api, TEAM_NS) == before
    _patch(api, NAMED, TEAM_NS, labels)
    assert all(_labels(api, TEAM_NS).get(k) == v for k, v in labels.items())
    _patch(api, NAMED, TEAM_NS, {k: before.get(k) for k in labels})  # the stack's labels back
    assert _labels(api, TEAM_NS) == before


def test_ordinary_labels_on_a_team_namespace_and_any_label_elsewhere_are_anyones(api):
    _patch(api, "mallory", TEAM_NS, {"cost-center": "ml-42"})
    assert _labels(api, TEAM_NS)["cost-center"] == "ml-42"
    api.kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "scratch"}})
    _patch(api, "mallory", "scratch", {OPT_OUT: "disabled"})
    assert _labels(api, "scratch")[OPT_OUT] == "disabled"
