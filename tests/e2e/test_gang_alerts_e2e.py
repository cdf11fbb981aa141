"""End to end on loopback: a real Prometheus evaluates the rendered rules against real step reporters and kube-state-metrics' exposition.

One scenario (about 20 s; 1-second scrape and evaluation intervals, a 4-second startup
budget, ``alertFor`` 2 s), then one test per thing it must show:

- two kube-state-metrics replicas (``tests/e2e/ksm_standin.py``: the exact v2.20.0
  exposition of the pods and nodes, only the labels the rendered allowlist names),
  scraped the way the rendered ServiceMonitor says (``honorLabels``) with the target
  labels prometheus-operator gives them (``namespace``/``pod`` of the kube-state-metrics
  pod); they disagree on the phase of a pod that just started;
- gang ``stuck`` (2 Running pods and the Failed pod of a Job retry): its trainer calls
  ``steps.start()`` and never steps; gang ``training`` steps; gang ``restarting`` steps,
  then its rank is restarted in place like ``torchrun --max-restarts`` does (a new
  process on the same port serving step 0) and never steps again;
- the trainers are scraped with the labels the rendered PodMonitor's relabelings give
  (``namespace``, ``gang``); Prometheus (Debian's package) loads ``gpufleet render``'s rule file.

Not shown here: a real kube-state-metrics and API server (the sandbox test loads the
same rules through :mod:`tests.e2e.prom`), prometheus-operator turning the monitors
into this scrape configuration, real clusters' timings.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gpufleet.kubetypes.vocab import GANG_LABEL
from gpufleet.render.files import rule_file_text
from gpufleet.render.kube_state_metrics import allowlist_entries
from gpufleet.render.monitoring import render_ksm_service_monitor
from gpufleet.sandbox.procs import free_ports
from tests.e2e.ksm_standin import KubeStateMetrics
from tests.e2e.prom import Prometheus, prometheus_binary, scrape_job
from tests.render import ksm
from tests.render.builders import fleet, pool, quota, team

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NS = "alpha"
BUDGET = 4
HOLD = 2
DEADLINE = 60.0
GANGS = ("stuck", "training", "restarting")
MODEL = fleet(
    pools=[pool("l4", startupBudget=f"{BUDGET}s")],
    teams=[team(NS, quota={"l4": quota(8)})],
    observability={"alertFor": f"{HOLD}s"},
)


def _objects(started: list[float], replica: int):
    """The cluster as replica ``replica`` sees it; pods start at the first scrape."""

    def objects(now: float) -> list:
        if not started:
            started.append(now)
        t0 = started[0]
        out: list = [ksm.Node("n1", {"gpufleet.dev/pool": "l4", "kubernetes.io/hostname": "n1"})]
        for gang in GANGS:
            out += [
                ksm.Pod(
                    NS,
                    f"{gang}-{i}",
                    "Running",
                    {GANG_LABEL: gang},
                    "n1",
                    t0,
                    (ksm.Container("trainer", t0),),
                    ("Job", gang),
                )
                for i in range(2)
            ]
        out.append(
            ksm.Pod(
                NS,
                "stuck-0-retried",
                "Failed",
                {GANG_LABEL: "stuck"},
                "n1",
                t0,
                (ksm.Container("trainer", t0),),
                ("Job", "stuck"),
            )
        )
        late = ("Running", "n1", now - 1) if replica == 0 else ("Pending", "", None)  # replica 1 lags behind
        out.append(ksm.Pod(NS, "late-0", late[0], {GANG_LABEL: "late"}, late[1], late[2], owner=("Job", "late")))
        return out

    return objects


@dataclass
class Run:
    """What the scenario observed."""

    seen: set[tuple[str, str]] = field(default_factory=set)  # (gang, state) of GangNoFirstStep ever seen
    final: dict[str, str] = field(default_factory=dict)
    queries: dict[str, list] = field(default_factory=dict)
    rule_errors: set[str] = field(default_factory=set)
    restarted_for: float = 0.0  # seconds the restarted rank served step 0 before the end


def _trainer(mode: str, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "GPUFLEET_STEPS_PORT": str(port), "GPUFLEET_STEPS_HOST": "127.0.0.1"}
    return subprocess.Popen([sys.executable, str(HERE / "trainer.py"), mode, str(DEADLINE + 30)], cwd=ROOT, env=env)


def _listening(port: int, timeout: float = 15.0) -> None:
    """Wait (bounded) until a trainer's reporter accepts connections: it serves from start, before any step."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() >= deadline:
                raise AssertionError(f"no step reporter listens on 127.0.0.1:{port} after {timeout:g}s") from None
            time.sleep(0.1)


def _scrape_configs(ksm_ports: list[int], trainer_ports: dict[str, int]) -> list[dict]:
    endpoint = render_ksm_service_monitor(MODEL)["spec"]["endpoints"][0]
    operator_labels = [
        {
            "namespace": "kube-system",
            "pod": f"kube-state-metrics-{i}",
            "container": "kube-state-metrics",
            "service": "kube-state-metrics",
            "endpoint": endpoint["port"],
        }
        for i in range(len(ksm_ports))
    ]
    jobs = [
        scrape_job(
            "kube-state-metrics",
            [f"127.0.0.1:{p}" for p in ksm_ports],
            honor_labels=endpoint["honorLabels"],
            per_target=operator_labels,
        )
    ]
    jobs += [
        scrape_job(f"trainer-{gang}", [f"127.0.0.1:{port}"], {"namespace": NS, "gang": gang, "pod": f"{gang}-0"})
        for gang, port in trainer_ports.items()
    ]
    return jobs


