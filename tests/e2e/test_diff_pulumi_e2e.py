"""Every ``gpufleet diff`` scenario as a real ``pulumi up`` of the edited prod model (issue 18).

One sandbox (``--engines-only``: the real control plane, Kueue and Volcano, and the
gang-admission controller's backend, unregistered) and one stack ``prod`` for the module:
the project's own program, run by the Pulumi CLI, language host and Kubernetes provider
built from their Go modules (``tests/e2e/pulumi_env.py``). The stack is the prod stack
file plus the sandbox's config, with ``gpufleet:model`` pointing at a model file this
module writes in the project copy, and neither cert-manager nor prometheus-operator (the
sandbox has neither). Fake nodes are capped at 4 per pool (these scenarios are about
objects, not placement). Volcano runs without ``/queues/validate``: its v1.14.1 validator
refuses the prod hierarchy that the pinned v1.15.1 accepts (test_diff_e2e.py explains;
docs/sandbox.md, "Versions"), so no Volcano queue step can be refused here. The prod
model enables the controller and all its pools carry the GPU taint: the sandbox adds one
untainted fake node, as a real cluster has system nodes, for the controller's Deployment.

Per scenario of ``tests/diff/test_scenarios.py`` (plus removing a live team): the stack is
brought to the base model, the edited model is written, ``gpufleet diff BASE NEW --format
json`` predicts, and ``pulumi up --json`` runs. Compared:

- the exit code: diff's 0 (every step accepted) is pulumi's 0, diff's 1 a failed update;
- the steps: Pulumi's ``create``, ``update``, ``delete``, and for a delete-before-replace
  ``delete-replaced`` then ``create-replacement`` (diff's ``delete`` with ``replaced`` and
  ``replace``), each mapped to kind and name through the stack's state; every step Pulumi
  starts is predicted, every ``ok`` one is done, no ``rejected`` or ``blocked`` one is
  done, and a protected one Pulumi attempts fails "because it is protected";
  ``protect``/``unprotect`` steps are no engine step (Pulumi reports them ``same``): the
  state's protect flag is checked instead, and a retained namespace's delete leaves it live;
- the order: for every dependency the engine recorded in the state between two stepped
  resources, diff's order and Pulumi's (a step starts after the one it waits for ended)
  agree; deletes of removed objects come after every other step; the delete half of a
  delete-before-replace ends before its create starts, and the old half of a
  create-before-delete (a params ConfigMap named by its content) starts after its
  replacement and every other step ended.

Resetting: scenarios run in ``ORDER`` (drain, retire and remove a retired team chain, each
starting where the previous one ended). Bringing the stack to a base is ``pulumi state
unprotect --all`` then ``pulumi up`` of the base, which writes the base's protect flags
back; the unprotect is needed because adding a team, or a removal refused half-way, leaves
protected objects that the base does not have and a plain ``up`` may not delete. The
namespaces that "remove a retired team" releases stay in the cluster; the next base ``up``
creates them again over the live ones (provider v4.25.0 applies server-side and does not
refuse an existing object). The immutable changes of the in-use ``h100`` pool run last:
Pulumi's delete of the old Topology or ResourceFlavor is accepted and then waits on Kueue's
finalizer (the provider's delete timeout is 10 minutes); the test sees it held with the
update still running, stops ``pulumi up`` with SIGINT (the provider cancels the wait, the
step fails), then removes the finalizer and runs ``pulumi refresh`` so the state forgets it.
"""

from __future__ import annotations

import copy
import json
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.sandbox.up import Options
from tests.conftest import shared_or_none
from tests.diff.test_scenarios import IN_USE, PROD, SCENARIOS, remove
from tests.e2e.pulumi_env import REPO, Result, Workspace, events
from tests.e2e.sandbox_env import Sandbox, running, system_node

pytestmark = pytest.mark.shared  # the CRDs of ../shared when present (shared_or_none): runs both ways

NEEDS_PULUMI = True  # runs the Pulumi engines, built last: waits for the whole build, runs last (engine_wait)

