"""Gang observability settings: the time-to-first-step alerts' budgets and thresholds.

Read by :mod:`gpufleet.render.alerts` (the Prometheus rules) and
:mod:`gpufleet.render.monitoring` (PodMonitor and PrometheusRule objects). Each pool's
startup budget is ``Pool.startup_budget`` when set, else the pool's cold-start budget
(or ``admission.coldStartFloor`` without one) plus :attr:`Observability.rendezvous_allowance`
(:meth:`gpufleet.model.fleet.Fleet.startup_budget`).
"""

from __future__ import annotations

from pydantic import Field, model_validator

from gpufleet import DOCS_URL
from gpufleet.kubetypes import durations
from gpufleet.kubetypes.vocab import APP_NAME_LABEL, DNS_LABEL
from gpufleet.model.base import Base, Duration, Name


class PodsReadyTimeoutStorm(Base):
    evictions_per_minute: float = Field(default=2.0, gt=0)
    """Fleet-wide Kueue evictions with reason PodsReadyTimeout per minute above which KueuePodsReadyTimeoutStorm fires."""
    window: Duration = Field(default=600, ge=60)
    """Window the eviction rate is averaged over (at least 1m)."""


class CertificateExpiry(Base):
    """When the gang-admission controller's serving-certificate alert fires (``GangAdmissionCertificateExpiring``).

    cert-manager renews the certificate 30 days before it expires (``renewBefore: 720h``) and
    ``pulumi up`` renews a pulumi-tls one in the same window, so the warning starts after a
    renewal should have happened; with ``failurePolicy: Fail`` an expired certificate refuses
    every gang in the team namespaces.
    """

    warning: Duration = Field(default=21 * 24 * 3600, gt=0)
    """Warn when the certificate in use expires in less than this (default 504h, 21 days)."""
    critical: Duration = Field(default=7 * 24 * 3600, gt=0)
    """Page when it expires in less than this (default 168h, 7 days; also once it has expired)."""

    @model_validator(mode="after")
    def _critical_before_warning(self) -> CertificateExpiry:
        if self.critical >= self.warning:
            raise ValueError(
                f"critical ({durations.format_seconds(self.critical)}) must be shorter than warning "
                f"({durations.format_seconds(self.warning)}), e.g. warning: 504h, critical: 168h"
            )
        return self


class KubeStateMetrics(Base):
    """Where kube-state-metrics runs, for the ServiceMonitor gpufleet renders (``render.kube_state_metrics``).

    Defaults match the kube-state-metrics Helm chart (prometheus-community/helm-charts
    ``charts/kube-state-metrics``: Service port ``http``, selector label
    ``app.kubernetes.io/name: kube-state-metrics``).
    """

    namespace: Name = "kube-system"
    """Namespace of the kube-state-metrics Service."""
    service_labels: dict[str, str] = Field(default_factory=lambda: {APP_NAME_LABEL: "kube-state-metrics"})
    """Labels that select the kube-state-metrics Service (the ServiceMonitor's ``selector.matchLabels``)."""
    port: str = Field(default="http", min_length=1, max_length=15, pattern=DNS_LABEL)
    """Name of the Service port that serves the metrics."""


class Observability(Base):
    enabled: bool = True
    """Render the gang alerts (a PodMonitor per team and PrometheusRules; a plain rule file in ``gpufleet render``)."""
    namespace: Name = "gpufleet-system"
    """Namespace of the PodMonitors and PrometheusRules (where your Prometheus looks for them)."""
    rendezvous_allowance: Duration = 300
    """Added to a pool's cold-start budget to make its default startup budget (rendezvous, first batch, first step)."""
    stall_window: Duration = Field(default=900, ge=60)
    """How long a gang that has stepped may go without a new step before GangStepStalled fires."""
    alert_for: Duration = 120
    """How long GangNoFirstStep's and GangStepStalled's condition must hold before they fire: rides out a
    missed scrape and a Prometheus restart (rules evaluated before the first scrape of the step reporters)."""
    pods_ready_timeout_storm: PodsReadyTimeoutStorm = Field(default_factory=PodsReadyTimeoutStorm)
    """KueuePodsReadyTimeoutStorm threshold (a registry slowdown turning into a requeue storm)."""
    steps_port: str = Field(default="gpufleet-steps", min_length=1, max_length=15, pattern=DNS_LABEL)
    """Name of the container port on which training pods serve ``gpufleet.steps`` (PodMonitor ``port``)."""
    runbook_base_url: str = f"{DOCS_URL}/runbooks"
    """Where ``docs/runbooks`` is published; each alert's runbook_url is ``<base>/<Alert>.md``."""
    kube_state_metrics: KubeStateMetrics = Field(default_factory=KubeStateMetrics)
    """Where kube-state-metrics runs (for the rendered ServiceMonitor; its flags are rendered from the pools)."""
    certificate_expiry: CertificateExpiry = Field(default_factory=CertificateExpiry)
    """Thresholds of the controller's certificate-expiry alert (rendered with the controller's availability alerts)."""
    rule_labels: dict[str, str] = Field(default_factory=dict)
    """Extra labels on the PodMonitors and PrometheusRules, to match your Prometheus' ruleSelector/podMonitorSelector."""
