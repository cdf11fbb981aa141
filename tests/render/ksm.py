"""What kube-state-metrics v2.20.0 serves for pods and nodes: the series the gang-alert tests feed Prometheus.

An emulation, per family, of kube-state-metrics v2.20.0 ``internal/store/pod.go`` and
``internal/store/node.go`` (the families the rules read), with its exposition details
from ``pkg/metric/metric.go`` and ``family.go`` (``# HELP`` with the stability prefix,
``# TYPE``, the object's default labels first, values as Go's ``strconv.AppendFloat(f,
'g', -1)``):

- every pod: ``kube_pod_info`` (``node`` empty until scheduled), ``kube_pod_labels`` (only
  allowlisted keys the pod has; none at all without an allowlist), five
  ``kube_pod_status_phase`` series (1 for the current phase; none while the phase is empty);
- once the kubelet started it: ``kube_pod_start_time``; per container that runs or ran:
  ``kube_pod_container_state_started`` (start of the running, else terminated, container)
  and ``kube_pod_container_status_restarts_total`` (every container with a status);
- every node: ``kube_node_labels{node}`` plus its allowlisted labels.

Used by ``tests/render/promtool.py`` (input series, with the labels a Prometheus scrape
with ``honor_labels`` adds) and ``tests/e2e`` (the exposition a stand-in serves).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Iterator, Mapping, Sequence

from gpufleet.render.kube_state_metrics import ksm_label

Sample = tuple[str, dict[str, str], float]
PHASES = ("Pending", "Succeeded", "Failed", "Unknown", "Running")  # pod.go createPodStatusPhaseFamilyGenerator order
FAMILIES = {  # name: (HELP text as served, TYPE)
    "kube_pod_info": ("[STABLE] Information about pod.", "gauge"),
    "kube_pod_labels": ("[STABLE] Kubernetes labels converted to Prometheus labels.", "gauge"),
    "kube_pod_status_phase": ("[STABLE] The pods current phase.", "gauge"),
    "kube_pod_start_time": ("[STABLE] Start time in unix timestamp for a pod.", "gauge"),
    "kube_pod_container_state_started": ("[STABLE] Start time in unix timestamp for a pod container.", "gauge"),
    "kube_pod_container_status_restarts_total": ("[STABLE] The number of container restarts per container.", "counter"),
    "kube_node_labels": ("[STABLE] Kubernetes labels converted to Prometheus labels.", "gauge"),
}


@dataclass(frozen=True)
class Container:
    name: str = "trainer"
    started: float | None = None  # State.Running.StartedAt (or Terminated.StartedAt); None while Waiting
    restarts: int = 0


@dataclass(frozen=True)
class Pod:
    namespace: str
    name: str
    phase: str = "Running"
    labels: Mapping[str, str] = field(default_factory=dict)
    node: str = ""
    start: float | None = None  # status.startTime
    containers: tuple[Container, ...] = ()
    owner: tuple[str, str] = ("Job", "")

    @property
    def uid(self) -> str:
        return f"uid-{self.namespace}-{self.name}"


@dataclass(frozen=True)
class Node:
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)


def parse_allowlist(entries: Sequence[str]) -> dict[str, list[str]]:
    """``["pods=[a,b]", "nodes=[c]"]`` (the rendered ``--metric-labels-allowlist`` entries) -> {resource: keys}."""
    out: dict[str, list[str]] = {}
    for entry in entries:
        match = re.fullmatch(r"([a-z]+)=\[(.*)\]", entry)
        assert match, f"not an allowlist entry: {entry!r}"
        out[match.group(1)] = [k for k in match.group(2).split(",") if k]
    return out


def _allowed(labels: Mapping[str, str], keys: Sequence[str]) -> dict[str, str]:
    """createPrometheusLabelKeysValues with exact keys: the allowlisted keys the object has, sorted by name."""
    return {ksm_label(k): labels[k] for k in sorted(keys) if k in labels}


def pod_samples(pod: Pod, allow: Mapping[str, Sequence[str]]) -> Iterator[Sample]:
    ids = {"namespace": pod.namespace, "pod": pod.name, "uid": pod.uid}
    scheduled = {
        "host_ip": "10.0.0.1" if pod.node else "",
        "pod_ip": "10.1.0.1" if pod.start else "",
        "node": pod.node,
        "created_by_kind": pod.owner[0],
        "created_by_name": pod.owner[1],
        "priority_class": "",
        "host_network": "false",
    }
    yield "kube_pod_info", {**ids, **scheduled}, 1
    if allow.get("pods"):
        yield "kube_pod_labels", {**ids, **_allowed(pod.labels, allow["pods"])}, 1
    if pod.phase:
        for phase in PHASES:
            yield "kube_pod_status_phase", {**ids, "phase": phase}, float(phase == pod.phase)
    if pod.start is not None:
        yield "kube_pod_start_time", ids, pod.start
    for c in pod.containers:
        if c.started is not None:
            yield "kube_pod_container_state_started", {**ids, "container": c.name}, c.started
    for c in pod.containers:
        yield "kube_pod_container_status_restarts_total", {**ids, "container": c.name}, float(c.restarts)


def node_samples(node: Node, allow: Mapping[str, Sequence[str]]) -> Iterator[Sample]:
    if allow.get("nodes"):
        yield "kube_node_labels", {"node": node.name, **_allowed(node.labels, allow["nodes"])}, 1


def samples(objects: Sequence[Pod | Node], allow: Mapping[str, Sequence[str]]) -> list[Sample]:
    out: list[Sample] = []
    for obj in objects:
        out += pod_samples(obj, allow) if isinstance(obj, Pod) else node_samples(obj, allow)
    return out


def go_float(value: float) -> str:
    """Go's ``strconv.AppendFloat(v, 'g', -1, 64)`` as kube-state-metrics writes values (1.501777018e+09)."""
    if value in (0, 1, -1):
        return str(int(value))
    sign, digits, exponent = Decimal(repr(float(value))).normalize().as_tuple()
    text = "".join(map(str, digits))
    exp = len(text) + int(exponent) - 1
    if exp < -4 or exp >= 6:  # ftoa.go: shortest 'g' switches to %e at exponent 6
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{'-' if sign else ''}{mantissa}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    return f"{'-' if sign else ''}{Decimal(repr(abs(float(value)))).normalize():f}"


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"') + '"'


def exposition(objects: Sequence[Pod | Node], allow: Mapping[str, Sequence[str]]) -> str:
    """The text kube-state-metrics serves on /metrics for these objects (families in a fixed order)."""
    by_family: dict[str, list[str]] = {name: [] for name in FAMILIES}
    for name, labels, value in samples(objects, allow):
        body = ",".join(f"{k}={_quote(v)}" for k, v in labels.items())
        by_family[name].append(f"{name}{{{body}}} {go_float(value)}")
    out = []
    for name, lines in by_family.items():
        help_text, kind = FAMILIES[name]
        out += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}", *lines]
    return "\n".join(out) + "\n"
