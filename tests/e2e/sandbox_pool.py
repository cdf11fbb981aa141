"""Sandboxes shared across e2e modules: one running sandbox per model and start options, reused while clean.

A sandbox takes 30 to 80 s to start on two cores. Modules whose model and
:class:`~gpufleet.sandbox.up.Options` are the same lease one from the session's
:class:`Pool` (the ``sandbox_pool`` fixture of tests/e2e/conftest.py) instead of each
starting its own::

    @pytest.fixture(scope="module")
    def sandbox(sandbox_pool):
        with sandbox_pool.lease(DEV, Options(controller=False)) as sb:
            yield sb

    POOL = pool_key(DEV, Options(controller=False))  # module level: groups the module with its peers

A module isolates itself: its own namespaces (apply them in its fixture, idempotently)
and names, and it deletes what it created. When a lease ends the pool waits, bounded,
until no workload is left outside the engines' namespaces (:data:`WORKLOAD_KINDS`);
a sandbox still holding one is stopped, never lent again, so a module never sees
another's leftovers and does not depend on another having run. So is a sandbox one of whose
processes has stopped (:func:`stopped`), and one its module marked ``spoiled`` (a change an engine
does not survive, such as deleting the CRD of a kind Kueue integrates: Kueue 0.19.2 then exits
two minutes later, after the lease has ended, seen in a CI run on 2026-12-04). One idle sandbox at
most is kept: leasing another key, or any module starting its own sandbox
(``sandbox_env.running``), stops it first. ``conftest.py`` orders the modules so that
those with the same ``POOL`` run one after another, and stops every sandbox by its PIDs
at the end of the session. :func:`pool_key` is pure (tests/sandbox/test_sandbox_pool_key.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from gpufleet.sandbox.state import load
from gpufleet.sandbox.up import Options

WORKLOAD_KINDS = (
    ("v1", "Pod"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("batch.volcano.sh/v1alpha1", "Job"),
    ("scheduling.volcano.sh/v1beta1", "PodGroup"),
    ("kueue.x-k8s.io/v1beta2", "Workload"),
)
"""What a module must have deleted before its sandbox is lent again (in any namespace but the engines' own)."""
SYSTEM_NAMESPACES = frozenset({"kube-system", "kube-public", "kube-node-lease"})
CLEAN_TIMEOUT = 90.0


def stopped(sb: Any) -> list[str]:
    """``<name> stopped`` for each of the sandbox's processes that no longer runs (by its recorded PID and start)."""
    state = getattr(sb, "state", None)
    state = load(state.dir) if state is not None else None  # as recorded now: a module may have restarted one
    if state is None:
        return []
    return [f"{p['name']} stopped" for p in state.status()["processes"] if p["state"] != "running"]


def pool_key(model: dict[str, Any] | Path, options: Options = Options()) -> str:
    """The identity of a sandbox: the model (a file's text, or plain data in any key order) and every option."""
    if isinstance(model, Path):
        text = model.read_text()
    else:
        text = json.dumps(model, sort_keys=True, separators=(",", ":"))
    opts = json.dumps(dataclasses.asdict(options), sort_keys=True, separators=(",", ":"), default=list)
    digest = hashlib.sha256(f"{text}\0{opts}".encode()).hexdigest()[:16]
    return f"{model.name if isinstance(model, Path) else 'data'}-{digest}"


def leftovers(list_objects: Callable[[str, str], list[dict[str, Any]]], engine_namespaces: set[str]) -> list[str]:
    """``kind namespace/name`` of every workload (:data:`WORKLOAD_KINDS`) outside the system and engine namespaces."""
    spare = SYSTEM_NAMESPACES | engine_namespaces
    out = []
    for api_version, kind in WORKLOAD_KINDS:
        for obj in list_objects(api_version, kind):
            meta = obj["metadata"]
            if meta.get("namespace") not in spare:
                out.append(f"{kind} {meta.get('namespace')}/{meta['name']}")
    return out


def grouped(modules: list[tuple[str, str | None]]) -> list[str]:
    """Module names in run order: each module with a pool key pulls the later ones of the same key up behind it."""
    order: list[str] = []
    placed: set[str] = set()
    for name, key in modules:
        if name in placed:
            continue
        for other, other_key in modules:
            if other == name or (key is not None and other_key == key and other not in placed):
                order.append(other)
                placed.add(other)
    return order


def _served_list(kube, api_version: str, kind: str) -> list[dict[str, Any]]:
    """Every ``kind`` object, none where the sandbox does not serve the kind (Volcano off)."""
    from kubernetes.dynamic.exceptions import ResourceNotFoundError

    try:
        return kube.list(api_version, kind)
    except ResourceNotFoundError:
        return []


class Pool:
    """The session's shared sandboxes (one running per key at most, one idle at most)."""

    def __init__(self, root: Path, start: Callable[..., Any]) -> None:
        self.root, self._start = root, start
        self.idle: dict[str, Any] = {}  # key -> (context manager, Sandbox)
        self.leases: list[tuple[str, bool]] = []  # (key, reused) per lease, for the session's summary
        self.retired: list[str] = []  # why a sandbox was stopped before the session's end

    @contextmanager
    def lease(self, model: dict[str, Any] | Path, options: Options = Options()) -> Iterator[Any]:
        key = pool_key(model, options)
        self.retire_idle(keep=key)
        entry = self.idle.pop(key, None)
        self.leases.append((key, entry is not None))
        if entry is None:
            folder = self.root / f"{key}-{len(self.leases)}"
            folder.mkdir(parents=True)
            cm = self._start(model, folder, options)
            entry = (cm, cm.__enter__())
        ok = False
        try:
            yield entry[1]
            ok = True
        finally:
            left = self._drain(entry[1]) if ok else ["the module failed"]
            left += [*getattr(entry[1], "spoiled", []), *stopped(entry[1])]
            if left:
                self.retired.append(f"{key}: {', '.join(left[:5])}")
                entry[0].__exit__(None, None, None)
            else:
                self.idle[key] = entry

    def _drain(self, sb) -> list[str]:
        """Wait, bounded, until the module's workloads are gone; what is left."""
        fleet = sb.fleet
        engines = {fleet.engines.kueue.namespace, fleet.engines.volcano.namespace, fleet.controller.namespace}
        deadline = time.monotonic() + CLEAN_TIMEOUT
        while True:
            try:
                left = leftovers(lambda v, k: _served_list(sb.kube, v, k), engines)
            except Exception as exc:  # noqa: BLE001 - an API the sandbox does not serve, or the sandbox broke
                return [f"{type(exc).__name__}: {str(exc)[:200]}"]
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(1)

    def retire_idle(self, keep: str | None = None) -> None:
        """Stop every idle sandbox but ``keep``'s (by their PIDs: ``sandbox_env.running``'s exit)."""
        for key in [k for k in self.idle if k != keep]:
            cm, _ = self.idle.pop(key)
            cm.__exit__(None, None, None)

    def close(self) -> None:
        self.retire_idle()
