"""Prometheus' own tools for the gang-alert tests: finding promtool, and input series builders.

``promtool()`` returns the binary or skips with the reason (scripts/test.sh installs
Debian's ``prometheus`` package, which ships it, when run as root with apt). The
builders write kube-state-metrics series the way kube-state-metrics v2.20.0 names them
(docs/metrics/workload/pod-metrics.md) and the step reporter's series the way the
PodMonitor labels them (``namespace``, ``gang``).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

SKIP_REASON = ("promtool is not installed: `bash scripts/test.sh` installs it (apt-get install -y prometheus) when run "
               "as root with apt-get; elsewhere install Prometheus' promtool to run the alert tests")


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        pytest.skip(SKIP_REASON)
    return path


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([promtool(), *args], capture_output=True, text=True, timeout=120)


@dataclass
class Series:
    """Input series of one ``promtool test rules`` case (``values`` in promtool's expanding notation)."""

    items: list[dict[str, str]] = field(default_factory=list)

    def add(self, metric: str, labels: dict[str, str], values: str) -> "Series":
        body = ",".join(f'{k}="{v}"' for k, v in labels.items())
        self.items.append({"series": f"{metric}{{{body}}}", "values": values})
        return self

    def node(self, node: str, pool: str, samples: int) -> "Series":
        return self.add("kube_node_labels", {"node": node, "label_gpufleet_dev_pool": pool}, f"1x{samples}")

    def pod(self, namespace: str, gang: str, pod: str, phase: str, samples: int, node: str = "",
            start: int = 0) -> "Series":
        """A gang pod in one phase for the whole test; scheduled (with a start time) when it has a node."""
        ids = {"namespace": namespace, "pod": pod, "uid": f"uid-{pod}"}
        self.add("kube_pod_labels", {**ids, "label_gpufleet_dev_gang": gang}, f"1x{samples}")
        for each in ("Pending", "Running", "Succeeded", "Failed", "Unknown"):
            self.add("kube_pod_status_phase", {**ids, "phase": each}, f"{int(each == phase)}x{samples}")
        self.add("kube_pod_info", {**ids, "node": node, "created_by_kind": "Job", "created_by_name": gang}, f"1x{samples}")
        if node:
            self.add("kube_pod_start_time", ids, f"{start}x{samples}")
        return self

    def steps(self, namespace: str, gang: str, pod: str, step: str, timestamp: str) -> "Series":
        labels = {"namespace": namespace, "gang": gang, "pod": pod}
        self.add("gpufleet_training_step", labels, step)
        return self.add("gpufleet_training_step_timestamp_seconds", labels, timestamp)


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


def test_rules(tmp_path: Path, rule_file: dict[str, Any], tests: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rule_file, sort_keys=False), encoding="utf-8")
    spec = {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": tests}
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return run("test", "rules", str(tmp_path / "test.yaml"))


test_rules.__test__ = False  # a helper, not a pytest test
