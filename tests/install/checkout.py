"""A copy of the package sources (what an sdist or a git URL holds), so installing never writes into the checkout."""

from __future__ import annotations

import shutil
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
