"""The gang-admission controller as a host process, registered with the API server by URL.

The webhook configurations are the stack's own (``gpufleet.render.controller.webhooks``:
fail closed, team namespaces only, the same rules and match conditions, and only those the model's
``controller.enforcement``/``mutations`` keep), with each ``clientConfig.service`` replaced by
``url: https://127.0.0.1:PORT/<path>`` and the sandbox CA: a Service would send the API server to KWOK's
fake pod IPs. Beside them, the API server's own admission policies the model asks for
(:func:`policies`, the stack's :func:`gpufleet.stack.controller.admission_policies`), so the sandbox
admits what the deployed stack admits. The process is
``python -m gpufleet.webhook`` with the sandbox's serving certificate and the rendered
fleet context. Called by ``gpufleet.sandbox.up``.
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path
from typing import Any

from gpufleet.model.fleet import Fleet
from gpufleet.render.controller.common import ControllerSettings
from gpufleet.render.controller.webhooks import webhook_configurations as stack_webhooks
from gpufleet.sandbox.pki import url_client
from gpufleet.stack.controller import admission_policies


def webhook_configurations(fleet: Fleet, port: int, ca: bytes) -> list[dict[str, Any]]:
    bundle = base64.b64encode(ca).decode()
    out = []
    for config in stack_webhooks(fleet, ControllerSettings(ca_bundle=bundle)).values():
        for hook in config["webhooks"]:
            hook["clientConfig"] = url_client(port, hook["clientConfig"]["service"]["path"], ca)
        out.append(config)
    return out


def policies(fleet: Fleet) -> list[dict[str, Any]]:
    """The model's ValidatingAdmissionPolicies and MutatingAdmissionPolicies with their bindings and params,
    after the namespace the params live in (the controller's: no Deployment of it runs here)."""
    found = list(admission_policies(fleet).values())
    if not found:
        return []
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": fleet.controller.namespace}}
    return [namespace, *found]


def argv(pki: Any, context: Path, port: int, bench_echo: bool = False) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gpufleet.webhook",
        f"--cert={pki.serving_crt}",
        f"--key={pki.serving_key}",
        f"--ca={pki.ca_crt}",
        f"--fleet-context={context}",
        "--host=127.0.0.1",
        f"--port={port}",
        *(["--bench-echo"] if bench_echo else []),
    ]
