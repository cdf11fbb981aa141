"""Faults on the real engines: every component SIGKILLed and restarted once while gangs run (issue 30).

The dev stack's sandbox (real etcd, kube-apiserver, controller manager and scheduler,
Kueue, the three Volcano processes and the gang-admission controller). Twelve gangs (Kueue
Jobs in the alpha and beta namespaces, more than their quota holds at once, and Volcano
Jobs in alpha-vc and beta-vc), each rank finishing after its run time through KWOK's
pod-complete stage; one more job is submitted before each fault. ``gpufleet.sandbox.chaos``
kills each component at a moment drawn from the seed (``GPUFLEET_FAULT_SEED``, default
30, printed in every failure) and restarts it, while a watcher checks from the API server
that no ClusterQueue goes past nominal + borrowing limit, no job has more live pods than
ranks, and no Volcano gang stays bound in part past the pool's budget. The longer run with
more faults is ``bench/faults_bench.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gpufleet.kubetypes.vocab import KWOK_COMPLETE_AFTER
from gpufleet.sandbox import chaos
from tests.e2e.sandbox_env import job, running, vcjob
from tests.sandbox.kernel import zombie_children

ROOT = Path(__file__).resolve().parents[2]
QUEUE = "kueue.x-k8s.io/queue-name"
SEED = int(os.environ.get("GPUFLEET_FAULT_SEED", "30"))
COMPONENTS = [
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kueue",
    "vc-webhook-manager",
    "vc-scheduler",
    "vc-controller-manager",
    "gang-admission-controller",
]
FREE = "elsewhere"  # not a team namespace: the controller's webhooks never see it
BUDGET = 300.0  # the t4 pool's coldStartBudget (5m): how long a Volcano gang may stay bound in part


def runs_for(manifest: dict, seconds: int) -> dict:
    """``manifest`` whose every rank finishes ``seconds`` after it is Running (KWOK's pod-complete delay)."""
    templates = (
        [t["template"] for t in manifest["spec"]["tasks"]]
        if "tasks" in manifest["spec"]
        else [manifest["spec"]["template"]]
    )
    for template in templates:
        template.setdefault("metadata", {}).setdefault("annotations", {})[KWOK_COMPLETE_AFTER] = f"{seconds}s"
    return manifest


def kueue_gang(name: str, team: str, pods: int, seconds: int) -> dict:
    return runs_for(job(name, team, pods, labels={QUEUE: team}, suspend=True), seconds)


def volcano_gang(name: str, namespace: str, seconds: int) -> dict:
    """A Volcano Job as a user writes it: the controller fills in queue, scheduler, minAvailable and policies."""
    body = vcjob(name, namespace, pods=2, gpus=2)
    for field in ("schedulerName", "minAvailable", "policies"):
        body["spec"].pop(field, None)
    body["spec"]["tasks"][0]["template"]["spec"].pop("restartPolicy")
    return runs_for(body, seconds)


def gangs(count: int = 12, prefix: str = "") -> list[dict]:
    """``count`` gangs (by default twelve: three first, then one before each of the nine faults), Kueue and Volcano in turn."""
    out = []
    for i in range(count):
        team = ("alpha", "beta")[(i // 2) % 2]
        if i % 2 == 0:
            out.append(kueue_gang(f"{prefix}k{i}", team, pods=2 if i % 3 else 1, seconds=20 + 4 * (i % 12)))
        else:
            out.append(volcano_gang(f"{prefix}v{i}", f"{team}-vc", seconds=15 + 3 * (i % 12)))
    return out


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("faults")
    with running(ROOT / "stacks" / "dev.fleet.yaml", tmp) as sb:
        sb.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": FREE}})
        probes = (job("probe", "alpha", 1, labels={QUEUE: "alpha"}, suspend=True), job("probe", FREE, 1, gpus=0))
        result = chaos.run(sb.state, sb.kube, gangs(), COMPONENTS, SEED, BUDGET, probes=probes)
    (tmp / "report.json").write_text(json.dumps(result.as_dict(), indent=2))
    return result


def said(report) -> str:
    return f"seed {report.seed}: {json.dumps(report.as_dict())[:3000]}"


def test_every_component_was_killed_once_and_came_back(report):
    assert sorted(f.component for f in report.faults) == sorted(COMPONENTS), said(report)
    assert all(f.recovered < 180 for f in report.faults), said(report)


def test_no_invariant_was_violated_while_the_engines_died_and_came_back(report):
    assert report.violations == [], said(report)


def test_every_killed_and_stopped_component_was_reaped_none_left_a_zombie(report):
    assert zombie_children(os.getpid()) == [], said(report)


def test_every_submitted_job_finished_or_carries_its_reason(report):
    assert report.submitted == 12 and report.finished + report.with_reason == 12, said(report)


def test_while_the_controller_was_down_only_team_namespaces_were_blocked_and_they_reopened(report):
    checks = next(f.checks for f in report.faults if f.component == "gang-admission-controller")
    assert checks == {
        "whileDownTeamNamespaceOpen": False,
        "whileDownOtherNamespaceOpen": True,
        "afterRestartTeamNamespaceOpen": True,
        "afterRestartOtherNamespaceOpen": True,
    }, said(report)
