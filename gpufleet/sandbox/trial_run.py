"""``gpufleet try``'s sandbox: reuse the one running for the same model, else start one; the default timeout.

Called by :mod:`gpufleet.cli.try_cmds`. A sandbox already running in the folder is
reused only if it runs the same model file with the same choice of gang-admission
controller (else the trial would judge another stack): :class:`Mismatch` says which
and how to fix it. One this command started is stopped afterwards unless ``keep``.
The default timeout is the largest startup budget (:meth:`Fleet.startup_budget`) of
the pools the manifests land on (:func:`gpufleet.advise.jobs.collect`: by namespace,
node selector, kind), bounded by :data:`TIMEOUT_BOUNDS`: the sandbox pulls no image, so
the budget is an upper bound of what a real start needs, and a trial should not wait
eleven minutes for a gang that will never start (the settle time ends those sooner).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from gpufleet.advise.jobs import collect
from gpufleet.kubetypes.vocab import NVIDIA_GPU
from gpufleet.model.fleet import Fleet
from gpufleet.sandbox.kube import Kube
from gpufleet.sandbox.nodes import SANDBOX_POOL_LABEL
from gpufleet.sandbox.state import State, down, load
from gpufleet.sandbox.trial import TrialOptions, TrialResult, try_manifests
from gpufleet.sandbox.up import Options, up

TIMEOUT_BOUNDS = (30, 300)
CONTROLLER = "gang-admission-controller"


class Mismatch(RuntimeError):
    """A sandbox of another model, or with(out) the controller, runs in the folder."""


class TrialBroke(RuntimeError):
    """The sandbox failed under the trial (its API server gone, a clean-up that timed out): one line, not an outcome."""


@dataclass(frozen=True)
class Sandbox:
    state: State
    started: bool
    """This command started it (and stops it unless kept)."""


def default_timeout(fleet: Fleet, docs: list[Mapping[str, Any]], namespace: str) -> int:
    """The startup budget of the manifests' pools (every pool when none is placed), within the bounds."""
    placed = [{**d, "metadata": {"namespace": namespace, **(d.get("metadata") or {})}} for d in docs]
    jobs, _ = collect(fleet, placed)
    pools = [p for p in fleet.pools if p.name in {j.pool for j in jobs}] or list(fleet.pools)
    budget = max((fleet.startup_budget(p) for p in pools), default=TIMEOUT_BOUNDS[0])
    return max(TIMEOUT_BOUNDS[0], min(TIMEOUT_BOUNDS[1], budget))


def gpu_resources(fleet: Fleet) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p.gpu_resource for p in fleet.pools)) or (NVIDIA_GPU,)


def _check_reuse(state: State, model: Path, controller: bool) -> None:
    ran = Path(state.model).resolve() if state.model else None
    if ran != model.resolve():
        raise Mismatch(
            f"the sandbox in {state.dir} runs the model {state.model or '(unknown)'}, not {model} "
            f"(fix: pass another --dir, or `gpufleet sandbox down --dir {state.dir}` first)"
        )
    has = any(p.name == CONTROLLER for p in state.processes)
    if has != controller:
        with_ = "with" if has else "without"
        raise Mismatch(
            f"the sandbox in {state.dir} runs {with_} the gang-admission controller "
            f"(fix: {'add' if has else 'drop'} --no-controller, pass another --dir, or "
            f"`gpufleet sandbox down --dir {state.dir}` first)"
        )


def open_sandbox(fleet: Fleet, model: Path, directory: Path, options: Options) -> Sandbox:
    """The running sandbox of ``model`` in ``directory`` (started with any ``options`` but the same controller
    choice), or a new one with ``options`` (``gpufleet.sandbox.up``'s errors pass)."""
    state = load(directory)
    if state is not None and state.status()["state"] == "running":
        _check_reuse(state, model, options.controller)
        return Sandbox(state, started=False)
    return Sandbox(up(fleet, str(model.resolve()), directory, options), started=True)


def capped_pools(fleet: Fleet, docs: list[Mapping[str, Any]], namespace: str, nodes: Mapping[str, int]) -> list[str]:
    """A note for each pool the manifests land on that has fewer nodes in the sandbox (``nodes``: per pool) than in
    the model: there a job that fits the real fleet can come out neverAdmitted or partlyBound."""
    placed = [{**d, "metadata": {"namespace": namespace, **(d.get("metadata") or {})}} for d in docs]
    jobs, _ = collect(fleet, placed)
    out = []
    for pool in (p for p in fleet.pools if p.name in {j.pool for j in jobs}):
        have = nodes.get(pool.name, 0)
        if have < pool.node_count:
            gpus = pool.gpus_per_node
            out.append(
                f"pool {pool.name} has {have} of its {pool.node_count} nodes in this sandbox (a node cap): "
                f"{gpus * have} of its {gpus * pool.node_count} GPUs, and Volcano's queue capacity follows the nodes "
                f"that exist, so a job that fits the real fleet can come out neverAdmitted or partlyBound here "
                f"(fix: a sandbox without --node-cap)"
            )
    return out


def _nodes_per_pool(kube: Kube) -> dict[str, int]:
    out: dict[str, int] = {}
    for node in kube.list("v1", "Node"):
        pool = ((node.get("metadata") or {}).get("labels") or {}).get(SANDBOX_POOL_LABEL)
        if pool:
            out[pool] = out.get(pool, 0) + 1
    return out


def run(
    sandbox: Sandbox, docs: list[Mapping[str, Any]], options: TrialOptions, keep: bool, fleet: Fleet | None = None
) -> TrialResult:
    """One trial on ``sandbox``; the sandbox stopped afterwards if this command started it and ``keep`` is off.
    With ``fleet``, the result notes each pool the sandbox holds only in part (:func:`capped_pools`)."""
    stop = sandbox.started and not keep
    try:
        kube = Kube(Path(sandbox.state.kubeconfig))
        capped = [] if fleet is None else capped_pools(fleet, docs, options.namespace, _nodes_per_pool(kube))
        result = try_manifests(kube, docs, replace(options, clean=not stop))
        result.notes.extend(capped)
        return result
    finally:
        if stop:
            down(sandbox.state)
