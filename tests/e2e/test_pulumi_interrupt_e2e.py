"""`pulumi up` of the prod stack interrupted mid-apply (SIGINT, then SIGKILL), run again: it converges (issue 30).

The real Pulumi CLI, language host and Kubernetes provider against a sandbox of the prod
model (its engines only, at most two fake nodes per pool: the objects are what counts
here, not placement). The prod stack's config is used as it is but for the controller's
certificate: the sandbox serves its own (``gpufleet:controllerTlsDir``), so
``gpufleet:certManager`` is removed (the sandbox runs no cert-manager); the
prometheus-operator CRDs come from ../shared (the test skips without it). The first
``pulumi up`` is sent SIGINT once a third of its objects exist, and SIGKILL a second
later: an operator's Ctrl-C and a runner's kill. Then ``pulumi up`` again, with no other
step: it must succeed, a ``preview --expect-no-changes`` must be clean, and every object
the provider created must be in the stack's state exactly once (nothing orphaned,
nothing duplicated).
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections import Counter

import pytest

from gpufleet.sandbox.up import Options
from tests.conftest import shared_path
from tests.e2e.pulumi_env import REPO, Workspace, events, kubernetes_objects
from tests.e2e.sandbox_env import running

MANAGED = "app.kubernetes.io/managed-by"  # the label the Kubernetes provider puts on every object it creates


def crds(sandbox) -> None:
    import yaml

    for path in sorted(shared_path("crds", "prometheus-operator").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc and doc.get("kind") == "CustomResourceDefinition":
                sandbox.apply(doc)
    sandbox.kube.refresh()


def interrupted_up(ws: Workspace, stack: str, after: int) -> tuple[int, list[str]]:
    """``pulumi up`` sent SIGINT once ``after`` objects exist and SIGKILL a second later; (objects done, its output)."""
    process = ws.start_up(stack)
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
    process.send_signal(signal.SIGINT)
    time.sleep(1.0)
    if process.poll() is None:
        process.kill()
    process.wait(30)
    return sum(1 for e in events("".join(lines)) if "resOutputsEvent" in e), lines


@pytest.fixture(scope="module")
def converged(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pulumi-interrupt")
    with running(REPO / "stacks" / "prod.fleet.yaml", tmp / "sandbox", Options(engines_only=True, node_cap=2)) as sb:
        crds(sb)
        ws = Workspace(sb.state, tmp)
        ws.stack("prod")
        ws.cli("config", "rm", "-s", "prod", "gpufleet:certManager", check=True)
        plan = subprocess.run([str(REPO / ".venv" / "bin" / "gpufleet"), "plan", "stacks/prod.fleet.yaml", "--format",
                               "json"], cwd=ws.project, capture_output=True, text=True, timeout=120)
        total = sum(json.loads(plan.stdout)["objects"].values())
        outputs, _ = interrupted_up(ws, "prod", after=total // 3)
        again = ws.up("prod")
        yield sb, ws, total, outputs, again


def test_the_first_up_was_cut_short(converged):
    _, _, total, outputs, _ = converged
    assert 0 < outputs < total


def test_running_pulumi_up_again_succeeds_without_any_other_step(converged):
    _, _, _, _, again = converged
    assert again.code == 0, again.out[-4000:] + again.err[-4000:]


def test_a_preview_after_it_expects_no_changes(converged):
    _, ws, _, _, _ = converged
    preview = ws.preview("prod", "--expect-no-changes")
    assert preview.code == 0, preview.out[-4000:]


def test_every_object_the_provider_created_is_in_the_state_exactly_once(converged):
    sb, ws, _, _, _ = converged
    state = kubernetes_objects(ws.resources("prod"))
    recorded = Counter((r["type"], r["outputs"].get("metadata", {}).get("namespace"), r["outputs"]["metadata"]["name"])
                       for r in state)
    assert max(recorded.values()) == 1, [k for k, n in recorded.items() if n > 1]
    in_state = {(k[0].split(":")[-1], k[1], k[2]) for k in recorded}
    for api_version, kind in {(r["outputs"]["apiVersion"], r["outputs"]["kind"]) for r in state}:
        for obj in sb.kube.list(api_version, kind):
            meta = obj["metadata"]
            if (meta.get("labels") or {}).get(MANAGED) == "pulumi":
                assert (kind, meta.get("namespace"), meta["name"]) in in_state, f"orphaned: {kind} {meta['name']}"
