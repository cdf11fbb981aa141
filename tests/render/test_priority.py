"""PriorityClasses (scheduling.k8s.io/v1): not a CRD, so their fields are checked here."""

from __future__ import annotations

from gpufleet.render.priority import render_priority_classes
from tests.render.builders import fleet

# The fields of scheduling.k8s.io/v1 PriorityClass (k8s.io/api/scheduling/v1 types.go).
PRIORITY_CLASS_FIELDS = {"apiVersion", "kind", "metadata", "value", "globalDefault", "description", "preemptionPolicy"}


def test_a_priority_class_carries_value_policy_default_flag_and_description():
    f = fleet(
        priorityClasses=[
            {
                "name": "gang",
                "value": 1000,
                "description": "gangs",
                "preemptionPolicy": "PreemptLowerPriority",
                "globalDefault": True,
            }
        ],
        validate=False,
    )  # validation rejects it; rendering stays faithful
    [pc] = render_priority_classes(f)
    assert (pc["apiVersion"], pc["kind"]) == ("scheduling.k8s.io/v1", "PriorityClass")
    assert (pc["value"], pc["preemptionPolicy"], pc["globalDefault"], pc["description"]) == (
        1000,
        "PreemptLowerPriority",
        True,
        "gangs",
    )


def test_gang_priority_classes_default_to_never_preempting_single_pods():
    [pc] = render_priority_classes(fleet(priorityClasses=[{"name": "gang", "value": 10}]))
    assert pc["preemptionPolicy"] == "Never" and "description" not in pc
    assert "globalDefault" not in pc  # false is the API's default: not stored, so not applied (render/priority.py)


def test_priority_classes_use_only_the_api_fields():
    f = fleet(priorityClasses=[{"name": "gang", "value": 10, "description": "d"}])
    assert all(set(pc) <= PRIORITY_CLASS_FIELDS for pc in render_priority_classes(f))