STACK = "prod"
MODEL = "stacks/edited.fleet.yaml"  # the stack's gpufleet:model, in the project copy
CASES = {name: (base, new) for name, (base, new, _) in SCENARIOS.items()}
CASES["remove a live team"] = ((), (remove("eval"),))
ORDER = [
    "resize a pool",
    "grow a team (after growing its pool)",
    "shrink a team",
    "move quota between siblings",
    "change a priority value",
    "add a team",
    "remove a live team",
    "drain a team",
    "retire a drained team",
    "remove a retired team",
]
assert sorted(ORDER) == sorted(CASES), "every scenario of tests/diff/test_scenarios.py runs here: add it to ORDER"
PULUMI_OPS = {
    "create": "create",
    "update": "update",
    "delete": "delete",
    "delete-replaced": "delete",
    "create-replacement": "replace",
}
HOLD = 10.0  # seconds a delete held by a finalizer must stay held with `pulumi up` still waiting


def edited(*edits) -> dict:
    data = copy.deepcopy(PROD)
    for edit in edits:
        edit(data)
    return data


@dataclass
class Stack:
    sandbox: Sandbox
    ws: Workspace
    at: dict | None
    """The model of the last successful ``pulumi up``; None after a failed or stopped one."""

    def write(self, data: dict) -> Path:
        path = self.ws.project / MODEL
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        return path


def _tail(result: Result) -> str:
    return result.out[-3000:] + result.err[-3000:]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("diff-pulumi")
    base = tmp / "prod.fleet.yaml"
    base.write_text(yaml.safe_dump(PROD))
    with running(
        base, tmp / "sandbox", Options(node_cap=4, engines_only=True, volcano_without=("/queues/validate",))
    ) as sb:
        sb.create(system_node())
        ws = Workspace(sb.state, tmp)
        out = Stack(sb, ws, None)
        out.write(PROD)
        ws.stack(
            STACK, **{"gpufleet:model": MODEL, "gpufleet:certManager": "false", "gpufleet:prometheusOperator": "false"}
        )
        first = ws.up(STACK)
        assert first.code == 0, _tail(first)
        out.at = PROD
        yield out


def bring_to(stack: Stack, data: dict) -> None:
    if stack.at == data:
        return
    stack.ws.cli("state", "unprotect", "-s", STACK, "--all", "--yes", check=True)
    stack.write(data)
    reset = stack.ws.up(STACK)
    assert reset.code == 0, _tail(reset)
    stack.at = data


