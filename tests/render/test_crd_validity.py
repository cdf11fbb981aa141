"""Every rendered custom resource validates against the real CRDs, CEL rules included, with no pruned field."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from gpufleet.crdschema import CrdSet
from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.render.kueue import render_cluster_queues
from tests.render.builders import cohort, fleet, pool, quota, team

STACKS = Path(__file__).resolve().parents[2] / "stacks"
CORE_KINDS = {"PriorityClass", "Namespace", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}


@lru_cache(maxsize=2)
def _crds(directory: Path) -> CrdSet:
    return CrdSet.load(directory)


def _fleets():
    yield "dev", load_model(STACKS / "dev.fleet.yaml")
    yield "prod", load_model(STACKS / "prod.fleet.yaml")
    yield "every-pool-mode", load_model(STACKS / "mixed.fleet.yaml")
    yield (
        "mixed",
        fleet(
            pools=[
                pool(
                    "h100",
                    topologyLevels=["topology.gpufleet.dev/rack", "kubernetes.io/hostname"],
                    tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                ),
                pool("l4", allocatable={"nvidia.com/gpu": 4, "cpu": 48, "memory": "192Gi", "rdma/ib": 2}),
                pool("a100", system="volcano"),
            ],
            cohorts=[
                cohort("org", quota={"h100": quota(8), "a100": quota(8)}),
                cohort("ml", parent="org", quota={"l4": quota(4, 4, 2)}),
            ],
            teams=[
                team(
                    "a",
                    {"h100": quota(16, 8, 4), "l4": quota(4), "a100": quota(8, 8, 4)},
                    namespaces=["a", "a-exp"],
                    volcanoNamespaces=["a-exp"],
                ),
                team("b", {"h100": quota(8)}, cohort=None, stopPolicy="Hold"),
                team("c", {"a100": quota(8)}, lifecycle="draining"),
            ],
            priorityClasses=[{"name": "gang", "value": 1000, "description": "gangs"}],
        ),
    )


CASES = list(_fleets())


@pytest.mark.parametrize("name, a_fleet", CASES, ids=[c[0] for c in CASES])
def test_every_rendered_custom_resource_is_valid_and_loses_no_field(crds_dir, name, a_fleet):
    crds = _crds(crds_dir)
    problems = []
    for obj in render_all(a_fleet).objects:
        if obj.manifest["kind"] in CORE_KINDS:
            continue
        assert crds.knows(obj.manifest), f"{obj.key}: no CRD serves {obj.manifest['apiVersion']} {obj.manifest['kind']}"
        problems += [
            f"{obj.key}: {issue.render()}" for issue in crds.validate(obj.manifest) + crds.pruned_fields(obj.manifest)
        ]
    assert not problems, "\n".join(problems)


def test_the_crd_check_catches_a_borrowing_limit_without_a_cohort(crds_dir):
    crds = _crds(crds_dir)
    cq = render_cluster_queues(fleet(teams=[team("a", {"h100": quota(8, 4)})]))[0]
    del cq["spec"]["cohortName"]
    assert any("cohort" in issue.message for issue in crds.validate(cq))
