"""Kueue cases the CRDs decide (schema, CEL, transition rules), judged through the diff's cluster.

Translated from kubernetes-sigs/kueue v0.19.2 integration tests
``test/integration/singlecluster/webhook/core/resourceflavor_test.go`` and
``localqueue_test.go`` (a real API server with the CRDs installed); each case links its
source line. The "invalid label name" case is left out: it is refused by Kueue's
webhook (``ValidateResourceFlavor``, label syntax), which the diff does not emulate for
flavors (gpufleet's model validates label names itself).
"""

from __future__ import annotations

import pytest

from gpufleet.crdschema import CrdSet
from gpufleet.diff.judge import Cluster
from gpufleet.diff.steps import Step
from gpufleet.render import RenderedObject
from tests.crdschema.builders import kueue_crds, kueue_object, local_queue

pytestmark = pytest.mark.shared  # Kueue's real CRDs from ../shared (skips without them)

RF_TEST = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/test/integration/singlecluster/webhook/core/resourceflavor_test.go"
LQ_TEST = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/test/integration/singlecluster/webhook/core/localqueue_test.go"


@pytest.fixture(scope="module")
def crds() -> CrdSet:
    return kueue_crds()


def flavor(**spec) -> dict:
    return kueue_object("ResourceFlavor", "resource-flavor", spec)


def taints(n: int) -> list[dict]:
    return [{"key": f"foo{i}", "value": "bar", "effect": "NoSchedule"} for i in range(n)]


def labels(n: int) -> dict[str, str]:
    return {f"l{i}": "v" for i in range(n)}


def create(crds: CrdSet, manifest: dict) -> str:
    return Cluster([], crds).judge(Step("create", "x", None, manifest, False)).verdict


def update(crds: CrdSet, old: dict, new: dict) -> str:
    return Cluster([RenderedObject("x", old, "kueue", False)], crds).judge(Step("update", "x", old, new, False)).verdict


@pytest.mark.parametrize(
    ("case", "manifest", "verdict"),
    [
        ("L112 invalid number of taints", flavor(nodeTaints=taints(9)), "rejected"),
        ("L113 invalid number of nodeSelector labels", flavor(nodeLabels=labels(9)), "rejected"),
        (
            "L114 valid number of nodeSelector labels and taints",
            flavor(nodeTaints=taints(8), nodeLabels=labels(8)),
            "ok",
        ),
        (
            "L154 invalid taints",
            flavor(nodeTaints=[{"key": "skdajf"}, {"key": "@foo", "value": "bar", "effect": "NoSchedule"}]),
            "rejected",
        ),
        (
            "L168 invalid tolerations",
            flavor(
                tolerations=[
                    {"key": "abc", "operator": "Exists", "value": "v", "effect": "NoSchedule"},
                    {"key": "abc", "operator": "Equal", "value": "v", "effect": "not-valid"},
                ]
            ),
            "rejected",
        ),
    ],
)
def test_flavor_creation_is_judged_like_the_api_server(crds, case, manifest, verdict):
    assert create(crds, manifest) == verdict, f"{RF_TEST}#{case.split()[0]}"


def test_updating_a_flavor_with_an_invalid_taint_is_rejected(crds):
    """``RF_TEST#L117``."""
    assert (
        update(crds, flavor(), flavor(nodeTaints=[{"key": "foo", "value": "bar", "effect": "Invalid"}])) == "rejected"
    )


def test_changing_a_local_queues_cluster_queue_is_rejected(crds):
    """``LQ_TEST#L50``."""
    assert update(crds, local_queue("foo"), local_queue("bar")) == "rejected"
    assert update(crds, local_queue("foo"), local_queue("foo")) == "ok"
