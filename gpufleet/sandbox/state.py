"""The sandbox's folder and state file: what runs, its ports and kubeconfig; ``status`` and ``down``.

A sandbox lives in one folder (``--dir``; by default ``$GPUFLEET_SANDBOX_DIR`` or
``~/.local/state/gpufleet/sandbox``) holding ``state.json``, the PKI, the kubeconfig,
etcd's data and one log per process. ``state.json`` is written after every process
starts, so ``down`` stops whatever an interrupted ``up`` left running. Called by
``gpufleet.sandbox.up`` and ``gpufleet.cli.sandbox_cmds``.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpufleet.sandbox.procs import Proc, alive, stop_all

STATE_FILE = "state.json"
SERVERS = ("kube-apiserver", "etcd")
"""Stopped last, in this order, after every other process (their clients)."""


def default_dir() -> Path:
    if os.environ.get("GPUFLEET_SANDBOX_DIR"):
        return Path(os.environ["GPUFLEET_SANDBOX_DIR"])
    base = Path(os.environ.get("XDG_STATE_HOME", Path.home() / ".local" / "state"))
    return base / "gpufleet" / "sandbox"


@dataclass
class State:
    dir: Path
    model: str = ""
    kubeconfig: str = ""
    ports: dict[str, int] = field(default_factory=dict)
    processes: list[Proc] = field(default_factory=list)
    ready: bool = False
    stack: dict[str, str] = field(default_factory=dict)
    """With ``up --engines-only``: the Pulumi stack config that points a stack at this sandbox."""

    @property
    def path(self) -> Path:
        return self.dir / STATE_FILE

    def save(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        doc = {
            "model": self.model,
            "kubeconfig": self.kubeconfig,
            "ports": self.ports,
            "ready": self.ready,
            "processes": [p.as_dict() for p in self.processes],
            "stack": self.stack,
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc, indent=2) + "\n")
        tmp.replace(self.path)

    def add(self, proc: Proc) -> Proc:
        self.processes.append(proc)
        self.save()
        return proc

    def drop(self, proc: Proc) -> None:
        """Forget ``proc``, which has exited (a start tried again): it is neither stopped nor counted any more."""
        self.processes.remove(proc)
        self.save()

    def status(self) -> dict[str, Any]:
        procs = [
            {"name": p.name, "pid": p.pid, "state": "running" if alive(p) else "exited", "log": p.log}
            for p in self.processes
        ]
        running = sum(p["state"] == "running" for p in procs)
        overall = "running" if self.ready and running == len(procs) else "stopped" if running == 0 else "degraded"
        return {
            "state": overall,
            "dir": str(self.dir),
            "model": self.model,
            "kubeconfig": self.kubeconfig,
            "ports": self.ports,
            "processes": procs,
            "stack": self.stack,
        }


def load(directory: Path) -> State | None:
    path = directory / STATE_FILE
    if not path.is_file():
        return None
    doc = json.loads(path.read_text())
    return State(
        directory,
        doc.get("model", ""),
        doc.get("kubeconfig", ""),
        doc.get("ports", {}),
        [Proc.from_dict(p) for p in doc.get("processes", [])],
        bool(doc.get("ready")),
        doc.get("stack", {}),
    )


def down(state: State, keep: bool = False) -> list[str]:
    """Stop every recorded process by its PID: the API server's clients together, then the API server, then etcd;
    remove the folder unless ``keep``."""
    last_first = list(reversed(state.processes))
    stopped = [proc.name for proc in last_first if alive(proc)]
    # The API server's clients together (signalled, then each waited for: their shutdowns overlap), then the API
    # server, then etcd: an API server stopped with its clients still watching waits for them. Also reaps a process
    # that already exited (no zombie left in this process).
    clients = [p for p in last_first if p.name not in SERVERS]
    stop_all(clients)
    for name in SERVERS:
        stop_all([p for p in last_first if p.name == name])
    state.processes, state.ready = [], False
    if keep:
        state.save()
    else:
        shutil.rmtree(state.dir, ignore_errors=True)
    return stopped


def keep_logs_only(directory: Path) -> int:
    """Remove everything of a stopped sandbox's folder but its ``logs/`` (etcd's data, the PKI, the kubeconfig, the
    state file): what a failed run leaves to diagnose it. Returns the bytes kept. Called by ``gpufleet whatif``."""
    if not directory.is_dir():
        return 0
    for entry in directory.iterdir():
        if entry.name == "logs":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    logs = directory / "logs"
    return sum(f.stat().st_size for f in logs.rglob("*") if f.is_file()) if logs.is_dir() else 0
