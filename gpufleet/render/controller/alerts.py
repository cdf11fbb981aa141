"""The gang-admission controller's own alerts: serving certificate expiry and availability.

Pure: model in, one Prometheus rule group out. Called by :mod:`gpufleet.render.alerts`
(the plain rule file ``gpufleet render`` writes) and :mod:`gpufleet.render.monitoring`
(the ``gpufleet-controller`` PrometheusRule), only when the controller is enabled. The
webhooks fail closed (``failurePolicy: Fail``), so a controller that cannot answer, or
whose certificate the API server no longer accepts, refuses every gang in the team namespaces.

Inputs (docs/observability.md, "The controller's alerts"):

- the controller's ``/metrics`` (``gpufleet/webhook/metrics.py``), scraped with the target
  labels the rendered ServiceMonitor gives (``job`` = the Service's name, ``namespace`` = the
  controller's): ``gpufleet_tls_certificate_not_after_seconds`` (Unix time; 0 until a
  certificate is loaded, which happens before the server listens), ``up`` and
  ``gpufleet_admission_requests_total{result}`` (``error``: a rule crashed; ``unavailable``:
  503 before the fleet context loaded);
- kube-state-metrics v2.20.0 (``internal/store/deployment.go``, scraped with ``honorLabels``):
  ``kube_deployment_status_replicas_available`` and ``kube_deployment_spec_replicas``
  ``{namespace, deployment}``, deduplicated across replicas with ``max by``;
- the API server (``staging/src/k8s.io/apiserver/pkg/admission/metrics/metrics.go``):
  ``apiserver_admission_webhook_rejection_count{name, type, operation, error_type, rejection_code}``;
  ``error_type`` ``calling_webhook_error`` (unreachable, TLS refused, timed out) or
  ``apiserver_internal_error``, or ``no_error`` with the webhook's ``rejection_code``
  (5xx: the controller failed; 4xx is a gang rule's ordinary denial and never pages).
"""

from __future__ import annotations

from typing import Any

from gpufleet.model.fleet import Fleet
from gpufleet.render.alert_meta import FLEET_SCOPE, runbook_annotations
from gpufleet.render.controller.common import NAME
from gpufleet.render.controller.webhooks import webhook_names

ALERTS = (
    "GangAdmissionCertificateExpiring",
    "GangAdmissionControllerDown",
    "GangAdmissionControllerDegraded",
    "GangAdmissionWebhookFailing",
)
GROUP = "gpufleet-controller"
NOT_AFTER = "gpufleet_tls_certificate_not_after_seconds"
REQUESTS = "gpufleet_admission_requests_total"
REJECTIONS = "apiserver_admission_webhook_rejection_count"
AVAILABLE = "kube_deployment_status_replicas_available"
DESIRED = "kube_deployment_spec_replicas"
FAILING = ("error", "unavailable")
"""``result`` values of the controller's own count that mean it answered without checking the object."""
FAILURE_WINDOW = "5m"
DEGRADED_FOR = "15m"
"""How long fewer replicas than desired may be available (a rolling update takes one at a time) before the warning."""


def _days(seconds: int) -> str:
    return f"{seconds / 86400:g} days"


def _labels(fleet: Fleet, severity: str) -> dict[str, str]:
    return {
        "severity": severity,
        "team": FLEET_SCOPE,
        "pool": FLEET_SCOPE,
        "namespace": fleet.controller.namespace,
        "gang": FLEET_SCOPE,
    }


def _target(fleet: Fleet) -> str:
    """The selector of the controller's own series (what its ServiceMonitor's scrape labels them with)."""
    return f'job="{NAME}", namespace="{fleet.controller.namespace}"'


def _deployment(fleet: Fleet) -> str:
    return f'namespace="{fleet.controller.namespace}", deployment="{NAME}"'


