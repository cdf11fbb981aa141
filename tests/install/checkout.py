"""A copy of the package sources (what an sdist or a git URL holds), so installing never writes into the checkout;
the wheel built from it, installed in a virtual environment outside the repository (tests/install, the e2e tier);
``succeeds`` runs a command those tests need to exit 0."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "gpufleet")


def copy_sources(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SHIPPED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=ignore)
        else:
            shutil.copy2(source, dest / name)
    return dest


def build_wheel(tmp: Path) -> Path:
    """The wheel of the checkout's sources, built offline (no index, this environment's setuptools)."""
    succeeds(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "-w",
            str(tmp / "dist"),
            str(copy_sources(tmp / "src")),
        ],
        timeout=600,
    )
    [built] = (tmp / "dist").glob("gpufleet-*.whl")
    return built


def install_outside(wheel: Path, where: Path) -> Path:
    """A virtual environment at ``where`` (outside the repository) with ``wheel`` installed and, after its own
    site-packages (a ``.pth`` line), this environment's packages as its dependencies; offline."""
    assert ROOT not in where.parents
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    succeeds(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(where / "bin" / "python"),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        timeout=600,
    )
    [site] = (where / "lib").glob("python3*/site-packages")
    ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (site / "zz_dependencies.pth").write_text("".join(f"{path}\n" for path in ours))
    return where


def succeeds(command: list[str], timeout: float, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """The standard output of ``command``, after checking it exits 0 (else its output is the failure's message)."""
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def clean_env() -> dict[str, str]:
    """This process's environment without what would point a Python at this checkout or this virtualenv."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


GOOD = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: research
  labels: {kueue.x-k8s.io/queue-name: research}
spec:
  parallelism: 4
  completions: 4
  backoffLimit: 0  # a failed rank fails the whole Job, not replaced alone (GANG204)
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: w, image: trainer:1, resources: {limits: {nvidia.com/gpu: 8}}}
"""
BAD = GOOD.replace("  labels: {kueue.x-k8s.io/queue-name: research}\n", "")  # GANG106: a GPU gang with no route
