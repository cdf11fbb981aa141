"""The gang alerts as Prometheus rule groups: time-to-first-step, partial gangs, stalls, requeue storms.

Pure: model in, ``{"groups": [...]}`` out (the Prometheus rule-file shape, also the
``spec`` of a PrometheusRule). Called by :mod:`gpufleet.render.monitoring` (the
PrometheusRule objects and ``gpufleet render``'s plain rule file) and the promtool tests.
The rule file also holds the controller's own group (:mod:`gpufleet.render.controller.alerts`).

Inputs (docs/observability.md lists the exporters' flags; the allowlist is rendered by
:mod:`gpufleet.render.kube_state_metrics`):

- kube-state-metrics v2.20.0 (``internal/store/pod.go``, ``node.go``), scraped with
  ``honor_labels`` (its ``namespace``/``pod`` labels kept): ``kube_pod_labels{namespace,pod,uid,
  label_gpufleet_dev_gang}``, ``kube_pod_status_phase{...,phase}`` (five series per pod, 1 for
  the current phase), ``kube_pod_start_time``, ``kube_pod_container_state_started{container}``
  (start of the running or last terminated container), ``kube_pod_container_status_restarts_total
  {container}``, ``kube_pod_info{...,node}``, ``kube_node_labels{node,label_*}``. Every read
  is deduplicated per pod (``max by``, ``topk``): unsharded replicas serve the same series
  with another ``instance`` and may briefly disagree on a pod's phase.
- Kueue v0.19.2 ``pkg/metrics/metrics.go``: ``kueue_evicted_workloads_total{cluster_queue,reason,
  underlying_cause,priority_class,replica_role}`` (created at its first increment by
  ReportEvictedWorkloads), reason ``PodsReadyTimeout`` (``apis/kueue/v1beta2/workload_types.go``);
  ``kueue_cluster_queue_status`` (set for every ClusterQueue) tells that Kueue was scraped.
- ``gpufleet.steps`` on each training pod (scraped by the PodMonitor, which adds
  ``namespace`` and ``gang``): ``gpufleet_training_step``, ``gpufleet_training_step_timestamp_seconds``.

A gang "has stepped" once any pod reported step >= 1; :data:`LAST_STEP` remembers it
(and when) while the gang's pods exist, through reporter restarts and scrape outages.
No rule looks at Pending pods alone: Pending is the healthy state under contention.
Terminal pods (Succeeded, Failed) are ignored.
"""

from __future__ import annotations

from typing import Any

from gpufleet.kubetypes.vocab import GANG_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.model.teams import Team
from gpufleet.render.alert_meta import FLEET_SCOPE, runbook_annotations
from gpufleet.render.controller.alerts import ALERTS as CONTROLLER_ALERTS
from gpufleet.render.controller.alerts import controller_rule_group
from gpufleet.render.kube_state_metrics import ksm_label, pool_node_label

GANG_ALERTS = ("GangNoFirstStep", "GangPartiallyRunning", "GangStepStalled", "KueuePodsReadyTimeoutStorm")
ALERTS = (*GANG_ALERTS, *CONTROLLER_ALERTS)
"""Every alert gpufleet renders (each has docs/runbooks/<alert>.md)."""
STEP = "gpufleet_training_step"
STEP_TIME = "gpufleet_training_step_timestamp_seconds"
POD_INFO = "gpufleet:gang_pod:info"
POD_PHASE = "gpufleet:gang_pod:phase"
POD_RUNNING_SECONDS = "gpufleet:gang_pod:running_seconds"
GANG_POOL = "gpufleet:gang_pool:info"
LAST_STEP = "gpufleet:gang:last_step_timestamp_seconds"
STEP_MEMORY = "10m"
"""How long a gang's last step is remembered after its pods vanish from kube-state-metrics (bridges its outages)."""
KUEUE_SEEN = "kueue_cluster_queue_status"
STORM_SERIES = 'kueue_evicted_workloads_total{reason="PodsReadyTimeout"}'


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _duration(seconds: int) -> str:
    return f"{int(seconds)}s"


PHASE_ORDER = (("Pending",), ("Unknown",), ("Running",), ("Succeeded", "Failed"))
"""Phases from least to most advanced: where kube-state-metrics replicas disagree, the most advanced one wins."""


def _one_phase_per_pod() -> str:
    """Each pod's phase once, even from replicas that disagree (the one that has seen more is right)."""
    terms = [
        f'max by (namespace, pod, phase) (kube_pod_status_phase{{phase=~"{"|".join(names)}"}} == 1) * {rank}'
        for rank, names in enumerate(PHASE_ORDER, start=1)
    ]
    return "clamp_max(topk by (namespace, pod) (1,\n     " + "\n  or ".join(terms) + "\n), 1)"


