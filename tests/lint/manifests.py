"""Small manifests (YAML text) for the linter tests."""

from __future__ import annotations

from pathlib import Path

PROBED_JOB = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: {name}
  namespace: research
spec:
  minAvailable: 2
  schedulerName: volcano
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        containers:
        - name: trainer
          image: trainer:1
          livenessProbe:
            exec: {{command: ["true"]}}
"""

CLEAN_CONFIG = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: 15m
  requeuingStrategy:
    backoffLimitCount: 5
"""

UNBOUNDED_CONFIG = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: 15m
"""


def probed_job(name: str = "train") -> str:
    return PROBED_JOB.format(name=name)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
