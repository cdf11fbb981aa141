"""The gang-admission controller's certificate and availability alerts, unit-tested by promtool.

Each case renders the real ``prod`` stack's rule file and writes the series the way the
controller (scraped through its ServiceMonitor: ``job`` = the Service, ``namespace``),
kube-state-metrics (``honorLabels``) and the API server name them. Thresholds come from the
model. Skips with a reason when promtool is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.model import load_model
from gpufleet.render.alerts import ALERTS, render_rule_file
from gpufleet.render.controller.alerts import GROUP
from gpufleet.render.controller.common import NAME
from gpufleet.render.controller.webhooks import webhook_names
from tests.render import promtool
from tests.render.promtool import Series, expand

ROOT = Path(__file__).resolve().parents[3]
FLEET = load_model(ROOT / "stacks" / "prod.fleet.yaml")
RULES = render_rule_file(FLEET)
NS = FLEET.controller.namespace
EXPIRY = FLEET.observability.certificate_expiry
DAY = 86400
MINUTES = 40
TARGET = {"job": NAME, "namespace": NS, "service": NAME, "endpoint": "https"}


def _rule(name: str, severity: str = "") -> dict:
    group = next(g for g in RULES["groups"] if g["name"] == GROUP)
    return next(
        r for r in group["rules"] if r["alert"] == name and (not severity or r["labels"]["severity"] == severity)
    )


def _case(series: Series, alert: str, minute: int, firing: list[dict]) -> dict:
    expected = [
        {
            "exp_labels": rule["labels"],
            "exp_annotations": {k: expand(v, rule["labels"]) for k, v in rule["annotations"].items()},
        }
        for rule in firing
    ]
    return {
        "interval": "1m",
        "input_series": series.items,
        "alert_rule_test": [{"eval_time": f"{minute}m", "alertname": alert, "exp_alerts": expected}],
    }


def _check(tmp_path: Path, case: dict) -> None:
    result = promtool.test_rules(tmp_path, RULES, [case])
    assert result.returncode == 0, result.stdout + result.stderr


def _pod(i: int) -> dict[str, str]:
    return {**TARGET, "instance": f"10.0.5.{i}:8443", "pod": f"{NAME}-{i}", "container": "webhook"}


def _certificate(expires_in_seconds: float, pods: int = 3) -> Series:
    """Each replica serves the same certificate; promtool starts at Unix time 0, so not-after = seconds left at minute 0."""
    series = Series()
    for i in range(pods):
        series.add("gpufleet_tls_certificate_not_after_seconds", _pod(i), f"{expires_in_seconds:.0f}x{MINUTES}")
    return series


def test_every_controller_alert_is_in_the_rule_file_and_has_a_runbook():
    group = next(g for g in RULES["groups"] if g["name"] == GROUP)
    names = {r["alert"] for r in group["rules"]}
    assert names and names <= set(ALERTS)
    for rule in group["rules"]:
        assert rule["annotations"]["runbook_url"].endswith(f"/{rule['alert']}.md")
        assert (ROOT / "docs" / "runbooks" / f"{rule['alert']}.md").is_file()


@pytest.mark.parametrize(
    "left, severities",
    [
        (EXPIRY.warning + DAY, []),
        (EXPIRY.warning - DAY, ["warning"]),
        (EXPIRY.critical - DAY, ["critical"]),
        (60, ["critical"]),  # expired at minute 1, long before the evaluation
    ],
)
def test_the_certificate_alert_warns_then_pages_as_expiry_nears(tmp_path, left, severities):
    firing = [_rule("GangAdmissionCertificateExpiring", s) for s in severities]
    _check(tmp_path, _case(_certificate(left), "GangAdmissionCertificateExpiring", 15, firing))


def test_a_certificate_not_loaded_yet_reads_zero_and_stays_quiet(tmp_path):
    _check(tmp_path, _case(_certificate(0), "GangAdmissionCertificateExpiring", 15, []))


def test_the_certificate_alert_holds_ten_minutes_before_firing(tmp_path):
    _check(tmp_path, _case(_certificate(EXPIRY.critical - DAY), "GangAdmissionCertificateExpiring", 5, []))


def _ksm(available: str, desired: int = 3) -> Series:
    labels = {"job": "kube-state-metrics", "instance": "10.0.9.1:8080", "namespace": NS, "deployment": NAME}
    series = Series().add("kube_deployment_status_replicas_available", labels, available)
    return series.add("kube_deployment_spec_replicas", labels, f"{desired}x{MINUTES}")


def _up(*values: str) -> Series:
    series = Series()
    for i, value in enumerate(values):
        series.add("up", _pod(i), value)
    return series


def _join(*parts: Series) -> Series:
    return Series([item for part in parts for item in part.items])


@pytest.mark.parametrize(
    "series, fires",
    [
        (_join(_ksm(f"3x5 0x{MINUTES}"), _up(f"1x{MINUTES}")), True),  # no replica available
        (
            _join(_ksm(f"3x{MINUTES}"), _up(*[f"1x5 0x{MINUTES}"] * 3)),
            True,
        ),  # running but none can be scraped (TLS, network)
        (_join(_ksm(f"3x{MINUTES}"), _up(f"1x{MINUTES}", f"0x{MINUTES}", f"1x{MINUTES}")), False),  # one of three down
        (_join(_ksm(f"3x{MINUTES}"), _up(*[f"1x{MINUTES}"] * 3)), False),
    ],
)
def test_the_controller_down_alert_fires_only_when_no_replica_answers(tmp_path, series, fires):
    rule = _rule("GangAdmissionControllerDown")
    _check(tmp_path, _case(series, rule["alert"], 15, [rule] if fires else []))


@pytest.mark.parametrize(
    "available, minute, fires",
    [
        (f"3x5 2x{MINUTES}", 25, True),  # one replica short for 20 minutes
        (f"3x5 2x{MINUTES}", 15, False),  # a rolling update's dip: shorter than the hold
        (f"3x{MINUTES}", 25, False),
        (f"3x5 0x{MINUTES}", 25, False),  # none at all is GangAdmissionControllerDown's
    ],
)
def test_the_degraded_alert_waits_out_a_rolling_update(tmp_path, available, minute, fires):
    rule = _rule("GangAdmissionControllerDegraded")
    _check(tmp_path, _case(_ksm(available), rule["alert"], minute, [rule] if fires else []))


def _rejections(error_type: str, code: str, per_minute: int) -> Series:
    labels = {
        "job": "apiserver",
        "instance": "10.0.0.1:6443",
        "name": webhook_names()[0],
        "type": "validating",
        "operation": "CREATE",
        "error_type": error_type,
        "rejection_code": code,
    }
    return Series().add("apiserver_admission_webhook_rejection_count", labels, f"0+{per_minute}x{MINUTES}")


def _own(result: str, per_minute: int) -> Series:
    return Series().add(
        "gpufleet_admission_requests_total",
        {**_pod(0), "endpoint": "validate", "result": result},
        f"0+{per_minute}x{MINUTES}",
    )


@pytest.mark.parametrize(
    "series, fires",
    [
        (_rejections("calling_webhook_error", "0", 5), True),  # unreachable, TLS refused, timed out
        (_rejections("apiserver_internal_error", "0", 5), True),
        (_rejections("no_error", "500", 5), True),  # the controller answered with an error
        (_own("error", 5), True),
        (_own("unavailable", 5), True),
        (_rejections("no_error", "400", 50), False),  # gang rules denying bad gangs: the controller working
        (_own("denied", 50), False),
    ],
)
def test_the_failing_alert_fires_on_errors_and_never_on_ordinary_denials(tmp_path, series, fires):
    rule = _rule("GangAdmissionWebhookFailing")
    _check(tmp_path, _case(series, rule["alert"], 20, [rule] if fires else []))