def _observe(prom: Prometheus, run: Run, agent: subprocess.Popen[bytes]) -> None:
    """Crash the ``restarting`` rank once Prometheus saw it step; poll until ``stuck`` fires and the restarted
    rank has served 0 long enough to have fired too (bounded)."""
    restarted_at: list[float] = []
    crashed = False
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        time.sleep(0.5)
        try:
            states = prom.alert_states("GangNoFirstStep")
            run.rule_errors |= set(prom.rule_errors())
            if not crashed and prom.query('gpufleet_training_step{gang="restarting"} >= 1'):
                agent.send_signal(signal.SIGUSR1)
                crashed = True
            if (
                crashed
                and not restarted_at
                and prom.query('gpufleet_training_step{gang="restarting"} == 0')
                and prom.query('gpufleet:gang:last_step_timestamp_seconds{gang="restarting"}')
            ):
                restarted_at.append(time.monotonic())
        except OSError:
            continue
        run.seen |= {(gang, state) for (_, gang), state in states.items()}
        run.final = {gang: state for (_, gang), state in states.items()}
        if (
            run.final.get("stuck") == "firing"
            and restarted_at
            and time.monotonic() - restarted_at[0] > BUDGET + HOLD + 3
        ):
            run.restarted_for = time.monotonic() - restarted_at[0]
            return


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Run:
    binary = prometheus_binary()
    workdir = tmp_path_factory.mktemp("gang-alerts-e2e")
    allow = ksm.parse_allowlist(allowlist_entries(MODEL))
    started: list[float] = []
    picked = free_ports(2 + len(GANGS))  # distinct, below the ephemeral range (gpufleet.sandbox.procs)
    replicas = [KubeStateMetrics(picked[r], _objects(started, r), allow).start() for r in (0, 1)]
    ports = dict(zip(GANGS, picked[2:]))
    trainers = [_trainer(gang, port) for gang, port in ports.items()]
    prom = Prometheus(
        workdir,
        {"rules.yaml": rule_file_text(MODEL)},
        _scrape_configs([r.server_address[1] for r in replicas], ports),
        binary=binary,
    )
    result = Run()
    try:
        for port in ports.values():
            _listening(port)
        with prom:
            _observe(prom, result, trainers[GANGS.index("restarting")])
            for name, expr in {
                "stepped": f'max by (gang) (gpufleet_training_step{{namespace="{NS}"}}) >= 1',
                "remembered": "gpufleet:gang:last_step_timestamp_seconds",
                "running": f"min by (gang) (gpufleet:gang_pod:running_seconds) > {BUDGET}",
                "up": 'min_over_time(up{job=~"trainer-(stuck|training)"}[1h])',
                "exported": 'count({job="kube-state-metrics", exported_namespace!=""})',
                "pod_labels": f'count(kube_pod_labels{{job="kube-state-metrics", namespace="{NS}"}})',
            }.items():
                result.queries[name] = prom.query(expr)
            result.rule_errors |= set(prom.rule_errors())
    finally:
        for proc in trainers:
            proc.terminate()
        for proc in trainers:
            proc.wait(timeout=20)
        for replica in replicas:
            replica.stop()
    return result


def _gangs(rows: list) -> list[str]:
    return sorted(r["metric"].get("gang", "") for r in rows)


def test_a_gang_whose_trainer_never_steps_goes_pending_then_fires_gang_no_first_step(run):
    assert run.final.get("stuck") == "firing", run
    assert ("stuck", "pending") in run.seen  # held for alertFor first
    assert _gangs(run.queries["running"]) == ["restarting", "stuck", "training"]  # all past the budget


def test_a_stepping_gang_never_pages(run):
    assert [state for gang, state in run.seen if gang == "training"] == []


def test_a_rank_restarted_in_place_serving_step_zero_never_pages(run):
    assert run.restarted_for > BUDGET + HOLD
    assert [state for gang, state in run.seen if gang == "restarting"] == []
    assert _gangs(run.queries["stepped"]) == ["training"]  # the restarted rank serves 0 now...
    assert _gangs(run.queries["remembered"]) == ["restarting", "training"]  # ...but the gang is remembered as stepped


def test_the_reporters_serve_from_start_so_their_targets_are_never_down(run):
    assert sorted(r["metric"]["job"] for r in run.queries["up"]) == ["trainer-stuck", "trainer-training"]
    assert all(r["value"][1] == "1" for r in run.queries["up"])


def test_kube_state_metrics_labels_are_honored_and_disagreeing_replicas_break_no_rule(run):
    assert run.queries["exported"] == []
    assert run.queries["pod_labels"] and int(run.queries["pod_labels"][0]["value"][1]) > 0
    assert run.rule_errors == set()
    assert "late" not in run.final  # inside its budget on the replica that saw it start
