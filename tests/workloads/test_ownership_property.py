"""Property: over every rendered namespace and every workload shape, Kueue gates exactly what is Kueue's.

For the dev and prod stacks and a generated mixed fleet: the Namespaces the stack
renders (with their labels), Kueue's manager Configuration as rendered, and any
workload kind the linter and mutator know (with or without a queue label, Volcano
routing hints, owners), after the gang-admission controller's own mutation. Kueue's
decision is :mod:`gpufleet.workloads.kueue_gate` (checked against Kueue's test tables
in ``test_kueue_gate.py``):

- in a Volcano namespace nothing is ever suspended or gated, whatever labels it has;
- in a Kueue namespace every top-level object of an enabled integration is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonpatch
from hypothesis import given, settings
from hypothesis import strategies as st

from gpufleet.fleetctx.context import FleetContext
from gpufleet.model import load_model
from gpufleet.mutate import mutate
from gpufleet.render import render_all
from gpufleet.render.kueue_config import render_manager_config
from gpufleet.workloads.kinds import WORKLOAD_KINDS
from gpufleet.workloads.kueue_gate import KueueConfig, decide, integration
from tests.render.builders import fleet, pool, quota, team

STACKS = Path(__file__).resolve().parents[2] / "stacks"
VERSIONS = {
    "batch.volcano.sh": "v1alpha1",
    "scheduling.volcano.sh": "v1beta1",
    "scheduling.x-k8s.io": "v1alpha1",
    "batch": "v1",
    "jobset.x-k8s.io": "v1alpha2",
    "kubeflow.org": "v1",
    "trainer.kubeflow.org": "v1alpha1",
    "": "v1",
    "apps": "v1",
    "leaderworkerset.x-k8s.io": "v1",
    "ray.io": "v1",
    "scheduling.k8s.io": "v1beta1",
}


def _mixed():
    return fleet(
        pools=[pool("h100"), pool("a100", system="volcano"), pool("b200", system="volcano")],
        teams=[
            team("both", {"h100": quota(8), "a100": quota(8)}, namespaces=["both", "both-2"]),
            team("kueue-only", {"h100": quota(8)}),
            team("volcano-only", {"b200": quota(8)}, cohort=None),
        ],
    )


def _setup(model):
    rendered = render_all(model)
    namespaces = [o.manifest for o in rendered.objects if o.manifest["kind"] == "Namespace"]
    return (
        namespaces,
        KueueConfig.from_manager_config(render_manager_config(model)),
        FleetContext.from_dict(rendered.context),
    )


SETUPS = [
    _setup(load_model(STACKS / "dev.fleet.yaml")),
    _setup(load_model(STACKS / "prod.fleet.yaml")),
    _setup(_mixed()),
]


def _labels_in_cluster(ns: dict[str, Any]) -> dict[str, str]:
    """The Namespace's labels once created: the API server adds ``kubernetes.io/metadata.name`` (GA in 1.22)."""
    return {**ns["metadata"]["labels"], "kubernetes.io/metadata.name": ns["metadata"]["name"]}


def _api_version(group: str) -> str:
    return f"{group}/{VERSIONS[group]}" if group else "v1"


@st.composite
def workloads(draw) -> dict[str, Any]:
    group, kind = draw(st.sampled_from(sorted(WORKLOAD_KINDS)))
    labels = {}
    if draw(st.booleans()):
        labels["kueue.x-k8s.io/queue-name"] = draw(st.sampled_from(["default", "research", "alpha", "other"]))
    if draw(st.booleans()):
        labels["volcano.sh/queue-name"] = draw(st.sampled_from(["research", "alpha", "root"]))
    obj: dict[str, Any] = {"apiVersion": _api_version(group), "kind": kind, "metadata": {"name": "w", "labels": labels}}
    if kind == "Pod" and draw(st.booleans()):
        obj["spec"] = {"schedulerName": "volcano", "containers": [{"name": "c", "image": "x"}]}
    return obj


owners = st.lists(
    st.sampled_from(
        [
            ("batch.volcano.sh", "Job"),
            ("batch", "Job"),
            ("kubeflow.org", "PyTorchJob"),
            ("jobset.x-k8s.io", "JobSet"),
            ("apps", "ReplicaSet"),
        ]
    ),
    max_size=2,
)


def _after_controller(obj: dict[str, Any], namespace: str, context: FleetContext) -> dict[str, Any]:
    return jsonpatch.apply_patch(obj, mutate(obj, context, namespace))


@settings(max_examples=300, deadline=None)
@given(setup=st.sampled_from(SETUPS), data=st.data(), obj=workloads(), chain=owners)
def test_nothing_in_a_volcano_namespace_is_ever_gated_or_suspended(setup, data, obj, chain) -> None:
    namespaces, config, context = setup
    volcano = [ns for ns in namespaces if ns["metadata"]["labels"]["gpufleet.dev/quota-system"] == "volcano"]
    ns = data.draw(st.sampled_from(volcano))
    name = ns["metadata"]["name"]
    ancestors = [
        {"apiVersion": _api_version(g), "kind": k, "metadata": {"labels": {"kueue.x-k8s.io/queue-name": "x"}}}
        for g, k in chain
    ]
    final = _after_controller(obj, name, context)
    assert not decide(final, _labels_in_cluster(ns), config, ancestors, default_queue_exists=True).managed


@settings(max_examples=300, deadline=None)
@given(setup=st.sampled_from(SETUPS), data=st.data(), obj=workloads())
def test_every_top_level_object_of_an_enabled_integration_in_a_kueue_namespace_is_managed(setup, data, obj) -> None:
    namespaces, config, context = setup
    kueue = [ns for ns in namespaces if ns["metadata"]["labels"]["gpufleet.dev/quota-system"] == "kueue"]
    ns = data.draw(st.sampled_from(kueue))
    final = _after_controller(obj, ns["metadata"]["name"], context)
    decision = decide(final, _labels_in_cluster(ns), config)
    assert decision.managed == (integration(obj) in config.frameworks)


def test_every_stack_has_namespaces_of_both_engines_to_draw_from() -> None:
    for namespaces, _, _ in SETUPS:
        systems = {ns["metadata"]["labels"]["gpufleet.dev/quota-system"] for ns in namespaces}
        assert systems == {"kueue", "volcano"}
