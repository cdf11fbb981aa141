"""Lint, the admission controller and the partition ValidatingAdmissionPolicy judge a node agent's DaemonSet alike.

The exemption from static partitioning is defined once (``Fleet.partition_exempt``:
kube-system and the model's ``partitionExemptNamespaces``) and rendered into both the
policy's CEL and the fleet context (issue 32, item 4). The mixed stack exempts
``gpu-operator``. A DaemonSet whose pods tolerate every taint is judged by each layer:
``gpufleet lint --fleet`` (GANG807 through the fleet context), the admission controller's
/validate (it reads only the AdmissionReview, no namespace labels) and the API server's
policy (cel-python evaluates its CEL on the DaemonSet's pod and the namespace).
"""

from __future__ import annotations

import json

import orjson
import pytest
import yaml

from gpufleet.crdschema.cel.ext import compile_program, to_cel
from gpufleet.fleetctx.context import FleetContext
from gpufleet.lint import lint_sources
from gpufleet.lint.sources import Source
from gpufleet.model.loader import load_model
from gpufleet.render import render_all
from gpufleet.render.partition import render_partition_policies
from gpufleet.rules.api import CheckContext
from gpufleet.webhook.handlers import build_registry
from gpufleet.webhook.registry import serve
from gpufleet.webhook.state import State
from tests.webhook.reviews import review

MIXED = load_model("stacks/mixed.fleet.yaml")
CONTEXT = FleetContext.from_dict(json.loads(json.dumps(render_all(MIXED).context)))
POLICY = render_partition_policies(MIXED)[0]
REGISTRY = build_registry()
NAMESPACES = {
    "kube-system": {},
    "gpu-operator": {},
    "llm": {"gpufleet.dev/fleet": "mixed", "gpufleet.dev/team": "llm"},
    "ci-runners": {},
    "labelled-only": {"gpufleet.dev/partition-exempt": "true"},
}


def daemonset(namespace: str) -> dict:
    pod = {
        "metadata": {"labels": {"app": "device-plugin"}},
        "spec": {"tolerations": [{"operator": "Exists"}], "containers": [{"name": "plugin", "image": "plugin:1"}]},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "device-plugin", "namespace": namespace},
        "spec": {"selector": {"matchLabels": {"app": "device-plugin"}}, "template": pod},
    }


def agent_pod(namespace: str) -> dict:
    """A pod the DaemonSet creates in ``namespace`` (what the API server's policy judges)."""
    template = daemonset(namespace)["spec"]["template"]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "spec": template["spec"],
        "metadata": {**template["metadata"], "name": "device-plugin-x", "namespace": namespace},
    }


def lint_allows(obj: dict) -> bool:
    report = lint_sources([Source("ds.yaml", yaml.safe_dump(obj))], CheckContext(fleet=CONTEXT), select=["GANG807"])
    return report.exit_code == 0


def webhook_allows(obj: dict) -> bool:
    state = State()
    state.use_fleet(CONTEXT)
    state.tls_loaded = True
    return serve(REGISTRY, state, "/validate", orjson.dumps(review(obj))).result == "allowed"


def policy_allows(obj: dict) -> bool:
    """The API server's answer on the DaemonSet's pod: every validation of the policy true."""
    ns = obj["metadata"]["namespace"]
    pod = agent_pod(ns)
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": NAMESPACES[ns]}}
    values = {"object": to_cel(pod), "namespaceObject": to_cel(namespace)}
    return all(bool(compile_program(v["expression"]).evaluate(values)) for v in POLICY["spec"]["validations"])


@pytest.mark.parametrize(
    "namespace, allowed",
    [
        ("kube-system", True),
        ("gpu-operator", True),
        ("llm", False),
        ("ci-runners", False),
        ("labelled-only", False),
    ],
)
def test_lint_the_webhook_and_the_policy_agree_on_a_daemonset_that_tolerates_every_taint(namespace, allowed):
    obj = daemonset(namespace)
    assert (lint_allows(obj), webhook_allows(obj), policy_allows(obj)) == (allowed, allowed, allowed)


def test_the_exempt_namespaces_are_rendered_once_into_the_policy_and_the_context():
    assert MIXED.partition_exempt == ["kube-system", "gpu-operator"]
    assert render_all(MIXED).context["partitionExemptNamespaces"] == MIXED.partition_exempt
    assert "['kube-system', 'gpu-operator']" in POLICY["spec"]["validations"][0]["expression"]


def test_a_context_without_the_list_exempts_kube_system_alone():
    assert FleetContext.from_dict(
        {"version": 1, "fleet": "f", "teams": [], "pools": []}
    ).partition_exempt_namespaces == ("kube-system",)
