"""The gang alerts as Prometheus rule groups: time-to-first-step, partial gangs, stalls, requeue storms.

Pure: model in, ``{"groups": [...]}`` out (the Prometheus rule-file shape, also the
``spec`` of a PrometheusRule). Called by :mod:`gpufleet.render.monitoring` (the
PrometheusRule objects and ``gpufleet render``'s plain rule file) and the promtool tests.

Inputs (docs/observability.md lists the exporters' flags):

- kube-state-metrics v2.20.0 (docs/metrics/workload/pod-metrics.md, node-metrics.md):
  ``kube_pod_labels{namespace,pod,uid,label_gpufleet_dev_gang}`` (needs
  ``--metric-labels-allowlist=pods=[gpufleet.dev/gang],nodes=[<pool node labels>]``; label
  names are sanitised by ``internal/store/utils.go`` SanitizeLabelName: ``[^a-zA-Z0-9_]`` -> ``_``),
  ``kube_pod_status_phase{namespace,pod,uid,phase}``, ``kube_pod_start_time{namespace,pod,uid}``,
  ``kube_pod_info{namespace,pod,node,...}``, ``kube_node_labels{node,label_*}``.
- Kueue v0.19.2 ``pkg/metrics/metrics.go`` EvictedWorkloadsTotal:
  ``kueue_evicted_workloads_total{cluster_queue,reason,underlying_cause,priority_class,replica_role}``,
  reason ``PodsReadyTimeout`` (``apis/kueue/v1beta2/workload_types.go`` WorkloadEvictedByPodsReadyTimeout).
- ``gpufleet.steps`` on each training pod (scraped by the PodMonitor, which adds
  ``namespace`` and ``gang``): ``gpufleet_training_step``, ``gpufleet_training_step_timestamp_seconds``.

No rule looks at Pending pods alone: Pending is the healthy state under contention.
"""

from __future__ import annotations

import re
from typing import Any

from gpufleet.context import GANG_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.model.observability import startup_budget
from gpufleet.model.pools import Pool
from gpufleet.model.teams import Team

ALERTS = ("GangNoFirstStep", "GangPartiallyRunning", "GangStepStalled", "KueuePodsReadyTimeoutStorm")
STEP = "gpufleet_training_step"
STEP_TIME = "gpufleet_training_step_timestamp_seconds"
POD_INFO = "gpufleet:gang_pod:info"
POD_PHASE = "gpufleet:gang_pod:phase"
POD_RUNNING_SECONDS = "gpufleet:gang_pod:running_seconds"
GANG_POOL = "gpufleet:gang_pool:info"
FLEET_SCOPE = "all"
"""``team``, ``pool`` and ``gang`` label value of the fleet-wide KueuePodsReadyTimeoutStorm."""


_INVALID_LABEL_CHAR = re.compile(r"[^a-zA-Z0-9_]")
_ALL_CAP = re.compile(r"([a-z0-9])([A-Z])")


def ksm_label(key: str) -> str:
    """The Prometheus label kube-state-metrics gives a Kubernetes label key (``gpufleet.dev/gang`` -> ``label_gpufleet_dev_gang``).

    Emulates kube-state-metrics v2.20.0 ``internal/store/utils.go``: ``labelName`` =
    prefix + ``_`` + ``toSnakeCase(SanitizeLabelName(key))`` (``[^a-zA-Z0-9_]`` -> ``_``,
    then ``([a-z0-9])([A-Z])`` -> ``${1}_${2}``, lowercased). Not emulated: the
    ``_conflictN`` suffixes it adds when two keys of one object map to the same name.
    """
    return "label_" + _ALL_CAP.sub(r"\1_\2", _INVALID_LABEL_CHAR.sub("_", key)).lower()


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _duration(seconds: int) -> str:
    return f"{int(seconds)}s"


def _record_rules(fleet: Fleet) -> list[dict[str, Any]]:
    gang = ksm_label(GANG_LABEL)
    rules = [
        {"record": POD_INFO,
         "expr": f'max by (namespace, pod, gang) (label_replace(kube_pod_labels{{{gang}!=""}}, "gang", "$1", "{gang}", "(.+)"))'},
        {"record": POD_PHASE,
         "expr": f"{POD_INFO} * on (namespace, pod) group_left (phase) max by (namespace, pod, phase) (kube_pod_status_phase == 1)"},
        {"record": POD_RUNNING_SECONDS,
         "expr": (f"{POD_INFO} * on (namespace, pod) group_left () (time() - max by (namespace, pod) (kube_pod_start_time))"
                  ' * on (namespace, pod) group_left () max by (namespace, pod) (kube_pod_status_phase{phase="Running"} == 1)')},
    ]
    rules += [{"record": GANG_POOL, "expr": _gang_pool_expr(pool), "labels": {"pool": pool.name}} for pool in fleet.pools]
    return rules


