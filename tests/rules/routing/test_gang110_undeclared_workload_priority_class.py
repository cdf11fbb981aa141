"""GANG110: a Kueue WorkloadPriorityClass the fleet model does not render leaves the job suspended."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from tests.rules import builders as b
from tests.rules.helpers import WITH_FLEET, paths

CODE = "GANG110"
LABEL = "metadata.labels[kueue.x-k8s.io/priority-class]"


def labelled(priority_class):
    return b.jobset(
        namespace="vision",
        labels={"kueue.x-k8s.io/queue-name": "vision", "kueue.x-k8s.io/priority-class": priority_class},
    )


@pytest.mark.parametrize("priority_class, expected", [("gang-high", []), ("gang-hihg", [LABEL]), ("", [])])
def test_with_a_fleet_the_priority_class_must_be_one_the_model_renders(priority_class, expected):
    assert paths(CODE, labelled(priority_class), WITH_FLEET) == expected


def test_without_a_fleet_nothing_is_known_and_nothing_is_said():
    assert paths(CODE, labelled("gang-hihg")) == []


def test_the_message_lists_the_models_priority_classes():
    [finding] = engine.check_object(labelled("gang-hihg"), WITH_FLEET, select=[CODE])
    assert "gang-high" in finding.fix and "suspended" in finding.message
