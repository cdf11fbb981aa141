"""The e2e tier's sandbox: one real control plane with the real engines per test module (or per group of
modules that lease the same one: tests/e2e/sandbox_pool.py).

``running(fleet, tmp)`` starts ``gpufleet.sandbox.up`` for a model (a builder's
:class:`Fleet`, written to a file) and stops every process by its PID afterwards. It
skips only where Go itself is missing; engines that are not built fail the test with
the build command (``scripts/test.sh`` builds them before the tier). Helpers submit
workloads and read what the engines did, each wait bounded.
"""

from __future__ import annotations

import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from gpufleet.kubetypes.vocab import KWOK_NODE_ANNOTATION
from gpufleet.lint.runner import lint
from gpufleet.model import Fleet, load_model
from gpufleet.rules.api import CheckContext, Finding
from gpufleet.sandbox.kube import Kube, wait_for
from gpufleet.sandbox.state import State, down
from gpufleet.sandbox.up import Options, up
from gpufleet.settings import fleet_context_from_model
from tests.render.builders import pool, quota, team

VC_API = "batch.volcano.sh/v1alpha1"


def require_go() -> None:
    if shutil.which("go") is None:
        pytest.skip("Go is not on PATH: the e2e tier builds the real engines from their Go modules")


class Sandbox:
    def __init__(self, state: State, fleet: Fleet) -> None:
        self.state, self.fleet = state, fleet
        self.kube = Kube(Path(state.kubeconfig))
        self.spoiled: list[str] = []
        """Why this sandbox must not be lent again (tests/e2e/sandbox_pool.py stops it when its lease ends)."""

    def apply(self, manifest: dict[str, Any]) -> dict[str, Any]:
        return self.kube.apply(manifest)

    def create(self, manifest: dict[str, Any]) -> dict[str, Any]:
        return self.kube.create(manifest)

    def pods(self, namespace: str, **labels: str) -> list[dict[str, Any]]:
        selector = ",".join(f"{k}={v}" for k, v in labels.items())
        return self.kube.list("v1", "Pod", namespace, **({"label_selector": selector} if selector else {}))

    def bound(self, namespace: str, **labels: str) -> list[dict[str, Any]]:
        return [p for p in self.pods(namespace, **labels) if p["spec"].get("nodeName")]

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        return self.kube.get(api_version, kind, name, namespace)

    def workloads(self, namespace: str) -> list[dict[str, Any]]:
        return self.kube.list("kueue.x-k8s.io/v1beta2", "Workload", namespace)

    def workload(self, namespace: str, owner: str) -> dict[str, Any] | None:
        """Kueue's Workload of the job (or pod group) named ``owner``, if Kueue made one."""
        return next(
            (
                w
                for w in self.workloads(namespace)
                if any(o["name"] == owner for o in w["metadata"].get("ownerReferences", []))
            ),
            None,
        )

    def lint(self, docs: list[dict[str, Any]]) -> list[Finding]:
        """What ``gpufleet lint --fleet <this sandbox's model> -`` finds in ``docs`` (the linter's run, one YAML stream)."""
        ctx = CheckContext(fleet=fleet_context_from_model(self.state.model))
        return lint(["-"], ctx, stdin_text=yaml.safe_dump_all(docs, sort_keys=False)).findings

    def wait(self, what: str, probe, timeout: float = 90.0, interval: float = 1.0):
        return wait_for(what, probe, timeout, interval)

    def settle(self, seconds: float) -> None:
        """Let the schedulers run a few cycles before asserting that something did *not* happen."""
        time.sleep(seconds)

    def apply_volcano_job(self, job: dict[str, Any], settle: float) -> None:
        """Apply a Volcano Job, wait until its controller has given it a state, then ``settle``."""
        name, namespace = job["metadata"]["name"], job["metadata"]["namespace"]
        self.apply(job)
        self.wait(
            "the Volcano Job to be seen by its controller",
            lambda: (self.get(VC_API, "Job", name, namespace) or {}).get("status", {}).get("state"),
            timeout=60,
        )
        self.settle(settle)


def condition(obj: dict[str, Any] | None, kind: str) -> dict[str, Any]:
    """The ``kind`` condition of ``obj``'s status ({} when absent)."""
    return next((c for c in (obj or {}).get("status", {}).get("conditions", []) if c["type"] == kind), {})


def model(pools: list[dict], teams: list[dict], cohorts: list[dict] | None = None, **extra: Any) -> dict[str, Any]:
    """A fleet model as plain data (the render tests' builders make the pools, teams and quotas)."""
    return {
        "apiVersion": "gpufleet.dev/v1alpha1",
        "kind": "Fleet",
        "name": "e2e",
        "pools": pools,
        "cohorts": cohorts if cohorts is not None else [{"name": "ml"}],
        "teams": teams,
        **extra,
    }


@contextmanager
def running(data: dict[str, Any] | Path, tmp: Path, options: Options = Options()) -> Iterator[Sandbox]:
    """A sandbox of the model ``data`` (plain data, or a model file such as stacks/dev.fleet.yaml)."""
    require_go()
    if isinstance(data, Path):
        path = data
    else:
        path = tmp / "model.fleet.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False))
    fleet: Fleet = load_model(path)
    if POOL is not None:
        POOL.retire_idle()  # one sandbox running at a time: a pooled one left idle would slow this one
    began = time.monotonic()
    state = up(fleet, str(path), tmp / "sandbox", options)
    STARTS.append((tmp.name, time.monotonic() - began))
    try:
        yield Sandbox(state, fleet)
    finally:
        down(state, keep=True)