def _gang_pool_expr(pool: Pool) -> str:
    """Gangs with a pod scheduled on one of the pool's nodes (pool found by its node labels)."""
    selector = ", ".join(f"{ksm_label(k)}={_quote(v)}" for k, v in sorted(pool.node_labels.items()))
    on_pool = (f"max by (namespace, pod) (kube_pod_info{{node!=\"\"}} * on (node) group_left () "
               f"max by (node) (kube_node_labels{{{selector}}}))")
    return f"max by (namespace, gang) ({POD_INFO} * on (namespace, pod) group_left () {on_pool})"


def _labels(team: str, pool: str, severity: str) -> dict[str, str]:
    return {"severity": severity, "team": team, "pool": pool}


def _annotations(fleet: Fleet, alert: str, summary: str, description: str) -> dict[str, str]:
    base = fleet.observability.runbook_base_url.rstrip("/")
    return {"summary": summary, "description": description, "runbook_url": f"{base}/{alert}.md"}


def _pool_alerts(fleet: Fleet, team: Team, pool: Pool) -> list[dict[str, Any]]:
    ns = "namespace=~" + _quote("|".join(team.namespaces))  # DNS labels: no regex metacharacters
    on_pool = f"on (namespace, gang) {GANG_POOL}{{pool={_quote(pool.name)}}}"
    stepped = f"on (namespace, gang) (max by (namespace, gang) ({STEP}{{{ns}}}) >= 1)"
    budget = startup_budget(pool, fleet)
    stall = fleet.observability.stall_window
    hold = _duration(fleet.observability.alert_for)
    gang = "{{ $labels.namespace }}/{{ $labels.gang }}"
    no_first_step = (
        f"min by (namespace, gang) ({POD_RUNNING_SECONDS}{{{ns}}}) > {budget}\n"
        f"and on (namespace, gang) (count by (namespace, gang) ({POD_PHASE}{{{ns}, phase=\"Running\"}})"
        f" == count by (namespace, gang) ({POD_INFO}{{{ns}}}))\n"
        f"and {on_pool}\nunless {stepped}"
    )
    partial = (
        f"count by (namespace, gang) ({POD_PHASE}{{{ns}, phase=\"Pending\"}})\n"
        f"and on (namespace, gang) count by (namespace, gang) ({POD_PHASE}{{{ns}, phase=\"Running\"}})\n"
        f"and {on_pool}"
    )
    stalled = (
        f"time() - max by (namespace, gang) ({STEP_TIME}{{{ns}}}) > {stall}\n"
        f"and {stepped}\nand {on_pool}"
    )
    return [
        {"alert": "GangNoFirstStep", "expr": no_first_step, "for": hold, "labels": _labels(team.name, pool.name, "critical"),
         "annotations": _annotations(fleet, "GangNoFirstStep", f"Gang {gang} runs but has not reached step 1",
                                     f"Every pod of gang {gang} (team {team.name}, pool {pool.name}) has been Running for more "
                                     f"than the pool's startup budget of {_duration(budget)} and no pod reported a training step."
                                     " Suspect a partial rendezvous, a wedged data loader or a NIC without RDMA.")},
        {"alert": "GangPartiallyRunning", "expr": partial, "for": _duration(budget),
         "labels": _labels(team.name, pool.name, "warning"),
         "annotations": _annotations(fleet, "GangPartiallyRunning", f"Gang {gang} is partially running",
                                     f"Gang {gang} (team {team.name}, pool {pool.name}) has had pods Running and pods Pending "
                                     f"for more than {_duration(budget)}: the Running pods hold GPUs and cannot train.")},
        {"alert": "GangStepStalled", "expr": stalled, "for": hold, "labels": _labels(team.name, pool.name, "critical"),
         "annotations": _annotations(fleet, "GangStepStalled", f"Gang {gang} stopped stepping",
                                     f"Gang {gang} (team {team.name}, pool {pool.name}) reached step 1 but no pod has "
                                     f"completed a step for more than {_duration(stall)}.")},
    ]


def _storm_alert(fleet: Fleet) -> dict[str, Any]:
    storm = fleet.observability.pods_ready_timeout_storm
    rate = f"{storm.evictions_per_minute:g}"
    expr = (f'sum(rate(kueue_evicted_workloads_total{{reason="PodsReadyTimeout"}}[{_duration(storm.window)}])) * 60 > {rate}')
    labels = {"severity": "critical", "team": FLEET_SCOPE, "pool": FLEET_SCOPE,
              "namespace": fleet.engines.kueue.namespace, "gang": FLEET_SCOPE}
    return {"alert": "KueuePodsReadyTimeoutStorm", "expr": expr, "for": "5m", "labels": labels,
            "annotations": _annotations(
                fleet, "KueuePodsReadyTimeoutStorm", "Kueue is evicting gangs for PodsReadyTimeout across the fleet",
                f"Kueue evicts more than {rate} workloads per minute with reason PodsReadyTimeout (averaged over "
                f"{_duration(storm.window)}): gangs do not become ready within waitForPodsReady.timeout and are requeued. "
                "Suspect a slow image registry or node provisioning turning into a requeue storm.")}


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
    """Every group in one Prometheus rule file (``gpufleet render``; ``promtool check rules``)."""
    groups = [fleet_rule_group(fleet)]
    for team in alert_teams(fleet):
        groups += team_rule_groups(fleet, team)
    return {"groups": groups}
