"""The nearest peer for ``bench/admission_bench.py``: Gatekeeper v3.23.1 enforcing GANG001 as its own policy.

Gatekeeper is a bench-only engine: ``bench/engines/gatekeeper`` (its go.mod and go.sum
committed) is built by ``bash sandbox/engines/build.sh bench/engines/gatekeeper`` into the
engines' cache; the test command's build (``build.sh`` without arguments) never builds it.
Here its controller-manager runs as a plain process on 127.0.0.1 against the sandbox's API
server (``--kubeconfig``, ``--debug-use-fake-pod``: no pod of its own), ``--operation=webhook`` and
``generate`` (the one that writes a template's constraint CRD; the stock deployment gives it to the
audit pod, which is not run here), serving TLS from a certificate made with ``cryptography`` (``webhook_bench.write_pki``),
with no VAP generated from its templates (Rego templates generate none anyway). Its CRDs come
from its module's own ``deploy/gatekeeper.yaml`` in the Go module cache.

GANG001's Volcano Job part (``gpufleet/rules/gang_size/gang001_min_below_replicas.py``) as a
Rego ConstraintTemplate: an explicit non-zero ``spec.minAvailable`` below the replicas of the
tasks without ``dependsOn``, or a task ``minAvailable`` below its ``replicas``; skipped for jobs
annotated ``gpufleet.dev/elastic: "true"``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from gpufleet.sandbox.engines import gomodcache, locate
from gpufleet.sandbox.procs import Proc, start

MODULE = "github.com/open-policy-agent/gatekeeper/v3@v3.23.1"
ENGINE = Path(__file__).resolve().parent / "engines" / "gatekeeper"
NAMESPACE = "gatekeeper-system"
KIND = "GpufleetGang001"

REGO = """package gpufleetgang001

elastic {
  input.review.object.metadata.annotations["gpufleet.dev/elastic"] == "true"
}

violation[{"msg": msg}] {
  not elastic
  spec := input.review.object.spec
  minimum := object.get(spec, "minAvailable", 0)
  minimum > 0
  starting := sum([n | t := spec.tasks[_]; not t.dependsOn; n := object.get(t, "replicas", 0)])
  minimum < starting
  msg := sprintf("GANG001 min-below-replicas at spec.minAvailable: gang minimum %v is below the %v pods the job starts with Fix: set spec.minAvailable to %v", [minimum, starting, starting])
}

violation[{"msg": msg}] {
  not elastic
  t := input.review.object.spec.tasks[i]
  t.minAvailable < object.get(t, "replicas", 0)
  msg := sprintf("GANG001 min-below-replicas at spec.tasks[%v].minAvailable: a task minAvailable is below its replicas Fix: set the task minAvailable to its replicas", [i])
}
"""


def binary() -> Path:
    return locate([str(ENGINE)]).dirs["gatekeeper"] / "gatekeeper"


def crds() -> list[dict[str, Any]]:
    text = (gomodcache() / MODULE / "deploy" / "gatekeeper.yaml").read_text()
    return [d for d in yaml.safe_load_all(text) if d and d.get("kind") == "CustomResourceDefinition"]


def template() -> dict[str, Any]:
    return {
        "apiVersion": "templates.gatekeeper.sh/v1",
        "kind": "ConstraintTemplate",
        "metadata": {"name": KIND.lower()},
        "spec": {
            "crd": {"spec": {"names": {"kind": KIND}}},
            "targets": [{"target": "admission.k8s.gatekeeper.sh", "rego": REGO}],
        },
    }


def constraint(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "constraints.gatekeeper.sh/v1beta1",
        "kind": KIND,
        "metadata": {"name": "gang001"},
        "spec": {
            "enforcementAction": "deny",
            "match": {"kinds": [{"apiGroups": ["batch.volcano.sh"], "kinds": ["Job"]}], "namespaces": [namespace]},
        },
    }


def run(kubeconfig: str, cert_dir: Path, ports: list[int], log: Path) -> Proc:
    """Start the controller-manager: webhook on ``ports[0]``, health on ``ports[1]``, metrics on ``ports[2]``."""
    argv = [
        str(binary()),
        f"--kubeconfig={kubeconfig}",
        "--operation=webhook",
        "--operation=generate",
        "--host=127.0.0.1",
        f"--port={ports[0]}",
        f"--health-addr=127.0.0.1:{ports[1]}",
        f"--metrics-addr=127.0.0.1:{ports[2]}",
        f"--cert-dir={cert_dir}",
        "--disable-cert-rotation",
        "--debug-use-fake-pod",
        "--shutdown-delay=0",
        f"--exempt-namespace={NAMESPACE}",
        "--disable-opa-builtin={http.send}",
        "--default-create-vap-for-templates=false",
        "--default-create-vap-binding-for-constraints=false",
        "--log-level=WARNING",
    ]
    return start("gatekeeper", argv, log, env={**os.environ, "POD_NAMESPACE": NAMESPACE})
