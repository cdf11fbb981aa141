"""The e2e tier's Pulumi: the real CLI, language host and Kubernetes provider against a sandbox.

``workspace(sandbox, tmp)`` copies the project (``Pulumi.yaml``, ``__main__.py``,
``gpufleet/pulumi/``, ``stacks/``, ``policies/``) into ``tmp``, links its virtualenvs to the
repository's ``.venv`` (which has ``requirements.txt`` and gpufleet installed), and runs
the binaries ``sandbox/engines/build.sh`` built (engines ``pulumi`` and
``pulumi-kubernetes``) with everything local: a ``file://`` backend, a private
``PULUMI_HOME`` holding the provider installed from its binary, no plugin downloads, no
update checks. ``Workspace.stack(name)`` creates a stack whose config is the project's
stack file plus the sandbox's ``State.stack`` (``gpufleet sandbox up --engines-only``).
Every CLI call is bounded in time and returns its exit code and output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpufleet.sandbox.engines import locate
from gpufleet.sandbox.state import State
from tests.e2e.engine_wait import wait

REPO = Path(__file__).resolve().parents[2]
PROJECT = ("Pulumi.yaml", "__main__.py", "stacks", "policies")


def provider_version() -> str:
    """The Kubernetes provider version the installed SDK asks for (its pulumi-plugin.json; the pin, 4.25.0)."""
    from importlib import resources

    import pulumi_kubernetes

    return json.loads(resources.files(pulumi_kubernetes.__name__).joinpath("pulumi-plugin.json").read_text())["version"]


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


class Workspace:
    def __init__(self, state: State, root: Path) -> None:
        wait(None)  # scripts/test.sh builds the Pulumi engines last (tests/e2e/engine_wait.py)
        engines = locate(["pulumi", "pulumi-kubernetes"])
        self.state, self.root = state, root
        self.project = root / "project"
        self.home = root / "pulumi-home"
        self.env = {
            **os.environ,
            "PATH": f"{engines.binary('pulumi').parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PULUMI_HOME": str(self.home),
            "PULUMI_BACKEND_URL": f"file://{root / 'state'}",
            "PULUMI_CONFIG_PASSPHRASE": "e2e",
            "PULUMI_SKIP_UPDATE_CHECK": "true",
            "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
            "KUBECONFIG": state.kubeconfig,
            "PULUMI_SKIP_CONFIRMATIONS": "true",
        }
        self._copy_project()
        (root / "state").mkdir(parents=True, exist_ok=True)
        provider = engines.binary("pulumi-resource-kubernetes")
        self.cli("plugin", "install", "resource", "kubernetes", provider_version(), "--file", str(provider), check=True)

    def _copy_project(self) -> None:
        self.project.mkdir(parents=True)
        for name in PROJECT:
            source = REPO / name
            if source.is_dir():
                shutil.copytree(source, self.project / name, ignore=shutil.ignore_patterns("venv", "__pycache__"))
            else:
                shutil.copy2(source, self.project / name)
        (self.project / ".venv").symlink_to(REPO / ".venv")
        (self.project / "policies" / "venv").symlink_to(REPO / ".venv")

    def cli(self, *args: str, check: bool = False, timeout: float = 600, cwd: Path | None = None) -> Result:
        done = subprocess.run(
            ["pulumi", *args, "--non-interactive"],
            cwd=cwd or self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        result = Result(done.returncode, done.stdout, done.stderr)
        if check and result.code != 0:
            raise AssertionError(
                f"pulumi {' '.join(args)} exited {result.code}:\n{result.out[-4000:]}\n{result.err[-4000:]}"
            )
        return result

    def stack(self, name: str, sandbox_config: bool = True, cwd: Path | None = None, **config: str) -> str:
        """Create stack ``name`` with its stack file's config plus the sandbox's (unless not asked) and ``config`` (``gpufleet:key``)."""
        self.cli("stack", "init", name, check=True, cwd=cwd)
        pairs = {**(self.state.stack if sandbox_config else {}), **config}
        if pairs:
            self.cli(
                "config",
                "set-all",
                "-s",
                name,
                *(a for k, v in pairs.items() for a in ("--plaintext", f"{k}={v}")),
                check=True,
                cwd=cwd,
            )
        return name

    def up(self, stack: str, *extra: str) -> Result:
        return self.cli("up", "-s", stack, "--yes", "--skip-preview", *extra)

    def up_events(self, stack: str, *extra: str) -> tuple[Result, list[dict[str, Any]]]:
        """``pulumi up --json``: the result and the engine events it streamed, in order."""
        result = self.cli("up", "-s", stack, "--yes", "--skip-preview", "--json", *extra)
        return result, events(result.out)

    def start_up(self, stack: str, *extra: str) -> subprocess.Popen:
        """``pulumi up --json`` started in the background (an update that waits on a finalizer); stop it by its PID."""
        return subprocess.Popen(
            ["pulumi", "up", "-s", stack, "--yes", "--skip-preview", "--json", "--non-interactive", *extra],
            cwd=self.project,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def preview(self, stack: str, *extra: str) -> Result:
        return self.cli("preview", "-s", stack, *extra)

    def destroy(self, stack: str, *extra: str) -> Result:
        return self.cli("destroy", "-s", stack, "--yes", "--skip-preview", *extra)

    def resources(self, stack: str, cwd: Path | None = None) -> list[dict[str, Any]]:
        """The stack's state: every resource Pulumi recorded (``pulumi stack export``; another project's with ``cwd``)."""
        exported = self.cli("stack", "export", "-s", stack, check=True, cwd=cwd).json()
        return exported["deployment"].get("resources", [])


def events(text: str) -> list[dict[str, Any]]:
    """The engine events of a ``--json`` run (one JSON object per line), in order."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def steps(stream: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(op, URN) of every resource step the engine started, in its order (``same`` steps left out)."""
    out = []
    for event in stream:
        meta = (event.get("resourcePreEvent") or {}).get("metadata")
        if meta and meta["op"] != "same" and not meta["type"].startswith(("pulumi:", "gpufleet:")):
            out.append((meta["op"], meta["urn"]))
    return out


def kubernetes_objects(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Kubernetes objects among a stack's resources (no provider, no component, no Chart)."""
    return [
        r
        for r in resources
        if r["type"].startswith("kubernetes:") and r.get("custom") and not r["type"].startswith("pulumi:providers:")
    ]