def _pod_rules() -> list[dict[str, Any]]:
    gang = ksm_label(GANG_LABEL)
    labelled = (
        f'max by (namespace, pod, gang) (label_replace(kube_pod_labels{{{gang}!=""}}, "gang", "$1", "{gang}", "(.+)"))'
    )
    # a restarted container restarts the clock: its start, else the pod's (which includes the image pulls)
    started = (
        "(max by (namespace, pod) (kube_pod_container_state_started)\n"
        "  and on (namespace, pod) (max by (namespace, pod) (kube_pod_container_status_restarts_total) > 0)\n"
        " or max by (namespace, pod) (kube_pod_start_time))"
    )
    return [
        {"record": POD_INFO, "expr": f"topk by (namespace, pod) (1, {labelled})"},
        {"record": POD_PHASE, "expr": f"{_one_phase_per_pod()}\n* on (namespace, pod) group_left (gang) {POD_INFO}"},
        {
            "record": POD_RUNNING_SECONDS,
            "expr": (
                f"{POD_INFO} * on (namespace, pod) group_left ()\n(time() - {started})\n"
                f'and on (namespace, pod) {POD_PHASE}{{phase="Running"}}'
            ),
        },
    ]


def _last_step_rule() -> dict[str, Any]:
    """The latest step time of each gang that reached step 1, remembered while its pods exist (a latch on itself)."""
    live = f"({STEP_TIME} and {STEP} >= 1)"
    kept = f"{LAST_STEP} and on (namespace, gang) max_over_time({POD_INFO}[{STEP_MEMORY}])"
    return {"record": LAST_STEP, "expr": f"max by (namespace, gang) (\n  {live}\n  or\n  {kept}\n)"}


def _record_rules(fleet: Fleet) -> list[dict[str, Any]]:
    rules = [*_pod_rules(), _last_step_rule()]
    rules += [
        {"record": GANG_POOL, "expr": _gang_pool_expr(pool), "labels": {"pool": pool.name}} for pool in fleet.pools
    ]
    return rules


def _gang_pool_expr(pool: Pool) -> str:
    """Gangs with a pod scheduled on one of the pool's nodes (found by the pool's one join label)."""
    found = pool_node_label(pool)
    nodes = (
        f"kube_node_labels{{{ksm_label(found[0])}={_quote(found[1])}}}" if found else "kube_node_labels"
    )  # no label: every node
    on_pool = f"max by (namespace, pod) (kube_pod_info{{node!=\"\"}} * on (node) group_left () max by (node) ({nodes}))"
    return f"max by (namespace, gang) ({POD_INFO} * on (namespace, pod) group_left () {on_pool})"


def _labels(team: str, pool: str, severity: str) -> dict[str, str]:
    return {"severity": severity, "team": team, "pool": pool}


def _pool_alerts(fleet: Fleet, team: Team, pool: Pool) -> list[dict[str, Any]]:
    ns = "namespace=~" + _quote("|".join(team.namespaces))  # DNS labels: no regex metacharacters
    on_pool = f"on (namespace, gang) {GANG_POOL}{{pool={_quote(pool.name)}}}"
    stepped = f"on (namespace, gang) {LAST_STEP}{{{ns}}}"
    budget = fleet.startup_budget(pool)
    stall = fleet.observability.stall_window
    hold = _duration(fleet.observability.alert_for)
    gang = "{{ $labels.namespace }}/{{ $labels.gang }}"
    no_first_step = (
        f"min by (namespace, gang) ({POD_RUNNING_SECONDS}{{{ns}}}) > {budget}\n"
        f"unless on (namespace, gang) {POD_PHASE}{{{ns}, phase=~\"Pending|Unknown\"}}\n"
        f"and {on_pool}\nunless {stepped}"
    )
    partial = (
        f"count by (namespace, gang) ({POD_PHASE}{{{ns}, phase=\"Pending\"}})\n"
        f"and on (namespace, gang) count by (namespace, gang) ({POD_PHASE}{{{ns}, phase=\"Running\"}})\n"
        f"and {on_pool}"
    )
    stalled = (
        f"time() - max by (namespace, gang) ({LAST_STEP}{{{ns}}}) > {stall}\n"
        f"and on (namespace, gang) {POD_PHASE}{{{ns}, phase=\"Running\"}}\nand {on_pool}"
    )
    return [
        {
            "alert": "GangNoFirstStep",
            "expr": no_first_step,
            "for": hold,
            "labels": _labels(team.name, pool.name, "critical"),
            "annotations": runbook_annotations(
                fleet,
                "GangNoFirstStep",
                f"Gang {gang} runs but has not reached step 1",
                f"Every live pod of gang {gang} (team {team.name}, pool {pool.name}) has been Running for more "
                f"than the pool's startup budget of {_duration(budget)} (counted from the last container "
                "restart) and no pod has ever reported a training step."
                " Suspect a partial rendezvous, a wedged data loader or a NIC without RDMA.",
            ),
        },
        {
            "alert": "GangPartiallyRunning",
            "expr": partial,
            "for": _duration(budget),
            "labels": _labels(team.name, pool.name, "warning"),
            "annotations": runbook_annotations(
                fleet,
                "GangPartiallyRunning",
                f"Gang {gang} is partially running",
                f"Gang {gang} (team {team.name}, pool {pool.name}) has had pods Running and pods Pending "
                f"for more than {_duration(budget)}: the Running pods hold GPUs and cannot train.",
            ),
        },
        {
            "alert": "GangStepStalled",
            "expr": stalled,
            "for": hold,
            "labels": _labels(team.name, pool.name, "critical"),
            "annotations": runbook_annotations(
                fleet,
                "GangStepStalled",
                f"Gang {gang} stopped stepping",
                f"Gang {gang} (team {team.name}, pool {pool.name}) reached step 1 but no pod has "
                f"reported a new step for more than {_duration(stall)} (or its step reporters "
                "cannot be scraped).",
            ),
        },
    ]


