"""GANG501-GANG503: waitForPodsReady off, too short, or requeueing forever."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext, Severity
from gpufleet.settings import rule_options
from tests.rules import fleets
from tests.rules import kueue_configs as k

BOUNDED = {"requeuingStrategy": {"backoffLimitCount": 3}}


def paths(obj: dict, code: str, ctx: CheckContext = CheckContext()) -> list[str]:
    return [f.path for f in engine.check_object(obj, ctx, select=[code])]


@pytest.mark.parametrize(
    "config, expected",
    [
        (k.configuration("v1beta2"), []),
        (k.configuration("v1beta1"), ["waitForPodsReady"]),
        (k.configuration("v1beta1", waitForPodsReady={"enable": False}), ["waitForPodsReady.enable"]),
        (k.configuration("v1beta1", waitForPodsReady={"timeout": "10m"}), ["waitForPodsReady.enable"]),
        (
            k.configuration("v1beta2", featureGates={"DisableWaitForPodsReady": True}),
            ["featureGates.DisableWaitForPodsReady"],
        ),
    ],
)
def test_gang501_flags_wait_for_pods_ready_off(config, expected):
    assert paths(config, "GANG501") == expected


def test_gang501_reports_an_embedded_config_that_is_not_yaml():
    cm = k.config_map(k.configuration())
    cm["data"]["controller_manager_config.yaml"] = "a: [b"
    assert paths(cm, "GANG501") == ["data[controller_manager_config.yaml]"]


@pytest.mark.parametrize(
    "block, expected",
    [
        ({"timeout": "15m"}, []),
        ({"timeout": "9m59s"}, ["waitForPodsReady.timeout"]),
        ({"timeout": "0s"}, []),  # zero is defaulted to 30m
        ({"timeout": "15m", "recoveryTimeout": "2m"}, []),  # recovery is not held to the cold-start floor
        ({"timeout": "15m", "recoveryTimeout": "later"}, ["waitForPodsReady.recoveryTimeout"]),
        ({"timeout": "soon"}, ["waitForPodsReady.timeout"]),
    ],
)
def test_gang502_compares_timeouts_with_the_default_floor_of_ten_minutes(block, expected):
    assert paths(k.configuration(waitForPodsReady={**block, **BOUNDED}), "GANG502") == expected


@pytest.mark.parametrize(
    "ctx, flagged",
    [
        (CheckContext(), False),  # 600 s default
        (CheckContext(options=rule_options({"GANG502": {"floorSeconds": 1200}})), True),  # rule option wins
        (fleets.ctx(), False),
    ],
)
def test_gang502_takes_its_floor_from_the_option_then_the_fleet_then_600s(ctx, flagged):
    config = k.configuration(waitForPodsReady={"timeout": "15m"})
    assert bool(paths(config, "GANG502", ctx)) is flagged


def test_gang502_uses_the_fleets_cold_start_floor():
    ctx = CheckContext(fleet=fleets.fleet(floor=3600))
    assert paths(k.configuration(waitForPodsReady={"timeout": "45m"}), "GANG502", ctx) == ["waitForPodsReady.timeout"]


@pytest.mark.parametrize(
    "budget, timeout, message",
    [
        (
            960,
            "15m",
            "is below pools[1] ('l4') coldStartBudget 16m0s",
        ),  # the slow pool's budget, as the model check says
        (480, "9m", "is below the cold-start floor of 10m0s"),  # the floor is the larger requirement
        (960, "16m", None),
    ],
)
def test_gang502_also_holds_the_timeout_to_every_pools_cold_start_budget(budget, timeout, message):
    slow = {**fleets.pool("l4", 16, 4), "coldStartBudgetSeconds": budget}
    ctx = CheckContext(fleet=fleets.fleet(fleets.pool("h100", 4, 8), slow))
    found = engine.check_object(k.configuration(waitForPodsReady={"timeout": timeout}), ctx, select=["GANG502"])
    assert [f.message.split(": ")[0].split(timeout + " ")[1] for f in found] == ([message] if message else [])


def test_gang502_applies_the_v1beta2_default_of_thirty_minutes_when_the_block_is_absent():
    ctx = CheckContext(options=rule_options({"GANG502": {"floorSeconds": 1801}}))
    assert paths(k.configuration("v1beta2"), "GANG502", ctx) == ["waitForPodsReady"]
    assert paths(k.configuration("v1beta2"), "GANG502") == []


@pytest.mark.parametrize(
    "config, expected",
    [
        (k.configuration(waitForPodsReady={"timeout": "15m", **BOUNDED}), []),
        (k.configuration(waitForPodsReady={"timeout": "15m", "requeuingStrategy": {"backoffLimitCount": 0}}), []),
        (k.configuration(), ["waitForPodsReady"]),
        (
            k.configuration(waitForPodsReady={"requeuingStrategy": {"timestamp": "Eviction"}}),
            ["waitForPodsReady.requeuingStrategy"],
        ),
        (k.configuration("v1beta1"), []),  # off: GANG501's business
    ],
)
def test_gang503_warns_when_requeueing_is_unbounded(config, expected):
    found = engine.check_object(config, select=["GANG503"])
    assert [f.path for f in found] == expected
    assert all(f.severity is Severity.WARNING and not f.blocking for f in found)
