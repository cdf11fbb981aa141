"""The partition exemption on a real API server: the policy admits a node agent exactly where GANG807 does (issue 32, item 4).

The static-partitioning ValidatingAdmissionPolicy (``gpufleet.render.partition``) needs no
engine, so this module starts the sandbox's control plane only (etcd, kube-apiserver,
controller-manager, scheduler), applies the mixed stack's team namespaces and the rendered
policy and binding, and creates (dry run) the pod of a device-plugin DaemonSet that
tolerates every taint in: kube-system and gpu-operator (the model's
``partitionExemptNamespaces``): admitted; a team namespace, a namespace of no team and one
carrying only the former label ``gpufleet.dev/partition-exempt: "true"``: refused. GANG807
on the DaemonSet, through the fleet context the stack renders, gives the same verdicts.
Every process is stopped by its PID afterwards.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kubernetes import config as kube_config
from kubernetes.client import CoreV1Api
from kubernetes.client.exceptions import ApiException

from gpufleet.fleetctx.context import FleetContext
from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.render.namespaces import render_namespaces
from gpufleet.render.partition import render_partition_policies
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from gpufleet.sandbox.engines import locate
from gpufleet.sandbox.kube import wait_for
from gpufleet.sandbox.state import down
from gpufleet.sandbox.up import _control_plane, _Run
from tests.e2e.sandbox_env import require_go
from tests.webhook.test_partition_exemption import agent_pod, daemonset

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "stacks" / "mixed.fleet.yaml"
FLEET = load_model(MODEL)
CTX = CheckContext(fleet=FleetContext.from_dict(render_all(FLEET).context))
OTHERS = {"gpu-operator": {}, "ci-runners": {}, "labelled-only": {"gpufleet.dev/partition-exempt": "true"}}
VERDICTS = [
    ("kube-system", True),
    ("gpu-operator", True),
    ("llm", False),
    ("ci-runners", False),
    ("labelled-only", False),
]


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    require_go()
    run = _Run(tmp_path_factory.mktemp("partition-exempt") / "sandbox", str(MODEL), locate(["etcd", "kube"]))
    try:
        _control_plane(run)
        run.kube.apply_all(render_namespaces(FLEET))
        for name, labels in OTHERS.items():
            run.kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}})
        run.kube.apply_all(render_partition_policies(FLEET))
        client = CoreV1Api(kube_config.new_client_from_config(config_file=str(run.kubeconfig)))
        for ns, _ in VERDICTS:  # the ServiceAccount admission plugin needs each namespace's default account
            wait_for(f"the default ServiceAccount of {ns}", lambda ns=ns: _has_default_account(client, ns), timeout=60)
        wait_for(
            "the partition policy to be enforced", lambda: admitted(client, "llm") is False, timeout=60, interval=0.5
        )
        yield client
    finally:
        down(run.state, keep=True)


def _has_default_account(client: CoreV1Api, ns: str) -> bool:
    try:
        client.read_namespaced_service_account("default", ns)
        return True
    except ApiException:
        return False


def admitted(client: CoreV1Api, ns: str) -> bool:
    """Whether the API server admits (dry run) the DaemonSet's pod in ``ns``; only the policy may refuse it."""
    pod = agent_pod(ns)
    try:
        client.create_namespaced_pod(ns, pod, dry_run="All")
        return True
    except ApiException as exc:
        if exc.status in (403, 422) and "ValidatingAdmissionPolicy" in (exc.body or ""):
            return False
        raise


@pytest.mark.parametrize("ns, expected", VERDICTS)
def test_the_api_server_and_gang807_agree_on_a_node_agent_that_tolerates_every_taint(api, ns, expected):
    lint_allows = not any(f.blocking for f in engine.check_objects([daemonset(ns)], CTX, select=["GANG807"]))
    assert (admitted(api, ns), lint_allows) == (expected, expected)