def predict(stack: Stack, base: dict, new: dict) -> tuple[int, list[dict]]:
    """``gpufleet diff BASE NEW --format json`` (with the CRDs of ../shared when present): exit code and steps."""
    base_file = stack.ws.root / "base.fleet.yaml"
    base_file.write_text(yaml.safe_dump(base, sort_keys=False))
    found = shared_or_none("crds")
    crds = ["--crds", str(found)] if found is not None else []
    done = subprocess.run(
        [
            str(REPO / ".venv" / "bin" / "gpufleet"),
            "diff",
            str(base_file),
            str(stack.write(new)),
            "--format",
            "json",
            *crds,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)["steps"]


@dataclass
class Real:
    """One step the engine started: ``op`` in diff's terms, its resource, and how it ended."""

    op: str
    resource: str
    urn: str
    replaced: bool
    start: int
    end: int | None = None
    outcome: str = "running"
    message: str = ""
    label: str = ""


def label(kind: str, namespace: str | None, name: str) -> str:
    return f"{kind} {namespace + '/' if namespace else ''}{name}"


def real_steps(stream: list[dict[str, Any]], states: list[list[dict]]) -> list[Real]:
    """The Kubernetes steps of a ``pulumi up --json`` run, in the order they started, named through the stack's state."""
    found: dict[tuple[str, str], Real] = {}
    errors: dict[str, str] = {}
    for event in stream:
        diag = event.get("diagnosticEvent") or {}
        if diag.get("severity") == "error" and diag.get("urn"):
            errors[diag["urn"]] = errors.get(diag["urn"], "") + diag["message"]
        for name in ("resourcePreEvent", "resOutputsEvent", "resOpFailedEvent"):
            meta = (event.get(name) or {}).get("metadata")
            if not meta or meta["op"] not in PULUMI_OPS or not meta["type"].startswith("kubernetes:"):
                continue
            key = (meta["op"], meta["urn"])
            if name == "resourcePreEvent":
                found[key] = Real(
                    PULUMI_OPS[meta["op"]],
                    meta["urn"].split("::")[-1],
                    meta["urn"],
                    meta["op"] == "delete-replaced",
                    event["sequence"],
                )
            else:
                found[key].end, found[key].outcome = (
                    event["sequence"],
                    "done" if name == "resOutputsEvent" else "failed",
                )
    names = {r["urn"]: r["outputs"] for state in states for r in state if (r.get("outputs") or {}).get("metadata")}
    first = {
        r["urn"]: r["outputs"] for state in reversed(states) for r in state if (r.get("outputs") or {}).get("metadata")
    }
    for step in found.values():
        fallback = {"kind": step.urn.split("::")[0].split(":")[-1], "metadata": {"name": step.resource}}
        out = (first if step.op == "delete" else names).get(step.urn, fallback)  # the old object's name, if it changed
        step.label, step.message = (
            label(out["kind"], out["metadata"].get("namespace"), out["metadata"]["name"]),
            errors.get(step.urn, ""),
        )
    return sorted(found.values(), key=lambda s: s.start)


def step_disagreements(predicted: list[dict], real: list[Real]) -> list[str]:
    by = {(s.op, s.label): s for s in real}
    wanted = {
        (p["op"], label(p["kind"], p["namespace"], p["name"])): p
        for p in predicted
        if p["op"] not in ("protect", "unprotect")
    }
    out = [f"pulumi {op} {what} ({by[(op, what)].outcome}): not predicted" for op, what in by.keys() - wanted.keys()]
    for key, p in wanted.items():
        s = by.get(key)
        if p["verdict"] == "ok" and (s is None or s.outcome != "done"):
            out.append(f"{key}: diff ok, pulumi {s.outcome + ' ' + s.message[:300] if s else 'did not start it'}")
        elif p["verdict"] != "ok" and s is not None and s.outcome == "done":
            out.append(f"{key}: diff {p['verdict']} ({p['reason'][:200]}), pulumi did it")
        elif "protected" in p["reason"] and s is not None and "because it is protected" not in s.message:
            out.append(f"{key}: diff blocked by protect, pulumi {s.outcome}: {s.message[:300]}")
    return out


def dependencies(state: list[dict]) -> dict[str, set[str]]:
    """Resource name -> the names of the resources the engine recorded it depends on."""
    return {r["urn"].split("::")[-1]: {d.split("::")[-1] for d in r.get("dependencies", [])} for r in state}


def order_disagreements(predicted: list[dict], real: list[Real], before: list[dict], after: list[dict]) -> list[str]:
    where = {(p["op"], p["resource"]): i for i, p in enumerate(predicted)}
    forward = {s.resource: s for s in real if s.op != "delete"}
    removed = {s.resource: s for s in real if s.op == "delete" and not s.replaced}
    out = []
    for edges, steps, first_is_dependent in (
        (dependencies(after), forward, False),
        (dependencies(before), removed, True),
    ):
        for name, step in steps.items():
            for dep in edges.get(name, set()) & steps.keys():
                first, then = (step, steps[dep]) if first_is_dependent else (steps[dep], step)
                if not where[(first.op, first.resource)] < where[(then.op, then.resource)]:
                    out.append(
                        f"diff puts {then.op} {then.label} before {first.op} {first.label}, which the engine orders first"
                    )
                if first.end is None or first.end > then.start:
                    out.append(f"pulumi started {then.op} {then.label} before {first.op} {first.label} ended")
    # the old half of a create-before-delete is a delete too: it goes with the deletes, in any order among them
    last = max((s.end or s.start for s in real if s.resource not in removed and s.op != "delete"), default=-1)
    out += [f"pulumi deleted {s.label} before the other steps ended" for s in removed.values() if s.start < last]
    out += [
        f"diff deletes {p['name']} before a later {q['op']}"
        for i, p in enumerate(predicted)
        if p["op"] == "delete" and not p["replaced"]
        for q in predicted[i + 1 :]
        if q["op"] != "delete"
    ]
    for s in real:
        if s.replaced:
            half = next((r for r in real if r.op == "replace" and r.resource == s.resource), None)
            if where.get(("replace", s.resource), -1) > where[("delete", s.resource)]:  # delete-before-replace
                if half is not None and (s.end is None or s.end > half.start):
                    out.append(f"pulumi created {s.label} again before its delete ended")
                if where[("delete", s.resource)] + 1 != where.get(("replace", s.resource)):
                    out.append(f"diff does not put the replace of {s.label} right after its delete")
            elif half is None or half.end is None or s.start < max(r.end or r.start for r in real if r.op != "delete"):
                # create-before-delete: the old one goes with the deletes, after its replacement and every update
                out.append(f"pulumi deleted the old {s.label} before its replacement and the other steps ended")
    return out


def state_disagreements(stack: Stack, predicted: list[dict], after: list[dict]) -> list[str]:
    """Protect flags written by protect/unprotect steps, and namespaces released (not deleted) with retainOnDelete."""
    flags = {r["urn"].split("::")[-1]: bool(r.get("protect")) for r in after}
    out = [
        f"{p['resource']}: diff {p['op']}, state protect={flags.get(p['resource'])}"
        for p in predicted
        if p["op"] in ("protect", "unprotect") and flags.get(p["resource"]) != (p["op"] == "protect")
    ]
    for p in predicted:
        if p["op"] == "delete" and "retainOnDelete" in p["reason"] and p["verdict"] == "ok":
            live = stack.sandbox.get("v1", "Namespace", p["name"])
            if live is None or live["metadata"].get("deletionTimestamp"):
                out.append(f"namespace {p['name']}: diff says released, but it is gone from the cluster")
    return out


@pytest.mark.shared  # with the CRDs of ../shared when present
@pytest.mark.parametrize("name", ORDER)
def test_pulumi_up_of_the_edited_model_takes_the_steps_diff_predicts_in_a_compatible_order(stack, name):
    base_edits, new_edits = CASES[name]
    base, new = edited(*base_edits), edited(*new_edits)
    bring_to(stack, base)
    code, predicted = predict(stack, base, new)
    before = stack.ws.resources(STACK)
    result, stream = stack.ws.up_events(STACK)
    stack.at = new if result.code == 0 else None
    after = stack.ws.resources(STACK)
    real = real_steps(stream, [before, after])
    assert (code == 0) == (result.code == 0), f"diff exit {code}, pulumi exit {result.code}: {_tail(result)}"
    assert step_disagreements(predicted, real) == []
    assert order_disagreements(predicted, real, before, after) == []
    assert state_disagreements(stack, predicted, after) == []


def _held(sandbox: Sandbox, step: dict) -> dict | None:
    live = sandbox.get(step["apiVersion"], step["kind"], step["name"], step["namespace"])
    return live if live and live["metadata"].get("deletionTimestamp") else None


def _stop(proc: subprocess.Popen) -> str:
    """Stop a running ``pulumi up`` by its PID (SIGINT: the engine cancels the provider's wait); its stdout."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=120)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()[0]


def _release(stack: Stack, step: dict) -> None:
    """Let the held object go (drop Kueue's finalizer) and make the state forget it (``pulumi refresh``)."""
    res = stack.sandbox.kube.resource(step["apiVersion"], step["kind"])
    res.patch(name=step["name"], body={"metadata": {"finalizers": None}}, content_type="application/merge-patch+json")
    stack.sandbox.wait(
        "the held object gone", lambda: stack.sandbox.get(step["apiVersion"], step["kind"], step["name"]) is None
    )
    stack.ws.cli("refresh", "-s", STACK, "--yes", "--skip-preview", check=True)


@pytest.mark.shared  # with the CRDs of ../shared when present
@pytest.mark.parametrize("name", IN_USE)
def test_an_immutable_change_of_a_pool_in_use_holds_pulumi_up_on_kueues_finalizer_where_diff_says_blocked(stack, name):
    new = edited(*IN_USE[name][0])
    bring_to(stack, PROD)
    code, predicted = predict(stack, PROD, new)
    delete, replace = predicted[:2]
    assert code == 1 and delete["verdict"] == replace["verdict"] == "blocked" and delete["replaced"]
    before = stack.ws.resources(STACK)
    proc = stack.ws.start_up(STACK)
    stack.at = None
    try:
        held = stack.sandbox.wait("the old object terminating", lambda: _held(stack.sandbox, delete), timeout=120)
        stack.sandbox.settle(HOLD)
        waiting = proc.poll() is None and _held(stack.sandbox, delete) is not None
    finally:
        out = _stop(proc)
    real = real_steps(events(out), [before])
    try:
        assert waiting, f"pulumi up exited {proc.returncode} within {HOLD}s of the delete: {out[-3000:]}"
        assert any(f.startswith("kueue.x-k8s.io/") for f in held["metadata"].get("finalizers", []))
        assert proc.returncode != 0
        assert [(s.op, s.resource, s.outcome) for s in real if s.resource == delete["resource"]] == [
            ("delete", delete["resource"], "failed")
        ]
        assert step_disagreements(predicted, real) == []
    finally:
        _release(stack, delete)
