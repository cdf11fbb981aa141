"""GANG701: a gang's pods must end up with a gpufleet.dev/gang label, set by hand or by the admission controller."""

from __future__ import annotations

import dataclasses

import pytest

from gpufleet.kubetypes.vocab import GANG_LABEL
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules import builders as b
from tests.rules.helpers import FLEET, paths

CODE = "GANG701"
STAMPING = CheckContext(fleet=dataclasses.replace(FLEET, gang_label=GANG_LABEL))
NOT_STAMPING = CheckContext(fleet=FLEET)  # a context without gangLabel: observability disabled
LABEL = "spec.template.metadata.labels[gpufleet.dev/gang]"


def unnamed(obj: dict) -> dict:
    obj["metadata"]["generateName"] = obj["metadata"].pop("name") + "-"
    return obj


def labelled(obj: dict) -> dict:
    obj["spec"]["template"].setdefault("metadata", {}).setdefault("labels", {})[GANG_LABEL] = "run-1"
    return obj


@pytest.mark.parametrize("ctx", [CheckContext(), STAMPING], ids=["no fleet", "stamping fleet"])
def test_a_gang_with_only_generate_name_and_no_label_is_flagged(ctx):
    findings = engine.check_objects((unnamed(b.batch_job()),), ctx, select=[CODE])
    assert [(f.path, f.object_name) for f in findings] == [(LABEL, "job-")]
    assert "generateName" in findings[0].message


@pytest.mark.parametrize(
    "obj, expected",
    [
        (b.batch_job(namespace="research"), []),  # the controller stamps it
        (b.batch_job(namespace="scratch"), [LABEL]),  # no team: the controller leaves it alone
        (labelled(b.batch_job(namespace="scratch")), []),
        (b.batch_job(namespace="scratch", parallelism=1), []),  # not a gang
    ],
)
def test_with_a_stamping_fleet_only_namespaces_outside_the_teams_are_flagged(obj, expected):
    assert paths(CODE, obj, STAMPING) == expected


@pytest.mark.parametrize(
    "obj",
    [b.batch_job(namespace="research"), b.batch_job(namespace="scratch"), unnamed(b.batch_job())],
    ids=["team namespace", "other namespace", "generateName"],
)
def test_with_observability_disabled_in_the_fleet_nothing_is_flagged(obj):
    assert engine.check_objects((obj,), NOT_STAMPING, select=[CODE]) == []


def test_without_a_fleet_a_named_gang_is_not_flagged():
    assert paths(CODE, b.batch_job(namespace="scratch")) == []


def test_pod_group_pods_are_not_checked():
    assert paths(CODE, b.pod(namespace="scratch", group="g", total=4), NOT_STAMPING) == []


def test_a_gang_kind_the_controller_is_not_sent_is_flagged_even_in_a_team_namespace():
    statefulset = b.deployment(group="g", kind="StatefulSet")  # a gang through its pod-group key
    assert paths(CODE, statefulset, STAMPING) == [LABEL]
    assert paths(CODE, b.batch_job(), STAMPING) == []
