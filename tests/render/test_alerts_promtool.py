"""The rendered gang alerts, checked and unit-tested by Prometheus' promtool (not by hand-written PromQL checks).

Every case renders the real ``dev`` stack's rules, writes input series the way
kube-state-metrics and the step reporter name them, and asks ``promtool test rules``
whether the alert fires (with its exact labels and annotations) or stays quiet.
Times come from the model (the pool's startup budget, the stall window), never
hard-coded. Skips with a reason when promtool is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpufleet.model import load_model
from gpufleet.render.alerts import render_rule_file
from gpufleet.render.files import rule_file_text
from tests.render import promtool
from tests.render.promtool import Series, alert, alert_case, find_rule

ROOT = Path(__file__).resolve().parents[2]
FLEET = load_model(ROOT / "stacks" / "dev.fleet.yaml")
RULES = render_rule_file(FLEET)
TEAM, NS, POOL = "alpha", "alpha", "l4"
FOR_MIN = -(-FLEET.observability.alert_for // 60)
BUDGET_MIN = -(-FLEET.startup_budget(FLEET.pool(POOL)) // 60)  # GangPartiallyRunning holds this long
FIRST_STEP_MIN = BUDGET_MIN + FOR_MIN  # GangNoFirstStep: past the budget, then held for alertFor
STALL_MIN = -(-FLEET.observability.stall_window // 60) + FOR_MIN
SAMPLES = 3 * max(FIRST_STEP_MIN, STALL_MIN) + 20


def _rule(name: str, team: str = TEAM, pool: str = POOL) -> dict:
    return find_rule(RULES, name, team, pool)


def _case(series: Series, name: str, minute: int, fires: bool, gang: str = "g") -> dict:
    return alert_case(_rule(name), series, minute, [(NS, gang)] if fires else [])


def _running_gang(pods: int = 2) -> Series:
    series = Series().node("n1", POOL, SAMPLES)
    for i in range(pods):
        series.pod(NS, "g", f"g-{i}", "Running", SAMPLES, node="n1")
    return series


def _check(tmp_path: Path, *cases: dict) -> None:
    result = promtool.test_rules(tmp_path, RULES, list(cases))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_promtool_check_rules_accepts_the_rendered_rule_file(tmp_path, stack):
    path = tmp_path / "rules.yaml"
    path.write_text(rule_file_text(load_model(ROOT / "stacks" / f"{stack}.fleet.yaml")), encoding="utf-8")
    result = promtool.run("check", "rules", str(path))
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_running_gang_without_a_step_past_its_budget_fires_gang_no_first_step(tmp_path):
    _check(tmp_path, _case(_running_gang(), "GangNoFirstStep", FIRST_STEP_MIN + 2, fires=True))


@pytest.mark.parametrize("minute", [BUDGET_MIN - 1, FIRST_STEP_MIN - 1])
def test_a_running_gang_inside_its_budget_or_its_hold_stays_quiet(tmp_path, minute):
    _check(tmp_path, _case(_running_gang(), "GangNoFirstStep", minute, fires=False))


def test_a_gang_that_reached_step_one_stays_quiet(tmp_path):
    series = _running_gang().steps(NS, "g", "g-0", f"0x3 1x{SAMPLES}", f"0x3 180x{SAMPLES}")
    _check(tmp_path, _case(series, "GangNoFirstStep", FIRST_STEP_MIN + 5, fires=False))


def test_a_step_zero_is_not_a_first_step(tmp_path):
    series = _running_gang().steps(NS, "g", "g-0", f"0x{SAMPLES}", f"0x{SAMPLES}")
    _check(tmp_path, _case(series, "GangNoFirstStep", FIRST_STEP_MIN + 2, fires=True))


@pytest.mark.parametrize("name", ["GangNoFirstStep", "GangPartiallyRunning", "GangStepStalled"])
def test_a_pending_only_gang_under_contention_stays_quiet(tmp_path, name):
    series = Series().node("n1", POOL, SAMPLES)
    for i in range(4):
        series.pod(NS, "g", f"g-{i}", "Pending", SAMPLES)
    _check(tmp_path, _case(series, name, 3 * FIRST_STEP_MIN, fires=False))


def test_a_partially_running_gang_past_its_budget_fires_gang_partially_running(tmp_path):
    series = _running_gang(3).pod(NS, "g", "g-3", "Pending", SAMPLES)
    _check(
        tmp_path,
        _case(series, "GangPartiallyRunning", BUDGET_MIN + 3, fires=True),
        _case(series, "GangNoFirstStep", FIRST_STEP_MIN + 3, fires=False),
    )


def test_a_partially_running_gang_inside_its_budget_stays_quiet(tmp_path):
    series = _running_gang(3).pod(NS, "g", "g-3", "Pending", SAMPLES)
    _check(tmp_path, _case(series, "GangPartiallyRunning", BUDGET_MIN - 2, fires=False))


def test_a_gang_whose_steps_stop_past_the_stall_window_fires_gang_step_stalled(tmp_path):
    series = _running_gang().steps(NS, "g", "g-0", f"1+1x10 11x{SAMPLES}", f"60+60x10 660x{SAMPLES}")
    _check(tmp_path, _case(series, "GangStepStalled", 11 + STALL_MIN + 2, fires=True))


def test_a_gang_that_never_stepped_is_not_stalled_but_has_no_first_step(tmp_path):
    series = _running_gang().steps(NS, "g", "g-0", f"0x{SAMPLES}", f"0x{SAMPLES}")
    minute = max(FIRST_STEP_MIN, STALL_MIN) + 2
    _check(
        tmp_path,
        _case(series, "GangStepStalled", minute, fires=False),
        _case(series, "GangNoFirstStep", minute, fires=True),
    )


def test_a_gang_that_keeps_stepping_stays_quiet(tmp_path):
    series = _running_gang().steps(NS, "g", "g-0", f"1+1x{SAMPLES}", f"60+60x{SAMPLES}")
    _check(
        tmp_path,
        _case(series, "GangStepStalled", 11 + STALL_MIN + 2, fires=False),
        _case(series, "GangNoFirstStep", FIRST_STEP_MIN + 2, fires=False),
    )


def test_a_gang_on_another_teams_namespace_does_not_fire_for_this_team(tmp_path):
    series = Series().node("n1", POOL, SAMPLES).pod("beta", "g", "g-0", "Running", SAMPLES, node="n1")
    expected = alert(_rule("GangNoFirstStep", team="beta"), namespace="beta", gang="g")
    case = {
        "interval": "1m",
        "input_series": series.items,
        "alert_rule_test": [
            {"eval_time": f"{FIRST_STEP_MIN + 2}m", "alertname": "GangNoFirstStep", "exp_alerts": [expected]}
        ],
    }
    _check(tmp_path, case)
    assert expected["exp_labels"]["team"] == "beta"


def _evictions(reason: str, per_minute: float) -> Series:
    labels = {"cluster_queue": TEAM, "reason": reason, "underlying_cause": "", "priority_class": "", "replica_role": ""}
    return Series().add("kueue_evicted_workloads_total", labels, f"0+{per_minute:g}x{SAMPLES}")


def _storm_case(series: Series, fires: bool) -> dict:
    rule = _rule("KueuePodsReadyTimeoutStorm")
    expected = [{"exp_labels": rule["labels"], "exp_annotations": rule["annotations"]}] if fires else []
    minute = FLEET.observability.pods_ready_timeout_storm.window // 60 + 10
    return {
        "interval": "1m",
        "input_series": series.items,
        "alert_rule_test": [
            {"eval_time": f"{minute}m", "alertname": "KueuePodsReadyTimeoutStorm", "exp_alerts": expected}
        ],
    }


def test_pods_ready_timeout_evictions_above_the_model_rate_fire_the_storm_alert(tmp_path):
    rate = FLEET.observability.pods_ready_timeout_storm.evictions_per_minute
    _check(tmp_path, _storm_case(_evictions("PodsReadyTimeout", rate * 2), fires=True))


@pytest.mark.parametrize("reason, factor", [("PodsReadyTimeout", 0.5), ("Preempted", 10)])
def test_slow_or_other_evictions_do_not_fire_the_storm_alert(tmp_path, reason, factor):
    rate = FLEET.observability.pods_ready_timeout_storm.evictions_per_minute
    _check(tmp_path, _storm_case(_evictions(reason, rate * factor), fires=False))


def test_a_failing_expectation_makes_promtool_fail(tmp_path):
    """Guards the harness: promtool must reject a wrong expectation, or every quiet case above proves nothing."""
    result = promtool.test_rules(
        tmp_path, RULES, [_case(_running_gang(), "GangNoFirstStep", FIRST_STEP_MIN + 2, fires=False)]
    )
    assert result.returncode != 0
    assert "GangNoFirstStep" in result.stdout + result.stderr


def test_the_rule_file_text_is_the_rendered_rule_groups():
    assert yaml.safe_load(rule_file_text(FLEET)) == RULES
