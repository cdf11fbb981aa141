"""The gang alerts on series shaped exactly like the real exporters' (issue 20), judged by promtool.

Each case feeds the rendered rules what kube-state-metrics v2.20.0 would serve
(:mod:`tests.render.ksm`: only the allowlisted labels the model renders, terminal pods,
restarted containers, two replicas that disagree), what the step reporter serves
across an in-place restart or a scrape outage, and what Kueue v0.19.2 serves (an
eviction counter created at its first increment), then asks whether an alert fires or
stays quiet. Times come from the model. Skips with a reason when promtool is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.kubetypes.vocab import GANG_LABEL
from gpufleet.model import load_model
from gpufleet.render.alerts import render_rule_file
from gpufleet.render.kube_state_metrics import allowlist_entries
from tests.render import ksm, promtool
from tests.render.promtool import Series, alert_case, find_rule, gang_pod

ROOT = Path(__file__).resolve().parents[2]
STACKS = {name: load_model(ROOT / "stacks" / f"{name}.fleet.yaml") for name in ("dev", "prod")}
DEV = STACKS["dev"]
RULES = render_rule_file(DEV)
TEAM, NS, POOL = "alpha", "alpha", "l4"
FOR_MIN = -(-DEV.observability.alert_for // 60)
BUDGET_MIN = -(-DEV.startup_budget(DEV.pool(POOL)) // 60)
FIRST_STEP_MIN = BUDGET_MIN + FOR_MIN
STALL_MIN = -(-DEV.observability.stall_window // 60) + FOR_MIN
SAMPLES = 3 * max(FIRST_STEP_MIN, STALL_MIN) + 30


def _check(tmp_path: Path, *cases: dict, rules: dict = RULES) -> None:
    result = promtool.test_rules(tmp_path, rules, list(cases))
    assert result.returncode == 0, result.stdout + result.stderr


def _rule(name: str, rules: dict = RULES, team: str = TEAM, pool: str = POOL) -> dict:
    return find_rule(rules, name, team, pool)


def _stuck(series: Series, gang: str = "g", pods: int = 2, replica: int = 0) -> Series:
    for i in range(pods):
        series.pod(NS, gang, f"{gang}-{i}", "Running", SAMPLES, node="n1", replica=replica)
    return series


# 1. The allowlist the model renders is enough: the pool join reads one label.


def _team_on(fleet, pool: str) -> str:
    return next(t.name for t in fleet.teams if pool in t.quota and t.lifecycle != "retired")


@pytest.mark.parametrize("stack, pool", [("dev", "t4"), ("prod", "h100"), ("prod", "a100")])
def test_a_stuck_gang_fires_when_kube_state_metrics_exports_exactly_the_rendered_allowlist(tmp_path, stack, pool):
    fleet = STACKS[stack]
    rules = render_rule_file(fleet)
    team = next(t for t in fleet.teams if t.name == _team_on(fleet, pool))
    ns = team.namespaces[0]
    node = ksm.Node(
        "n1", {**fleet.pool(pool).node_labels, "kubernetes.io/hostname": "n1"}
    )  # the node has all its labels
    series = Series(allow=ksm.parse_allowlist(allowlist_entries(fleet))).ksm([node], SAMPLES)
    series.ksm([gang_pod(ns, "g", f"g-{i}", "Running", "n1") for i in range(2)], SAMPLES)
    minute = -(-fleet.startup_budget(fleet.pool(pool)) // 60) + FOR_MIN + 2
    rule = find_rule(rules, "GangNoFirstStep", team.name, pool)
    _check(tmp_path, alert_case(rule, series, minute, [(ns, "g")]), rules=rules)


# 2. Terminal pods neither silence nor count.


@pytest.mark.parametrize(
    "left_over",
    [
        gang_pod(NS, "g", "g-0-retried", "Failed", "n1"),  # a Job retry's failed pod
        gang_pod(NS, "g", "g-initializer-0", "Succeeded", "n1"),  # a finished initializer that carries the label
    ],
)
def test_a_terminal_pod_left_in_the_gang_does_not_silence_gang_no_first_step(tmp_path, left_over):
    series = _stuck(Series().node("n1", POOL, SAMPLES)).ksm([left_over], SAMPLES)
    _check(tmp_path, alert_case(_rule("GangNoFirstStep"), series, FIRST_STEP_MIN + 2, [(NS, "g")]))


def test_a_gang_with_a_pod_in_unknown_phase_is_not_called_fully_running(tmp_path):
    series = _stuck(Series().node("n1", POOL, SAMPLES)).ksm([gang_pod(NS, "g", "g-9", "Unknown", "n1")], SAMPLES)
    _check(tmp_path, alert_case(_rule("GangNoFirstStep"), series, FIRST_STEP_MIN + 2))


def test_a_gang_that_stepped_and_finished_is_not_stalled(tmp_path):
    done = [gang_pod(NS, "g", f"g-{i}", "Succeeded", "n1") for i in range(2)]
    series = Series().node("n1", POOL, SAMPLES).ksm(done, SAMPLES)
    series.steps(NS, "g", "g-0", "1+1x5 stale", "60+60x5 stale")
    _check(tmp_path, alert_case(_rule("GangStepStalled"), series, STALL_MIN + 10))


# 3. A gang that stepped stays "stepped"; the budget restarts with a container.


def test_an_in_place_restart_that_serves_step_zero_does_not_page_gang_no_first_step(tmp_path):
    rest = SAMPLES - 11
    series = _stuck(Series().node("n1", POOL, SAMPLES)).steps(
        NS, "g", "g-0", f"1+1x9 stale 0x{rest}", f"60+60x9 stale 0x{rest}"
    )  # torchrun restarts the worker: 0, no step yet
    _check(tmp_path, alert_case(_rule("GangNoFirstStep"), series, 11 + FIRST_STEP_MIN + 2))


def test_a_step_reporter_outage_pages_gang_step_stalled_not_gang_no_first_step(tmp_path):
    series = _stuck(Series().node("n1", POOL, SAMPLES)).steps(NS, "g", "g-0", "1+1x4 stale", "60+60x4 stale")
    _check(
        tmp_path,
        alert_case(_rule("GangNoFirstStep"), series, FIRST_STEP_MIN + 5),
        alert_case(_rule("GangStepStalled"), series, 5 + STALL_MIN + 2, [(NS, "g")]),
    )


def _restarted_container_gang(restart_minute: int) -> Series:
    def pod(i: int, minute: int):
        restarted = i == 0 and minute >= restart_minute  # rank 0's container crashed and was restarted in its pod
        return gang_pod(NS, "g", f"g-{i}", "Running", "n1", 0, int(restarted), restart_minute * 60 if restarted else 0)

    frames = [[ksm.Node("n1", {"gpufleet.dev/pool": POOL}), pod(0, m), pod(1, m)] for m in range(SAMPLES)]
    return Series().frames(frames)


def test_a_container_restart_restarts_the_startup_budget(tmp_path):
    restart = BUDGET_MIN - 2
    series = _restarted_container_gang(restart)
    _check(
        tmp_path,
        alert_case(_rule("GangNoFirstStep"), series, FIRST_STEP_MIN + 2),
        alert_case(_rule("GangNoFirstStep"), series, restart + FIRST_STEP_MIN + 2, [(NS, "g")]),
    )


# 5. Two unsharded kube-state-metrics replicas, disagreeing on another gang's pod.


def _two_replicas_disagreeing() -> Series:
    """Both replicas serve node n1; on pod beta/h-0 (another team's, just started) replica 0 still says Pending."""
    series = Series()
    for replica in (0, 1):
        series.ksm([ksm.Node("n1", {"gpufleet.dev/pool": POOL})], SAMPLES, replica)
    series.pod("beta", "h", "h-0", "Pending", SAMPLES, replica=0)
    return series.pod("beta", "h", "h-0", "Running", SAMPLES, node="n1", start=FIRST_STEP_MIN * 60, replica=1)


def test_two_replicas_disagreeing_on_a_pods_phase_do_not_silence_other_gangs(tmp_path):
    series = _two_replicas_disagreeing()
    for replica in (0, 1):
        _stuck(series, "g", replica=replica)
    _check(tmp_path, alert_case(_rule("GangNoFirstStep"), series, FIRST_STEP_MIN + 2, [(NS, "g")]))


def test_two_replicas_disagreeing_do_not_silence_gang_partially_running(tmp_path):
    series = _two_replicas_disagreeing()
    for replica in (0, 1):
        _stuck(series, "p", pods=3, replica=replica).pod(NS, "p", "p-3", "Pending", SAMPLES, replica=replica)
    _check(tmp_path, alert_case(_rule("GangPartiallyRunning"), series, BUDGET_MIN + 3, [(NS, "p")]))


# 6. Kueue creates each eviction series at its first increment.


def _kueue_series(first_minutes: list[int | None], value: int, seen_from: int = 0) -> Series:
    """One eviction series per ClusterQueue, appearing at its minute (None: from the start) with ``value``."""
    series = Series()
    for i, first in enumerate(first_minutes):
        labels = {
            "cluster_queue": f"cq-{i}",
            "reason": "PodsReadyTimeout",
            "underlying_cause": "",
            "priority_class": "",
            "replica_role": "standalone",
            "job": "kueue",
            "instance": "10.0.8.1:8443",
        }
        start = first or 0
        series.add("kueue_evicted_workloads_total", labels, " ".join(["_"] * start + [str(value)] * (SAMPLES - start)))
        status = {
            "cluster_queue": f"cq-{i}",
            "status": "active",
            "replica_role": "standalone",
            "job": "kueue",
            "instance": "10.0.8.1:8443",
        }
        series.add("kueue_cluster_queue_status", status, " ".join(["_"] * seen_from + ["1"] * (SAMPLES - seen_from)))
    return series


def _storm(series: Series, minute: int, fires: bool) -> dict:
    rule = _rule("KueuePodsReadyTimeoutStorm")
    case = alert_case(rule, series, minute)
    case["alert_rule_test"][0]["exp_alerts"] = (
        [{"exp_labels": rule["labels"], "exp_annotations": rule["annotations"]}] if fires else []
    )
    return case


def test_a_storm_of_first_evictions_across_many_cluster_queues_fires(tmp_path):
    storm = DEV.observability.pods_ready_timeout_storm
    window_min = storm.window // 60
    queues = int(storm.evictions_per_minute * window_min * 2)  # twice the threshold, one eviction each
    start = window_min + 11
    firsts = [start + i % 5 for i in range(queues)]  # spread over 5 minutes
    _check(tmp_path, _storm(_kueue_series(firsts, 1), start + 9, fires=True))


@pytest.mark.parametrize("minute", [5, 9, 25])
def test_a_fresh_prometheus_does_not_count_kueues_history_as_a_storm(tmp_path, minute):
    storm = DEV.observability.pods_ready_timeout_storm
    queues = int(storm.evictions_per_minute * storm.window // 60 * 2)
    _check(tmp_path, _storm(_kueue_series([None] * queues, 50), minute, fires=False))


def test_the_gang_label_is_the_one_the_allowlist_exports():
    assert f"pods=[{GANG_LABEL}]" in allowlist_entries(DEV)
