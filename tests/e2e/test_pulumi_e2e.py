"""`pulumi up`, `preview --policy-pack` and `destroy` for real, for the dev and the mixed stack (issue 18).

The Pulumi CLI, gpufleet's Python language host and the Kubernetes provider, built from
their Go modules (``sandbox/engines/pulumi*``), run the project's own program against a
fresh sandbox per stack. The sandbox runs the engines and the controller's backend only
(``gpufleet sandbox up --engines-only``); the stack installs everything else, with
``gpufleet:enginesInstalled`` and the controller registered at the sandbox's backend by
URL, serving the sandbox's certificate (``gpufleet:controllerUrl``, ``controllerTlsDir``).
As on a cluster where a team already has its namespace, one team namespace is created by
hand before the first ``pulumi up``.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter

import pytest
from kubernetes.client.exceptions import ApiException

from gpufleet.sandbox.up import Options
from tests.e2e.pulumi_env import REPO, Workspace, kubernetes_objects
from tests.e2e.sandbox_env import VC_API, running, vcjob

NEEDS_PULUMI = True  # runs the Pulumi engines, built last: waits for the whole build, runs last (engine_wait)

STACKS = ("dev", "mixed")
EXISTING = {"dev": "alpha", "mixed": "llm"}  # a team namespace made by hand before the first up
VOLCANO_TEAM = {"dev": ("alpha-vc", "alpha"), "mixed": ("llm-vc", "llm")}  # a Volcano namespace and its team queue
WEBHOOKS = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")


@pytest.fixture(scope="module", params=STACKS)
def deployed(request, tmp_path_factory):
    stack = request.param
    tmp = tmp_path_factory.mktemp(f"pulumi-{stack}")
    with running(REPO / "stacks" / f"{stack}.fleet.yaml", tmp / "sandbox", Options(engines_only=True)) as sandbox:
        ws = Workspace(sandbox.state, tmp)
        ws.stack(stack)
        sandbox.apply(
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": EXISTING[stack], "labels": {"owner": "platform-team"}},
            }
        )
        first, stream = ws.up_events(stack)
        yield stack, sandbox, ws, first, stream


def label(resource: dict) -> str:
    """A stack resource's kind as ``gpufleet plan`` names it."""
    group, kind = resource["type"].split(":")[1:]
    return "Volcano Queue" if group.startswith("scheduling.volcano.sh/") else kind


def plan_objects(ws: Workspace, stack: str) -> Counter:
    done = subprocess.run(
        [str(REPO / ".venv" / "bin" / "gpufleet"), "plan", f"stacks/{stack}.fleet.yaml", "--format", "json"],
        cwd=ws.project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert plan["stack"]["enginesInstalled"] is True, plan["stack"]
    return Counter(plan["objects"])


def test_pulumi_up_succeeds_and_creates_exactly_the_objects_gpufleet_plan_lists(deployed):
    stack, sandbox, ws, first, events = deployed
    assert first.code == 0, first.out[-3000:] + first.err[-3000:]
    assert [e["summaryEvent"]["result"] for e in events if "summaryEvent" in e] == ["succeeded"]
    objects = kubernetes_objects(ws.resources(stack))
    assert Counter(label(r) for r in objects) == plan_objects(ws, stack)
    missing = []
    for r in objects:
        out = r["outputs"]
        meta = out["metadata"]
        if sandbox.get(out["apiVersion"], out["kind"], meta["name"], meta.get("namespace")) is None:
            missing.append(r["urn"])
    assert missing == []


def test_a_team_namespace_that_existed_is_adopted_with_the_stacks_labels_and_keeps_its_own(deployed):
    """pulumi-kubernetes 4.25.0 (the pin) server-side applies over an existing object; it does not refuse it."""
    stack, sandbox, _, first, _ = deployed
    assert first.code == 0
    labels = sandbox.get("v1", "Namespace", EXISTING[stack])["metadata"]["labels"]
    assert labels["owner"] == "platform-team"
    assert labels["gpufleet.dev/fleet"] == stack and labels["gpufleet.dev/team"]


def test_a_second_pulumi_up_changes_nothing(deployed):
    stack, _, ws, first, _ = deployed
    assert first.code == 0
    again = ws.up(stack, "--expect-no-changes")
    assert again.code == 0, again.out[-3000:]
    assert ws.preview(stack, "--expect-no-changes").code == 0


def _seq(events: list[dict], kind: str, urn_part: str) -> list[int]:
    return [e["sequence"] for e in events if kind in e and urn_part in e[kind]["metadata"]["urn"]]


def test_the_controllers_webhooks_are_registered_only_after_its_backend_is_ready(deployed):
    stack, sandbox, ws, first, events = deployed
    assert first.code == 0
    ready = _seq(events, "resOutputsEvent", "::gang-admission-deployment")
    registered = [s for hook in WEBHOOKS for s in _seq(events, "resourcePreEvent", f"{hook}::gang-admission-")]
    assert ready and len(registered) == 2, (ready, registered)
    assert max(ready) < min(registered)
    deployment = sandbox.get("apps/v1", "Deployment", "gang-admission-controller", "gpufleet-system")
    assert deployment["status"].get("readyReplicas") == deployment["spec"]["replicas"]


def test_the_api_server_calls_the_controller_the_stack_registered(deployed):
    stack, sandbox, _, first, _ = deployed
    assert first.code == 0
    namespace, queue = VOLCANO_TEAM[stack]
    unsafe = vcjob("partial", namespace, pods=2, gpus=2, queue=queue, min_available=1)
    with pytest.raises(ApiException) as refused:
        sandbox.create(unsafe)
    assert "GANG001" in refused.value.body
    assert sandbox.get(VC_API, "Job", "partial", namespace) is None


def test_preview_with_the_policy_pack_passes_the_stack(deployed):
    stack, _, ws, first, _ = deployed
    assert first.code == 0
    preview = ws.preview(stack, "--policy-pack", "policies", "--policy-pack-config", "policies/ci.json")
    assert preview.code == 0, preview.out[-3000:] + preview.err[-3000:]
    assert "gpufleet" in preview.out and "Policies:" in preview.out


def test_destroy_stops_at_protected_objects_then_removes_all_but_the_retained_namespaces(deployed):
    stack, sandbox, ws, first, _ = deployed
    assert first.code == 0
    protected = [r for r in ws.resources(stack) if r.get("protect")]
    assert protected
    stopped = ws.destroy(stack)
    assert stopped.code != 0 and "because it is protected" in (stopped.out + stopped.err)
    for r in protected:
        meta = r["outputs"]["metadata"]
        assert sandbox.get(r["outputs"]["apiVersion"], r["outputs"]["kind"], meta["name"], meta.get("namespace")), r[
            "urn"
        ]
    objects = kubernetes_objects(ws.resources(stack))
    ws.cli("state", "unprotect", "-s", stack, "--all", "--yes", check=True)
    done = ws.destroy(stack)
    assert done.code == 0, done.out[-3000:]
    left = []
    for r in objects:
        out, retained = r["outputs"], r.get("retainOnDelete", False)
        meta = out["metadata"]
        alive = sandbox.get(out["apiVersion"], out["kind"], meta["name"], meta.get("namespace"))
        if alive is not None and not alive["metadata"].get("deletionTimestamp") and not retained:
            left.append(r["urn"])
        if retained:
            assert alive is not None and out["kind"] == "Namespace", r["urn"]
    assert left == []
    assert ws.resources(stack) == []
