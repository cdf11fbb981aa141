"""Prometheus' own tools for the gang-alert tests: finding promtool, and input series builders.

``promtool()`` returns the binary or skips with the reason (scripts/test.sh installs
Debian's ``prometheus`` package, which ships it, when run as root with apt). The
builders write kube-state-metrics series exactly as kube-state-metrics v2.20.0 serves them
(:mod:`tests.render.ksm`: which families, labels and when) with the target labels a
ServiceMonitor scrape with ``honorLabels: true`` adds (``job``, ``instance``, and
``namespace``/``pod``/``container`` of the kube-state-metrics pod where the series has
none), one ``instance`` per replica; and the step reporter's series the way the
PodMonitor labels them (``namespace``, ``gang``).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import pytest
import yaml

from gpufleet.kubetypes.vocab import GANG_LABEL
from tests.render import ksm

SKIP_REASON = (
    "promtool is not installed: `bash scripts/test.sh` installs it (apt-get install -y prometheus) when run "
    "as root with apt-get; elsewhere install Prometheus' promtool to run the alert tests"
)


def installed(binary: str, reason: str) -> str:
    """The path of ``binary`` (Prometheus' promtool or server), or skip the test with ``reason``."""
    path = shutil.which(binary)
    if path is None:
        pytest.skip(reason)
    return path


def promtool() -> str:
    return installed("promtool", SKIP_REASON)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([promtool(), *args], capture_output=True, text=True, timeout=120)


DEFAULT_ALLOW = {"pods": [GANG_LABEL], "nodes": ["gpufleet.dev/pool"]}
"""The allowlist the dev stack renders (tests of other stacks pass theirs: ``ksm.parse_allowlist``)."""


def target_labels(replica: int) -> dict[str, str]:
    """Labels Prometheus gives a kube-state-metrics target found by a ServiceMonitor (replica = its pod)."""
    return {
        "job": "kube-state-metrics",
        "instance": f"10.0.9.{replica + 1}:8080",
        "namespace": "kube-system",
        "pod": f"kube-state-metrics-{replica}",
        "container": "kube-state-metrics",
        "service": "kube-state-metrics",
        "endpoint": "http",
    }


def _honor(labels: Mapping[str, str], replica: int) -> dict[str, str]:
    """honor_labels: the scraped labels win; target labels fill in the rest."""
    return {**target_labels(replica), **labels}


@dataclass
class Series:
    """Input series of one ``promtool test rules`` case (``values`` in promtool's expanding notation)."""

    items: list[dict[str, str]] = field(default_factory=list)
    allow: Mapping[str, Sequence[str]] = field(default_factory=lambda: DEFAULT_ALLOW)

    def add(self, metric: str, labels: dict[str, str], values: str) -> Series:
        body = ",".join(f'{k}="{v}"' for k, v in labels.items())
        self.items.append({"series": f"{metric}{{{body}}}", "values": values})
        return self

    def ksm(self, objects: Sequence[ksm.Pod | ksm.Node], samples: int, replica: int = 0) -> Series:
        """kube-state-metrics' series for objects that do not change during the test."""
        for name, labels, value in ksm.samples(objects, self.allow):
            self.add(name, _honor(labels, replica), f"{ksm.go_float(value)}x{samples}")
        return self

    def frames(self, frames: Sequence[Sequence[ksm.Pod | ksm.Node]], replica: int = 0) -> Series:
        """kube-state-metrics' series scraped once a minute, ``frames[i]`` the objects at minute i.

        A series that disappears gets a staleness marker, as a real scrape writes.
        """
        values: dict[tuple[str, tuple[tuple[str, str], ...]], list[str]] = {}
        for minute, objects in enumerate(frames):
            for name, labels, value in ksm.samples(objects, self.allow):
                values.setdefault((name, tuple(_honor(labels, replica).items())), ["_"] * len(frames))[minute] = (
                    ksm.go_float(value)
                )
        for (name, labels), row in values.items():
            row = [("stale" if v == "_" and i and row[i - 1] not in ("_", "stale") else v) for i, v in enumerate(row)]
            self.add(name, dict(labels), " ".join(row))
        return self

    def node(self, node: str, pool: str, samples: int, **labels: str) -> Series:
        return self.ksm([ksm.Node(node, {"gpufleet.dev/pool": pool, **labels})], samples)

    def pod(
        self, namespace: str, gang: str, pod: str, phase: str, samples: int, replica: int = 0, **where: Any
    ) -> Series:
        """The :func:`gang_pod` (``node``, ``start`` in ``where``) in one phase for the whole test."""
        return self.ksm([gang_pod(namespace, gang, pod, phase, **where)], samples, replica)

    def steps(self, namespace: str, gang: str, pod: str, step: str, timestamp: str) -> Series:
        labels = {"namespace": namespace, "gang": gang, "pod": pod}
        self.add("gpufleet_training_step", labels, step)
        return self.add("gpufleet_training_step_timestamp_seconds", labels, timestamp)


def gang_pod(
    namespace: str,
    gang: str,
    pod: str,
    phase: str,
    node: str = "",
    start: float = 0,
    restarts: int = 0,
    container_start: float | None = None,
) -> ksm.Pod:
    """A pod of ``gang`` as kube-state-metrics sees it: unscheduled without a node, else started at ``start``."""
    if not node:
        return ksm.Pod(namespace, pod, phase, {GANG_LABEL: gang}, owner=("Job", gang))
    started = start if container_start is None else container_start
    return ksm.Pod(
        namespace,
        pod,
        phase,
        {GANG_LABEL: gang},
        node,
        start,
        (ksm.Container("trainer", started, restarts),),
        ("Job", gang),
    )


def expand(template: str, labels: dict[str, str]) -> str:
    """The alert templates use only ``{{ $labels.x }}``: expand them the way Prometheus would."""
    out = template
    for key, value in labels.items():
        out = out.replace(f"{{{{ $labels.{key} }}}}", value)
    return out


def alert(rule: dict[str, Any], **labels: str) -> dict[str, Any]:
    """The alert promtool must see for ``rule`` with the series' labels (namespace, gang)."""
    every = {**labels, **rule["labels"]}
    return {"exp_labels": every, "exp_annotations": {k: expand(v, every) for k, v in rule["annotations"].items()}}


def find_rule(rule_file: dict[str, Any], name: str, team: str, pool: str) -> dict[str, Any]:
    """The alert ``name`` of ``team`` on ``pool`` (the fleet-wide storm alert matches any team and pool)."""
    for group in rule_file["groups"]:
        for rule in group["rules"]:
            if (
                rule.get("alert") == name
                and rule["labels"]["team"] in (team, "all")
                and rule["labels"]["pool"] in (pool, "all")
            ):
                return rule
    raise AssertionError(f"no {name} rule for team {team} pool {pool}")


def alert_case(
    rule: dict[str, Any], series: Series, minute: int, firing: Sequence[tuple[str, str]] = ()
) -> dict[str, Any]:
    """A promtool case: at ``minute``, ``rule`` fires for exactly the ``(namespace, gang)`` pairs in ``firing``."""
    expected = [alert(rule, namespace=ns, gang=gang) for ns, gang in firing]
    return {
        "interval": "1m",
        "input_series": series.items,
        "alert_rule_test": [{"eval_time": f"{minute}m", "alertname": rule["alert"], "exp_alerts": expected}],
    }


def test_rules(
    tmp_path: Path, rule_file: dict[str, Any], tests: list[dict[str, Any]]
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rule_file, sort_keys=False), encoding="utf-8")
    spec = {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": tests}
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return run("test", "rules", str(tmp_path / "test.yaml"))


test_rules.__test__ = False  # a helper, not a pytest test
