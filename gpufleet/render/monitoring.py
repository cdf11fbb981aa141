"""PodMonitor and PrometheusRule objects (prometheus-operator ``monitoring.coreos.com/v1``) for the gang alerts.

Pure. Called by ``gpufleet.pulumi.observability.GangAlerts`` (when the stack says
prometheus-operator is present) and by ``gpufleet render`` (which also writes the
same rules as a plain Prometheus rule file, ``gpufleet.render.files.rule_file_text``,
for clusters without the operator). One PodMonitor per team scrapes the ``gpufleet.steps`` port of
the team's gang pods and copies the pod's ``gpufleet.dev/gang`` label to ``gang``; one
PrometheusRule holds the fleet-wide group, one per team its per-pool groups
(:mod:`gpufleet.render.alerts`), one the controller's certificate and availability alerts
(:mod:`gpufleet.render.controller.alerts`, when the controller is enabled). :func:`render_ksm_service_monitor` is the scrape
configuration of kube-state-metrics the rules need (``honorLabels: true``); ``gpufleet
render`` writes it beside the kube-state-metrics flags, not with the objects above, as a
kube-state-metrics installed by its chart or kube-prometheus-stack brings its own.
"""

from __future__ import annotations

import re
from typing import Any

from gpufleet.kubetypes.vocab import GANG_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.model.teams import Team
from gpufleet.render.alerts import alert_teams, fleet_rule_group, team_rule_groups
from gpufleet.render.controller.alerts import controller_rule_group
from gpufleet.render.meta import manifest, metadata

MONITORING_API = "monitoring.coreos.com/v1"
RULE_FILE = "prometheus/gpufleet-gangs.rules.yaml"
"""Where ``gpufleet render --out DIR`` writes the plain rule file (a sub-folder ``kubectl apply -f DIR`` skips)."""


COMPONENT = "gang-alerts"
"""The gang alerts' Pulumi component name (``gpufleet.pulumi.fleet``): each manifest is ``<it>-<kind>-<name>``."""


def _meta(fleet: Fleet, name: str, team: str | None = None) -> dict[str, Any]:
    meta = metadata(fleet, name, namespace=fleet.observability.namespace, team=team)
    meta["labels"] = {**fleet.observability.rule_labels, **meta["labels"]}
    return meta


def _pod_meta(key: str) -> str:
    """Prometheus' Kubernetes discovery meta label of a pod label (``strutil.SanitizeLabelName``: ``[^a-zA-Z0-9_]`` -> ``_``)."""
    return "__meta_kubernetes_pod_label_" + re.sub(r"[^a-zA-Z0-9_]", "_", key)


def render_pod_monitor(fleet: Fleet, team: Team) -> dict[str, Any]:
    """Scrape the step reporter of every gang pod in the team's namespaces."""
    endpoint = {
        "port": fleet.observability.steps_port,
        "path": "/metrics",
        "relabelings": [
            {"sourceLabels": [_pod_meta(GANG_LABEL)], "targetLabel": "gang", "action": "replace"},
            {"sourceLabels": ["__meta_kubernetes_namespace"], "targetLabel": "namespace", "action": "replace"},
        ],
    }
    spec = {
        "selector": {"matchExpressions": [{"key": GANG_LABEL, "operator": "Exists"}]},
        "namespaceSelector": {"matchNames": list(team.namespaces)},
        "podMetricsEndpoints": [endpoint],
    }
    return manifest(MONITORING_API, "PodMonitor", _meta(fleet, f"gpufleet-steps-{team.name}", team.name), spec=spec)


def render_ksm_service_monitor(fleet: Fleet) -> dict[str, Any]:
    """A ServiceMonitor for kube-state-metrics that keeps its ``namespace`` and ``pod`` labels.

    Without ``honorLabels`` Prometheus renames the scraped labels that clash with the
    target's own (the Service's namespace, the kube-state-metrics pod) to
    ``exported_namespace``/``exported_pod``, and no rule joins a gang pod again.
    """
    ksm = fleet.observability.kube_state_metrics
    spec = {
        "selector": {"matchLabels": dict(ksm.service_labels)},
        "namespaceSelector": {"matchNames": [ksm.namespace]},
        "endpoints": [{"port": ksm.port, "honorLabels": True}],
    }
    return manifest(MONITORING_API, "ServiceMonitor", _meta(fleet, "gpufleet-kube-state-metrics"), spec=spec)


def _rule(fleet: Fleet, name: str, groups: list[dict[str, Any]], team: str | None = None) -> dict[str, Any]:
    return manifest(MONITORING_API, "PrometheusRule", _meta(fleet, name, team), spec={"groups": groups})


def render_monitoring(fleet: Fleet) -> list[dict[str, Any]]:
    """The fleet PrometheusRule, per team its PodMonitor and PrometheusRule, then the controller's ([] when disabled)."""
    if not fleet.observability.enabled:
        return []
    out = [_rule(fleet, "gpufleet-gangs", [fleet_rule_group(fleet)])]
    for team in alert_teams(fleet):
        out.append(render_pod_monitor(fleet, team))
        out.append(_rule(fleet, f"gpufleet-gangs-{team.name}", team_rule_groups(fleet, team), team.name))
    controller = controller_rule_group(fleet)
    if controller:
        out.append(_rule(fleet, controller["name"], [controller]))
    return out
