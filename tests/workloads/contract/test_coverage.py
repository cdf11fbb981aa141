"""Every workload kind gpufleet reads has a contract reader (none is silently treated as safe)."""

from __future__ import annotations

import pytest

from gpufleet.workloads import WORKLOAD_KINDS
from gpufleet.workloads.contract import registry

OPERATOR_GROUPS = frozenset(
    {"jobset.x-k8s.io", "leaderworkerset.x-k8s.io", "kubeflow.org", "trainer.kubeflow.org", "ray.io"}
)
"""The kinds the operator readers (JobSet, LWS, MPI, Trainer, training-operator, KubeRay) own."""


def test_every_built_in_and_engine_kind_has_a_reader():
    mine = {k for k in WORKLOAD_KINDS if k[0] not in OPERATOR_GROUPS}
    missing = sorted(mine - set(registry.known_kinds()))
    assert not missing, f"no contract reader for {missing}"


def test_every_workload_kind_has_a_reader():
    known = registry.known_kinds()
    if ("jobset.x-k8s.io", "JobSet") not in known:
        pytest.skip("operator readers not merged")
    missing = sorted(set(WORKLOAD_KINDS) - set(known))
    assert not missing, f"no contract reader for {missing}"


def test_a_kind_without_reader_is_unknown_and_named():
    found = registry.read({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "x"}})
    assert not found.known and "Gadget" in found.notes[0]


@pytest.mark.parametrize("key, source", sorted(registry.known_kinds().items()))
def test_each_reader_cites_an_upstream_tag(key, source):
    assert any(ch.isdigit() for ch in source), f"{key}: {source}"
