"""`pulumi up` of the prod stack interrupted mid-apply (SIGINT, then SIGKILL), run again: it converges (issue 30).

The real Pulumi CLI, language host and Kubernetes provider against a sandbox of the prod
model (its engines only, at most two fake nodes per pool: the objects are what counts
here, not placement, plus one untainted node for the controller's Deployment; Volcano's
queue check is left out, as in tests/e2e/test_diff_e2e.py, for the version gap
docs/sandbox.md describes). As in tests/e2e/test_diff_pulumi_e2e.py, the stack runs with
``gpufleet:certManager`` and ``gpufleet:prometheusOperator`` off: the sandbox runs neither
(its certificate is the sandbox's own, ``gpufleet:controllerTlsDir``). The first ``pulumi
up`` runs in a process group of its own, which gets SIGINT once a third of its objects
exist and SIGKILL a second later, as a terminal's Ctrl-C and then a CI runner's kill reach
every process of the update (the CLI, its language host, the program, the provider). Then
``pulumi up`` again. If the killed update left the stack's lock ("the stack is currently
locked ... `pulumi cancel`"), ``pulumi cancel`` first: the one step the CLI asks for. Then
``pulumi up`` must succeed, a ``preview --expect-no-changes`` must be clean, and every
object the provider created must be in the stack's state exactly once (nothing orphaned,
nothing duplicated).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections import Counter
from dataclasses import dataclass

import pytest

from gpufleet.sandbox.up import Options
from tests.e2e.pulumi_env import REPO, Result, Workspace, events, kubernetes_objects
from tests.e2e.sandbox_env import running, system_node

NEEDS_PULUMI = True  # runs the Pulumi engines, built last: waits for the whole build, runs last (engine_wait)

# Volcano v1.14.1 (the one that builds) refuses the prod stack's queue tree that v1.15.1 accepts (docs/sandbox.md)
QUEUE_CHECK = ("/queues/validate",)
MANAGED = "app.kubernetes.io/managed-by"
LOCKED = "the stack is currently locked"  # the CLI's refusal while a killed update's lock file remains


@dataclass(frozen=True)
class Retries:
    first: Result  # the first `pulumi up` after the kill
    converged: Result  # the same, or the one after `pulumi cancel` when the first was refused for the lock  # the label the Kubernetes provider puts on every object it creates


def interrupted_up(ws: Workspace, stack: str, after: int) -> tuple[int, list[str]]:
    """``pulumi up`` sent SIGINT once ``after`` objects exist and SIGKILL a second later; (objects done, its output)."""
    process = subprocess.Popen(
        ["pulumi", "up", "-s", stack, "--yes", "--skip-preview", "--json", "--non-interactive"],
        cwd=ws.project,
        env=ws.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    done = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if sum('"resOutputsEvent"' in seen for seen in lines) >= after:
                done.set()
        done.set()

    threading.Thread(target=read, daemon=True).start()
    done.wait(600)
    os.killpg(process.pid, signal.SIGINT)  # the whole process group, as a terminal's Ctrl-C or a CI runner
    time.sleep(1.0)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(30)
    return sum(1 for e in events("".join(lines)) if "resOutputsEvent" in e), lines


@pytest.fixture(scope="module")
def converged(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pulumi-interrupt")
    options = Options(engines_only=True, node_cap=2, volcano_without=QUEUE_CHECK)
    with running(REPO / "stacks" / "prod.fleet.yaml", tmp / "sandbox", options) as sb:
        sb.create(system_node())
        ws = Workspace(sb.state, tmp)
        ws.stack("prod", **{"gpufleet:certManager": "false", "gpufleet:prometheusOperator": "false"})
        plan = subprocess.run(
            [str(REPO / ".venv" / "bin" / "gpufleet"), "plan", "stacks/prod.fleet.yaml", "--format", "json"],
            cwd=ws.project,
            capture_output=True,
            text=True,
            timeout=120,
        )
        total = sum(json.loads(plan.stdout)["objects"].values())
        outputs, _ = interrupted_up(ws, "prod", after=total // 3)
        first_retry = ws.up("prod")
        again = first_retry
        if first_retry.code != 0 and LOCKED in first_retry.err:
            ws.cli("cancel", "-s", "prod", "--yes", check=True)  # the one step Pulumi asks for
            again = ws.up("prod")
        yield sb, ws, total, outputs, Retries(first_retry, again)


def test_the_first_up_was_cut_short(converged):
    _, _, total, outputs, _ = converged
    assert 0 < outputs < total


def test_the_only_thing_a_killed_up_leaves_in_the_way_is_the_stacks_lock(converged):
    retries = converged[4]
    assert retries.first.code == 0 or LOCKED in retries.first.err, retries.first.out[-3000:] + retries.first.err[-3000:]


def test_pulumi_up_again_succeeds_with_at_most_pulumi_cancel_before_it(converged):
    again = converged[4].converged
    assert again.code == 0, again.out[-4000:] + again.err[-4000:]


def test_a_preview_after_it_expects_no_changes(converged):
    _, ws, _, _, _ = converged
    preview = ws.preview("prod", "--expect-no-changes")
    assert preview.code == 0, preview.out[-4000:]


def test_every_object_the_provider_created_is_in_the_state_exactly_once(converged):
    sb, ws, _, _, _ = converged
    state = kubernetes_objects(ws.resources("prod"))
    recorded = Counter(
        (r["type"], r["outputs"].get("metadata", {}).get("namespace"), r["outputs"]["metadata"]["name"]) for r in state
    )
    assert max(recorded.values()) == 1, [k for k, n in recorded.items() if n > 1]
    in_state = {(k[0].split(":")[-1], k[1], k[2]) for k in recorded}
    for api_version, kind in {(r["outputs"]["apiVersion"], r["outputs"]["kind"]) for r in state}:
        for obj in sb.kube.list(api_version, kind):
            meta = obj["metadata"]
            if (meta.get("labels") or {}).get(MANAGED) == "pulumi":
                assert (kind, meta.get("namespace"), meta["name"]) in in_state, f"orphaned: {kind} {meta['name']}"
