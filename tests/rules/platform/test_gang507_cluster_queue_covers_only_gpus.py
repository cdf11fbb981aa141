"""GANG507: a ClusterQueue covering GPUs must cover cpu and memory too, unless Kueue excludes them."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from tests.rules.helpers import paths

CODE = "GANG507"


def cluster_queue(*covered: str) -> dict:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {"resourceGroups": [{"coveredResources": list(covered), "flavors": []}]},
    }


def configuration(*prefixes: str) -> dict:
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "metadata": {"name": "kueue"},
        "resources": {"excludeResourcePrefixes": list(prefixes)},
    }


@pytest.mark.parametrize(
    "prefixes, expected",
    [
        ((), ["spec.resourceGroups"]),
        (("cpu", "memory"), []),
        (("cpu",), ["spec.resourceGroups"]),
        (("c", "mem"), []),  # prefixes, as Kueue matches them
    ],
)
def test_kueues_exclude_resource_prefixes_in_the_same_run_lift_the_warning(prefixes, expected):
    objects = (configuration(*prefixes),) if prefixes else ()
    assert paths(CODE, cluster_queue("nvidia.com/gpu"), objects=objects) == expected


def test_the_message_names_what_is_missing_and_the_alternative():
    [finding] = engine.check_object(cluster_queue("cpu", "nvidia.com/gpu"), select=[CODE])
    assert "not memory" in finding.message and "excludeResourcePrefixes" in finding.fix