def _storm_expr(window: str, rate: str) -> str:
    """Evictions per minute over ``window``, counting the series Kueue created inside it.

    Kueue creates a series at its first increment (value 1), which ``increase()`` never
    sees; a series absent ``window`` ago counts its first value too, but only when Kueue
    was scraped back then (else a fresh Prometheus would count Kueue's whole history).
    """
    increase = f"(sum(increase({STORM_SERIES}[{window}])) or vector(0))"
    new = (
        f"(sum(min_over_time({STORM_SERIES}[{window}]) unless {STORM_SERIES} offset {window})\n"
        f"   and on () count({KUEUE_SEEN} offset {window}) > 0 or vector(0))"
    )
    return f"(\n  {increase}\n  + {new}\n) * 60 / {_seconds(window)} > {rate}"


def _seconds(duration: str) -> int:
    return int(duration.removesuffix("s"))


def _storm_alert(fleet: Fleet) -> dict[str, Any]:
    storm = fleet.observability.pods_ready_timeout_storm
    rate = f"{storm.evictions_per_minute:g}"
    expr = _storm_expr(_duration(storm.window), rate)
    labels = {
        "severity": "critical",
        "team": FLEET_SCOPE,
        "pool": FLEET_SCOPE,
        "namespace": fleet.engines.kueue.namespace,
        "gang": FLEET_SCOPE,
    }
    return {
        "alert": "KueuePodsReadyTimeoutStorm",
        "expr": expr,
        "for": "5m",
        "labels": labels,
        "annotations": runbook_annotations(
            fleet,
            "KueuePodsReadyTimeoutStorm",
            "Kueue is evicting gangs for PodsReadyTimeout across the fleet",
            f"Kueue evicts more than {rate} workloads per minute with reason PodsReadyTimeout (averaged over "
            f"{_duration(storm.window)}): gangs do not become ready within waitForPodsReady.timeout and are requeued. "
            "Suspect a slow image registry or node provisioning turning into a requeue storm.",
        ),
    }


def alert_teams(fleet: Fleet) -> list[Team]:
    """Teams that get gang alerts: not retired, with quota on at least one pool."""
    return [t for t in fleet.teams if t.lifecycle != "retired" and any(fleet.pool(p) for p in t.quota)]


def fleet_rule_group(fleet: Fleet) -> dict[str, Any]:
    """Recording rules every team's alerts read, plus the fleet-wide requeue-storm alert."""
    return {"name": "gpufleet-gangs", "rules": [*_record_rules(fleet), _storm_alert(fleet)]}


def team_rule_groups(fleet: Fleet, team: Team) -> list[dict[str, Any]]:
    """One group per pool the team has quota on, with that pool's budgets."""
    pools = [p for p in fleet.pools if p.name in team.quota]
    return [{"name": f"gpufleet-gangs-{team.name}-{p.name}", "rules": _pool_alerts(fleet, team, p)} for p in pools]


def render_rule_file(fleet: Fleet) -> dict[str, Any]:
    """Every group in one Prometheus rule file (``gpufleet render``; ``promtool check rules``), the controller's last."""
    groups = [fleet_rule_group(fleet)]
    for team in alert_teams(fleet):
        groups += team_rule_groups(fleet, team)
    controller = controller_rule_group(fleet)
    return {"groups": groups + ([controller] if controller else [])}
