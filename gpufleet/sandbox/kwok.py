"""KWOK's stages and command line: fake nodes stay Ready, fake pods become Running and stay so.

The bare ``kwok`` controller has no default stages (only kwokctl embeds them,
``pkg/kwok/cmd/root.go`` at v0.8.0), so the sandbox passes the module's own stage files
(``kustomize/stage`` of sigs.k8s.io/kwok v0.8.0, read from the Go module cache):
node-initialize, node-heartbeat-with-lease, pod-ready and pod-delete, and the module's
``general/pod-complete`` stage limited to pods that carry its delay annotation
(:data:`KWOK_COMPLETE_AFTER`, e.g. ``"30s"``): such a pod of a Job (batch or Volcano) turns
Succeeded that long after it is Running and Ready, with no jitter, as a rank of a job
that runs for that long would (the fault tier's gangs finish this way, and a trace
replay's jobs will). Every other pod never finishes by itself, so a gang holds its GPUs
as in the essay. A pod carrying :data:`KWOK_READY_AFTER` (a trace job's ``startSeconds``)
is started by a copy of the fast pod-ready stage that waits that long after the pod is bound
(:func:`delayed_ready_stage`); the fast stage leaves such pods alone.
Called by ``gpufleet.sandbox.up``.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from gpufleet.kubetypes.vocab import KWOK_COMPLETE_AFTER, KWOK_NODE_ANNOTATION, KWOK_READY_AFTER

STAGES = (
    "node/fast/node-initialize.yaml",
    "node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
    "pod/fast/pod-delete.yaml",
)
READY_STAGE = "pod/fast/pod-ready.yaml"
KWOK_MODULE = "sigs.k8s.io/kwok@v0.8.0"
COMPLETE_STAGE = "pod/general/pod-complete.yaml"


def completion_stage(text: str) -> str:
    """KWOK's pod-complete stage for the pods that carry :data:`KWOK_COMPLETE_AFTER` only, without its jitter."""
    stage = yaml.safe_load(text)
    spec = stage["spec"]
    spec["selector"]["matchExpressions"].append(
        {"key": f'.metadata.annotations["{KWOK_COMPLETE_AFTER}"]', "operator": "Exists"}
    )
    for key in ("jitterDurationMilliseconds", "jitterDurationFrom"):
        spec.get("delay", {}).pop(key, None)
    return yaml.safe_dump(stage, sort_keys=False)


def _selecting(text: str, operator: str) -> dict:
    stage = yaml.safe_load(text)
    stage["spec"]["selector"]["matchExpressions"].append(
        {"key": f'.metadata.annotations["{KWOK_READY_AFTER}"]', "operator": operator}
    )
    return stage


def ready_stage(text: str) -> str:
    """KWOK's fast pod-ready stage (a bound pod is Running and Ready at once) for pods without :data:`KWOK_READY_AFTER`."""
    return yaml.safe_dump(_selecting(text, "DoesNotExist"), sort_keys=False)


def delayed_ready_stage(text: str) -> str:
    """The fast pod-ready stage for pods with :data:`KWOK_READY_AFTER` (e.g. ``"20s"``): played that long after KWOK
    sees the bound pod, as the general stage's delay annotation is read (``pod/general/pod-ready.yaml``, v0.8.0)."""
    stage = _selecting(text, "Exists")
    stage["metadata"]["name"] = "pod-ready-delayed"
    stage["spec"]["delay"] = {
        "durationMilliseconds": 0,
        "durationFrom": {"expressionFrom": f'.metadata.annotations["{KWOK_READY_AFTER}"]'},
    }
    return yaml.safe_dump(stage, sort_keys=False)


def stages_text(gomodcache: Path) -> str:
    """The stage documents, joined into one config file."""
    base = gomodcache / KWOK_MODULE / "kustomize" / "stage"
    docs = [(base / rel).read_text() for rel in STAGES]
    ready = (base / READY_STAGE).read_text()
    return "\n---\n".join(
        [*docs, ready_stage(ready), delayed_ready_stage(ready), completion_stage((base / COMPLETE_STAGE).read_text())]
    )


def argv(binary: Path, kubeconfig: Path, config: Path, port: int) -> list[str]:
    return [
        str(binary),
        f"--kubeconfig={kubeconfig}",
        "--manage-all-nodes=false",
        f"--manage-nodes-with-annotation-selector={KWOK_NODE_ANNOTATION}=fake",
        f"--config={config}",
        f"--server-address=127.0.0.1:{port}",
        "--node-ip=127.0.0.1",
        "--cidr=10.0.0.1/16",
        "--node-lease-duration-seconds=40",
    ]
