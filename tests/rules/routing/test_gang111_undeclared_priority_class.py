"""GANG111: pods naming a PriorityClass the model does not render are refused by the API server."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from tests.rules import builders as b
from tests.rules.helpers import WITH_FLEET, paths

CODE = "GANG111"


def job(priority_class: str | None) -> dict:
    out = b.batch_job("j", namespace="vision", labels={"kueue.x-k8s.io/queue-name": "vision"}, gpus=1)
    if priority_class:
        out["spec"]["template"]["spec"]["priorityClassName"] = priority_class
    return out


@pytest.mark.parametrize(
    "priority_class, expected",
    [
        ("gang-high", []),  # the model renders it
        ("gang-urgent", ["spec.template.spec.priorityClassName"]),
        ("system-cluster-critical", []),  # every cluster has it
        (None, []),  # no class: the cluster's default
    ],
)
def test_the_pods_priority_class_must_be_one_the_model_renders(priority_class, expected):
    assert paths(CODE, job(priority_class), WITH_FLEET) == expected


def test_a_volcano_jobs_class_reaches_pods_without_their_own():
    vc = b.volcano_job("vc", namespace="research")
    vc["spec"]["priorityClassName"] = "gang-urgent"
    assert paths(CODE, vc, WITH_FLEET) == ["spec.priorityClassName"]
    vc["spec"]["tasks"][0]["template"]["spec"]["priorityClassName"] = "gang-high"  # the template's own wins
    assert paths(CODE, vc, WITH_FLEET) == []


def test_without_a_fleet_nothing_is_known_and_nothing_is_said():
    assert paths(CODE, job("gang-urgent")) == []


def test_the_message_names_the_models_classes():
    [finding] = engine.check_object(job("gang-urgent"), WITH_FLEET, select=[CODE])
    assert "gang-high" in finding.fix and "refuses" in finding.message
