"""KWOK's stages and command line: fake nodes stay Ready, fake pods become Running and stay so.

The bare ``kwok`` controller has no default stages (only kwokctl embeds them,
``pkg/kwok/cmd/root.go`` at v0.8.0), so the sandbox passes the module's own stage files
(``kustomize/stage`` of sigs.k8s.io/kwok v0.8.0, read from the Go module cache):
node-initialize, node-heartbeat-with-lease, pod-ready and pod-delete. pod-complete is
left out on purpose: a training rank never finishes by itself here, so a gang holds its
GPUs as in the essay. Called by ``gpufleet.sandbox.up``.
"""

from __future__ import annotations

from pathlib import Path

STAGES = ("node/fast/node-initialize.yaml", "node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
          "pod/fast/pod-ready.yaml", "pod/fast/pod-delete.yaml")
KWOK_MODULE = "sigs.k8s.io/kwok@v0.8.0"


def stages_text(gomodcache: Path) -> str:
    """The stage documents, joined into one config file."""
    base = gomodcache / KWOK_MODULE / "kustomize" / "stage"
    return "\n---\n".join((base / rel).read_text() for rel in STAGES)


def argv(binary: Path, kubeconfig: Path, config: Path, port: int) -> list[str]:
    return [str(binary), f"--kubeconfig={kubeconfig}", "--manage-all-nodes=false",
            "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
            f"--config={config}", f"--server-address=127.0.0.1:{port}", "--node-ip=127.0.0.1",
            "--cidr=10.0.0.1/16", "--node-lease-duration-seconds=40"]