STARTS: list[tuple[str, float]] = []
"""(folder, seconds) of every sandbox :func:`running` started this session: tests/e2e/conftest.py reports them."""
POOL: Any = None
"""The session's :class:`tests.e2e.sandbox_pool.Pool` while the e2e tier runs (set by tests/e2e/conftest.py)."""


@contextmanager
def volcano_team(tmp: Path, nodes: int, gpus: int, namespace: str, team_name: str = "research") -> Iterator[Sandbox]:
    """A sandbox of one Volcano pool ``p`` of ``nodes`` x 8 GPUs and one team owning ``namespace`` with ``gpus`` of quota,
    no admission controller, once the team's Volcano queue is Open (Volcano's webhook refuses jobs before)."""
    data = model(
        pools=[pool("p", system="volcano", nodes=nodes)],
        teams=[team(team_name, {"p": quota(gpus)}, namespaces=[namespace], volcanoNamespaces=[namespace])],
        engines={"volcano": {"enabled": True}},
    )
    with running(data, tmp, Options(controller=False)) as sb:
        sb.wait(
            f"Volcano queue {team_name} Open",
            lambda: (
                (sb.get("scheduling.volcano.sh/v1beta1", "Queue", team_name) or {}).get("status", {}).get("state")
                == "Open"
            ),
            timeout=120,
        )
        yield sb


def trainer(gpus: int) -> dict[str, Any]:
    """The trainer container of every rank: ``gpus`` GPUs requested and limited, one CPU requested."""
    return {
        "name": "trainer",
        "image": "trainer:1",
        "resources": {
            "requests": {"nvidia.com/gpu": str(gpus), "cpu": "1"},
            "limits": {"nvidia.com/gpu": str(gpus)},
        },
    }


def gpu_toleration() -> dict[str, str]:
    """Tolerates the GPU nodes' ``nvidia.com/gpu`` NoSchedule taint."""
    return {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def rank_template(
    name: str,
    gpus: int,
    scheduler: str | None = None,
    node_selector: dict[str, str] | None = None,
    tolerations: list[dict] | None = None,
) -> dict[str, Any]:
    """The pod template of every rank of job ``name``: the trainer, labelled ``app=name``, never restarted in
    place, tolerating the GPU taint unless ``tolerations`` are given."""
    spec: dict[str, Any] = {"containers": [trainer(gpus)], "restartPolicy": "Never"}
    if scheduler:
        spec["schedulerName"] = scheduler
    if node_selector:
        spec["nodeSelector"] = node_selector
    spec["tolerations"] = tolerations or [gpu_toleration()]
    return {"metadata": {"labels": {"app": name}}, "spec": spec}


def job(
    name: str,
    namespace: str,
    pods: int,
    gpus: int = 8,
    scheduler: str | None = None,
    labels: dict[str, str] | None = None,
    node_selector: dict[str, str] | None = None,
    tolerations: list[dict] | None = None,
    suspend: bool | None = None,
) -> dict[str, Any]:
    """A batch/v1 Indexed Job of ``pods`` ranks that each ask for ``gpus`` GPUs (the essay's trainer)."""
    body: dict[str, Any] = {
        "parallelism": pods,
        "completions": pods,
        "completionMode": "Indexed",
        "backoffLimit": 0,
        "template": rank_template(name, gpus, scheduler, node_selector, tolerations),
    }
    if suspend is not None:
        body["suspend"] = suspend
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
        "spec": body,
    }


def vcjob(
    name: str,
    namespace: str,
    pods: int,
    gpus: int = 8,
    queue: str | None = None,
    min_available: int | None = None,
    node_selector: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A Volcano Job of one task of ``pods`` ranks, gang-scheduled (minAvailable = all ranks by default)."""
    spec: dict[str, Any] = {
        "schedulerName": "volcano",
        "minAvailable": pods if min_available is None else min_available,
        "policies": [{"event": "PodEvicted", "action": "RestartJob"}],
        "tasks": [
            {
                "name": "worker",
                "replicas": pods,
                "template": rank_template(name, gpus, node_selector=node_selector),
            }
        ],
    }
    if queue:
        spec["queue"] = queue
    return {"apiVersion": VC_API, "kind": "Job", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def launcher_job(name: str, min_available: int, namespace: str = "alpha-vc", queue: str = "alpha") -> dict[str, Any]:
    """Issue 31's Volcano Job: two 2-GPU workers and a launcher task that ``dependsOn`` them (3 pods)."""
    body = vcjob(name, namespace, pods=2, gpus=2, queue=queue, min_available=min_available)
    launcher = {
        "name": "launcher",
        "replicas": 1,
        "dependsOn": {"name": ["worker"]},
        "template": {
            "metadata": {"labels": {"app": name}},
            "spec": {"containers": [{"name": "launcher", "image": "launcher:1"}], "restartPolicy": "Never"},
        },
    }
    body["spec"]["tasks"].append(launcher)
    return body


def system_node() -> dict:
    """An untainted fake node, as a real cluster has system nodes: the controller's Deployment lands there (every
    prod pool is GPU-tainted, so a `pulumi up` of prod waits forever for it without one)."""
    resources = {"cpu": "16", "memory": "64Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "system-0",
            "annotations": {KWOK_NODE_ANNOTATION: "fake"},
            "labels": {"kubernetes.io/hostname": "system-0", "kubernetes.io/os": "linux", "type": "kwok"},
        },
        "status": {
            "capacity": resources,
            "allocatable": dict(resources),
            "nodeInfo": {"kubeletVersion": "fake", "architecture": "amd64", "operatingSystem": "linux"},
        },
    }
