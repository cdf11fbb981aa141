"""The scheduler-plugins scheduler (Coscheduling) as a host process, for pools with ``system: coscheduling``.

Its KubeSchedulerConfiguration is the stack's (``gpufleet.render.coscheduling``: the
profile, plugins and ``permitWaitingTimeSeconds``) with the sandbox's kubeconfig; the
PodGroup CRD is the module's ``config/crd/bases`` (sigs.k8s.io/scheduler-plugins
v0.34.7). Called by ``gpufleet.sandbox.up``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gpufleet.model.fleet import Fleet
from gpufleet.render.coscheduling import render_scheduler_config
from gpufleet.sandbox.modfiles import documents

MODULE = "sigs.k8s.io/scheduler-plugins@v0.34.7"
CRDS = ("scheduling.x-k8s.io_podgroups.yaml", "scheduling.x-k8s.io_elasticquotas.yaml")


def crds(gomodcache: Path) -> list[dict[str, Any]]:
    base = gomodcache / MODULE / "config" / "crd" / "bases"
    return [documents(base / name)[0] for name in CRDS if (base / name).is_file()]


def scheduler_config(fleet: Fleet, kubeconfig: Path) -> str:
    cfg = render_scheduler_config(fleet)
    cfg["clientConnection"] = {"kubeconfig": str(kubeconfig)}
    cfg["leaderElection"] = {"leaderElect": False}
    return yaml.safe_dump(cfg, sort_keys=False)


def argv(binary: Path, config: Path, port: int) -> list[str]:
    return [str(binary), f"--config={config}", "--bind-address=127.0.0.1", f"--secure-port={port}", "--v=1"]
