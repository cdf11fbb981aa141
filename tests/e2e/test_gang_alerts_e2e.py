"""End to end on loopback: a real Prometheus evaluates the rendered rules against a trainer using gpufleet.steps.

The test starts and stops everything itself, with 1-second scrape and evaluation
intervals and a 4-second startup budget, so it ends in well under a minute:

- a static endpoint standing in for kube-state-metrics (two gangs of two Running pods
  on a node of pool ``l4``, with ``kube_pod_labels{label_gpufleet_dev_gang}``);
- two sample trainer processes (``tests/e2e/trainer.py``): gang ``stuck`` never
  completes a step, gang ``training`` steps; Prometheus scrapes them with the labels
  the rendered PodMonitor's relabelings would give (``namespace``, ``gang``);
- Prometheus from Debian's ``prometheus`` package with the rule file ``gpufleet render`` writes.

GangNoFirstStep must reach ``firing`` through ``/api/v1/alerts`` for ``stuck`` and
stay inactive for ``training``, although both have been Running past the budget.
What this does not show: a real kube-state-metrics, the prometheus-operator turning
the PodMonitor into that scrape configuration, and a real cluster's timings.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from gpufleet.render.files import rule_file_text
from tests.render.builders import fleet, pool, quota, team

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NS = "alpha"
BUDGET = 4
HOLD = 2
DEADLINE = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ksm_text(started: float) -> str:
    lines = ['kube_node_labels{node="n1",label_gpufleet_dev_pool="l4"} 1']
    for gang in ("stuck", "training"):
        for i in range(2):
            ids = f'namespace="{NS}",pod="{gang}-{i}",uid="uid-{gang}-{i}"'
            lines.append(f'kube_pod_labels{{{ids},label_gpufleet_dev_gang="{gang}"}} 1')
            lines += [f'kube_pod_status_phase{{{ids},phase="{p}"}} {int(p == "Running")}' for p in ("Pending", "Running", "Failed")]
            lines.append(f'kube_pod_info{{{ids},node="n1",created_by_kind="Job",created_by_name="{gang}"}} 1')
            lines.append(f"kube_pod_start_time{{{ids}}} {started}")
    return "\n".join(lines) + "\n"


class _KubeStateMetrics(ThreadingHTTPServer):
    """Static kube-state-metrics stand-in; the pods "start" when Prometheus first scrapes it."""

    daemon_threads = True

    def __init__(self, port: int) -> None:
        started: list[float] = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                started.append(started[0] if started else time.time())
                body = _ksm_text(started[0]).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return

        super().__init__(("127.0.0.1", port), Handler)


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


def _alerts(base: str) -> dict[str, str]:
    """{gang: state} of GangNoFirstStep."""
    data = _get(f"{base}/api/v1/alerts")["data"]["alerts"]
    return {a["labels"]["gang"]: a["state"] for a in data if a["labels"].get("alertname") == "GangNoFirstStep"}


def _value(base: str, query: str) -> list:
    return _get(f"{base}/api/v1/query?query={urllib.request.quote(query)}")["data"]["result"]


@pytest.fixture
def prometheus_bin() -> str:
    path = shutil.which("prometheus")
    if path is None:
        pytest.skip("the prometheus server is not installed: `bash scripts/test.sh` installs Debian's prometheus package "
                    "(apt-get install -y prometheus) when run as root with apt-get")
    return path


def test_gang_no_first_step_fires_for_a_wedged_trainer_and_not_for_a_stepping_one(tmp_path, prometheus_bin):
    model = fleet(pools=[pool("l4", startupBudget=f"{BUDGET}s")], teams=[team(NS, quota={"l4": quota(8)})],
                  observability={"alertFor": f"{HOLD}s"})
    (tmp_path / "rules.yaml").write_text(rule_file_text(model), encoding="utf-8")
    ksm_port, stuck_port, training_port, prom_port = (_free_port() for _ in range(4))
    ksm = _KubeStateMetrics(ksm_port)
    threading.Thread(target=ksm.serve_forever, daemon=True).start()
    trainers = [subprocess.Popen([sys.executable, str(HERE / "trainer.py"), str(port), str(total), str(DEADLINE)], cwd=ROOT)
                for port, total in ((stuck_port, 0), (training_port, 1000))]

    def trainer_job(gang: str, port: int) -> dict:
        return {"job_name": f"trainer-{gang}", "static_configs": [
            {"targets": [f"127.0.0.1:{port}"], "labels": {"namespace": NS, "gang": gang}}]}

    config = {"global": {"scrape_interval": "1s", "evaluation_interval": "1s"}, "rule_files": ["rules.yaml"],
              "scrape_configs": [{"job_name": "kube-state-metrics", "static_configs": [{"targets": [f"127.0.0.1:{ksm_port}"]}]},
                                 trainer_job("stuck", stuck_port), trainer_job("training", training_port)]}
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    server = subprocess.Popen(
        [prometheus_bin, f"--config.file={tmp_path / 'prometheus.yml'}", f"--storage.tsdb.path={tmp_path / 'data'}",
         f"--web.listen-address=127.0.0.1:{prom_port}"], stdout=subprocess.DEVNULL, stderr=(tmp_path / "prometheus.log").open("w"))
    base = f"http://127.0.0.1:{prom_port}"
    try:
        states: dict[str, str] = {}
        seen: set[tuple[str, str]] = set()
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline and states.get("stuck") != "firing":
            time.sleep(0.5)
            try:
                states = _alerts(base)
            except OSError:
                continue  # not listening yet
            seen |= set(states.items())
        log = (tmp_path / "prometheus.log").read_text(encoding="utf-8")[-2000:]
        assert states.get("stuck") == "firing", f"alerts {states}; prometheus log tail:\n{log}"
        assert ("stuck", "pending") in seen  # went through pending: held for alertFor first
        assert [state for gang, state in seen if gang == "training"] == []  # never pending, never firing
        stepped = _value(base, f'max by (gang) (gpufleet_training_step{{namespace="{NS}"}}) >= 1')
        assert [r["metric"]["gang"] for r in stepped] == ["training"]
        running = _value(base, f"min by (gang) (gpufleet:gang_pod:running_seconds) > {BUDGET}")
        assert sorted(r["metric"]["gang"] for r in running) == ["stuck", "training"]  # both past the budget
        assert "training" not in _alerts(base)
    finally:
        server.terminate()
        for proc in trainers:
            proc.terminate()
        for proc in (server, *trainers):
            proc.wait(timeout=20)
        ksm.shutdown()
        ksm.server_close()