def _certificate_alerts(fleet: Fleet) -> list[dict[str, Any]]:
    expiry = fleet.observability.certificate_expiry
    left = f"min by (namespace) ({NOT_AFTER}{{{_target(fleet)}}} > 0) - time()"
    ns = fleet.controller.namespace
    what = f"The gang-admission controller in {ns} serves a certificate that expires in"

    def rule(severity: str, expr: str, limit: int) -> dict[str, Any]:
        return {
            "alert": "GangAdmissionCertificateExpiring",
            "expr": expr,
            "for": "10m",
            "labels": _labels(fleet, severity),
            "annotations": runbook_annotations(
                fleet,
                "GangAdmissionCertificateExpiring",
                f"The gang-admission controller's certificate expires soon ({severity})",
                f"{what} less than {_days(limit)} (or has expired). Its webhooks fail closed: once the API server refuses the "
                "certificate, every gang in the team namespaces is refused. cert-manager should have renewed "
                "it 30 days before expiry; with pulumi-tls run `pulumi up`.",
            ),
        }

    return [
        rule("warning", f"{left} < {expiry.warning} >= {expiry.critical}", expiry.warning),
        rule("critical", f"{left} < {expiry.critical}", expiry.critical),
    ]


def _availability_alerts(fleet: Fleet) -> list[dict[str, Any]]:
    ns = fleet.controller.namespace
    available = f"max by (namespace) ({AVAILABLE}{{{_deployment(fleet)}}})"
    down = f"{available} < 1\nor\nmax by (namespace) (up{{{_target(fleet)}}}) < 1"
    degraded = f"{available}\n< max by (namespace) ({DESIRED}{{{_deployment(fleet)}}})\nand {available} >= 1"
    hold = f"{int(fleet.observability.alert_for)}s"
    return [
        {
            "alert": "GangAdmissionControllerDown",
            "expr": down,
            "for": hold,
            "labels": _labels(fleet, "critical"),
            "annotations": runbook_annotations(
                fleet,
                "GangAdmissionControllerDown",
                "No replica of the gang-admission controller answers",
                f"The Deployment {ns}/{NAME} has no available replica, or Prometheus can scrape none of its pods. "
                "Its webhooks fail closed: every gang created or changed in the team namespaces is refused.",
            ),
        },
        {
            "alert": "GangAdmissionControllerDegraded",
            "expr": degraded,
            "for": DEGRADED_FOR,
            "labels": _labels(fleet, "warning"),
            "annotations": runbook_annotations(
                fleet,
                "GangAdmissionControllerDegraded",
                "The gang-admission controller runs with fewer replicas than desired",
                f"The Deployment {ns}/{NAME} has had fewer available replicas than desired for "
                f"{DEGRADED_FOR}: one more failure or node drain and the fail-closed webhooks refuse every gang.",
            ),
        },
    ]


def _failing_alert(fleet: Fleet) -> dict[str, Any]:
    names = "|".join(n.replace(".", "\\\\.") for n in webhook_names())
    # a failed call (error_type other than no_error), or an answer 5xx; 4xx is a rule's ordinary denial
    server = (
        f'sum(\n  rate({REJECTIONS}{{name=~"{names}", error_type!="no_error"}}[{FAILURE_WINDOW}])\n'
        f'  or rate({REJECTIONS}{{name=~"{names}", rejection_code=~"5.."}}[{FAILURE_WINDOW}])\n)'
    )
    own = f'sum(rate({REQUESTS}{{{_target(fleet)}, result=~"{"|".join(FAILING)}"}}[{FAILURE_WINDOW}]))'
    expr = f"{server} > 0\nor\n{own} > 0"
    return {
        "alert": "GangAdmissionWebhookFailing",
        "expr": expr,
        "for": FAILURE_WINDOW,
        "labels": _labels(fleet, "critical"),
        "annotations": runbook_annotations(
            fleet,
            "GangAdmissionWebhookFailing",
            "Admission calls to the gang-admission controller fail",
            f"For {FAILURE_WINDOW} the API server has been refusing requests because it could not call the "
            "controller's webhooks (unreachable, TLS refused, timed out) or the controller answered with an "
            "error (5xx, a crashing rule, no fleet context) instead of a decision.",
        ),
    }


def controller_rule_group(fleet: Fleet) -> dict[str, Any] | None:
    """The controller's alert group; None when the stack deploys no controller."""
    if not fleet.controller.enabled:
        return None
    return {"name": GROUP, "rules": [*_certificate_alerts(fleet), *_availability_alerts(fleet), _failing_alert(fleet)]}
