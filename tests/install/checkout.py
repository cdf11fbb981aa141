"""A copy of the package sources (what an sdist or a git URL holds), so installing never writes into the checkout;
the wheel built from it, installed in a virtual environment outside the repository (tests/install, the e2e tier)."""

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
    done = subprocess.run(
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
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [built] = (tmp / "dist").glob("gpufleet-*.whl")
    return built


def install_outside(wheel: Path, where: Path) -> Path:
    """A virtual environment at ``where`` (outside the repository) with ``wheel`` installed and, after its own
    site-packages (a ``.pth`` line), this environment's packages as its dependencies; offline."""
    assert ROOT not in where.parents
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    done = subprocess.run(
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
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [site] = (where / "lib").glob("python3*/site-packages")
    ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (site / "zz_dependencies.pth").write_text("".join(f"{path}\n" for path in ours))
    return where


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
