"""The gang alerts on the real kube-state-metrics v2.20.0, scraping the sandbox's API server.

A sandbox of one 2-node pool (startup budget 5 s, alertFor 2 s); the gang-admission
controller stamps ``gpufleet.dev/gang`` on the ranks of two 2-rank Jobs admitted by the real
Kueue and kept Running by KWOK. The real kube-state-metrics (built by
``sandbox/engines/build.sh ksm``) runs with the ``--metric-labels-allowlist`` the model
renders; a real Prometheus scrapes it with ``honor_labels`` (the rendered
ServiceMonitor's setting) and one sample trainer that reports steps for gang
``training``. GangNoFirstStep must fire for ``stuck`` (Running, no step) and never for
``training``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpufleet.model import load_model
from gpufleet.render.files import rule_file_text
from gpufleet.render.kube_state_metrics import metric_labels_allowlist
from gpufleet.render.monitoring import render_ksm_service_monitor
from gpufleet.sandbox.engines import locate
from gpufleet.sandbox.probes import http_ok
from gpufleet.sandbox.procs import free_ports, start, stop, wait_until
from tests.e2e.prom import Prometheus, prometheus_binary, scrape_job
from tests.e2e.sandbox_env import job, model, running
from tests.render.builders import pool, quota, team

HERE = Path(__file__).resolve().parent
NS = "alpha"
DATA = model(
    pools=[pool("l4", nodes=2, startupBudget="5s")],
    teams=[team(NS, {"l4": quota(16)})],
    observability={"alertFor": "2s"},
)


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    binary = prometheus_binary()
    tmp = tmp_path_factory.mktemp("alerts-sandbox")
    with running(DATA, tmp) as sb:
        fleet = load_model(Path(sb.state.model))
        for name in ("stuck", "training"):
            sb.create(job(name, NS, pods=2, gpus=4, labels={"kueue.x-k8s.io/queue-name": NS}))
        sb.wait(
            "both gangs Running",
            lambda: len([p for p in sb.pods(NS) if p["status"].get("phase") == "Running"]) == 4,
            timeout=120,
        )
        gangs = {p["metadata"]["labels"].get("gpufleet.dev/gang") for p in sb.pods(NS)}
        ksm_port, telemetry, trainer_port = free_ports(3)
        ksm = start(
            "kube-state-metrics",
            [
                str(locate(["ksm"]).binary("kube-state-metrics")),
                f"--kubeconfig={sb.state.kubeconfig}",
                "--host=127.0.0.1",
                f"--port={ksm_port}",
                "--telemetry-host=127.0.0.1",
                f"--telemetry-port={telemetry}",
                "--resources=pods,nodes",
                f"--metric-labels-allowlist={metric_labels_allowlist(fleet)}",
            ],
            tmp / "ksm.log",
        )
        env = {**os.environ, "GPUFLEET_STEPS_PORT": str(trainer_port), "GPUFLEET_STEPS_HOST": "127.0.0.1"}
        trainer = subprocess.Popen([sys.executable, str(HERE / "trainer.py"), "training", "120"], env=env)
        endpoint = render_ksm_service_monitor(fleet)["spec"]["endpoints"][0]
        scrapes = [
            scrape_job(
                "kube-state-metrics",
                [f"127.0.0.1:{ksm_port}"],
                honor_labels=endpoint["honorLabels"],
                per_target=[{"namespace": "kube-system", "pod": "kube-state-metrics-0"}],
            ),
            scrape_job(
                "trainer-training",
                [f"127.0.0.1:{trainer_port}"],
                {"namespace": NS, "gang": "training", "pod": _pod_of(sb, "training")},
            ),
        ]
        try:
            wait_until(ksm, http_ok(f"http://127.0.0.1:{ksm_port}/metrics"), 60, "serving metrics")
            (tmp / "prom").mkdir()
            with Prometheus(tmp / "prom", {"rules.yaml": rule_file_text(fleet)}, scrapes, binary=binary) as prom:
                seen: set[tuple[str, str]] = set()
                # Until Prometheus has scraped the trainer once it cannot know the gang stepped (the pods were
                # Running past the 5 s budget before Prometheus started): judge from that scrape on.
                prom.wait_for(
                    lambda: prom.query('gpufleet_training_step{gang="training"} >= 1'),
                    timeout=60,
                    what="the trainer's first scraped step",
                )
                time.sleep(2)  # two rule evaluations (1 s each) past that scrape
                deadline = time.monotonic() + 90
                while time.monotonic() < deadline:
                    states = prom.alert_states("GangNoFirstStep")
                    seen |= {(gang, state) for (_, gang), state in states.items()}
                    if states.get((NS, "stuck")) == "firing":
                        break
                    time.sleep(1)
                time.sleep(8)  # the stepping gang had as long as the stuck one, and more
                seen |= {(gang, state) for (_, gang), state in prom.alert_states("GangNoFirstStep").items()}
                labels = prom.query(f'kube_pod_labels{{namespace="{NS}"}}')
                errors = prom.rule_errors()
        finally:
            trainer.terminate()
            trainer.wait(timeout=20)
            stop(ksm)
    return {"gangs": gangs, "seen": seen, "labels": labels, "errors": errors}


def _pod_of(sb, gang: str) -> str:
    return next(p["metadata"]["name"] for p in sb.pods(NS) if p["metadata"]["labels"].get("gpufleet.dev/gang") == gang)


def test_the_controller_stamped_each_gangs_ranks_with_its_gang_label(observed):
    assert observed["gangs"] == {"stuck", "training"}


def test_real_kube_state_metrics_exports_the_gang_label_with_the_rendered_allowlist(observed):
    assert {r["metric"].get("label_gpufleet_dev_gang") for r in observed["labels"]} == {"stuck", "training"}


def test_a_running_gang_that_never_steps_fires_gang_no_first_step(observed):
    assert ("stuck", "firing") in observed["seen"]
    assert observed["errors"] == []


def test_a_gang_that_steps_stays_quiet(observed):
    assert [s for g, s in observed["seen"] if g == "training"] == []
