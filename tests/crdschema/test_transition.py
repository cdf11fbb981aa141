"""CEL transition rules (``oldSelf``) run on update where a node exists in both objects."""

from __future__ import annotations

import copy

import pytest

from gpufleet.crdschema import CrdSet
from tests.crdschema.builders import kueue_crds, kueue_object, local_queue

pytestmark = pytest.mark.shared  # Kueue's real CRDs from ../shared (skips without them)


@pytest.fixture(scope="module")
def kueue() -> CrdSet:
    return kueue_crds()


def topology(*labels: str) -> dict:
    return kueue_object("Topology", "h100", {"levels": [{"nodeLabel": label} for label in labels]})


def flavor(**spec) -> dict:
    return kueue_object("ResourceFlavor", "h100", spec)


def test_changing_topology_levels_breaks_the_immutability_rule(kueue):
    issues = kueue.validate_update(topology("rack", "kubernetes.io/hostname"), topology("kubernetes.io/hostname"))
    assert [(i.path, i.message) for i in issues] == [("spec.levels", "field is immutable")]


def test_an_unchanged_object_passes_every_transition_rule(kueue):
    assert kueue.validate_update(topology("rack"), topology("rack")) == []


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            flavor(nodeLabels={"a": "1"}, topologyName="h100"),
            flavor(nodeLabels={"a": "2"}, topologyName="h100"),
            "nodeLabels are immutable",
        ),
        (flavor(topologyName="h100"), flavor(topologyName="other"), "topologyName is immutable"),
        (flavor(topologyName="h100"), flavor(), "topologyName is immutable"),
    ],
)
def test_a_topology_aware_flavor_keeps_its_labels_and_topology(kueue, old, new, message):
    assert any(message in i.message for i in kueue.validate_update(old, new))


def test_a_flavor_without_topology_may_change_its_labels_and_gain_a_topology(kueue):
    assert (
        kueue.validate_update(flavor(nodeLabels={"a": "1"}), flavor(nodeLabels={"a": "2"}, topologyName="h100")) == []
    )


def test_a_local_queue_keeps_its_cluster_queue(kueue):
    assert [i.path for i in kueue.validate_update(local_queue("a"), local_queue("b"))] == ["spec.clusterQueue"]
    assert kueue.validate_update(local_queue("a"), copy.deepcopy(local_queue("a"))) == []
