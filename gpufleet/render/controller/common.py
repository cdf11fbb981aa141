"""Names, labels and settings shared by the controller's manifests.

Used by ``gpufleet.render.controller`` and its two helpers (workload, webhooks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpufleet import CONTROLLER_IMAGE
from gpufleet.kubetypes.vocab import APP_NAME_LABEL, APP_PART_OF_LABEL, FLEET_LABEL, MANAGED_BY_LABEL
from gpufleet.model.fleet import Fleet

NAME = "gang-admission-controller"
PORT = 8443
TLS_SECRET = f"{NAME}-tls"
CONTEXT_CONFIGMAP = f"{NAME}-fleet-context"
CONTEXT_KEY = "fleet-context.json"


@dataclass(frozen=True)
class ControllerSettings:
    """Deploy-time settings of the controller: the one object from the stack config
    (``gpufleet.pulumi.stack_config``) through ``gpufleet.pulumi.fleet.GpuFleet`` and
    ``gpufleet.pulumi.controller`` to this renderer.

    ``image`` is a reference with a tag; ``digest`` (``sha256:...``) pins it.
    ``ca_bundle`` is the base64 PEM CA that signs the serving certificate (set by the
    component, a Pulumi Output); unused with ``cert_manager``; empty: not known where rendered
    (``gpufleet render`` without ``--include-private-key``), so the webhooks carry no ``caBundle``.
    ``url`` (stack config ``gpufleet:controllerUrl``, ``https://host:port``) registers the
    webhooks by URL, at a backend outside the cluster, instead of at the Service;
    ``tls_dir`` (``gpufleet:controllerTlsDir``) names a folder holding ``tls.crt``,
    ``tls.key`` and ``ca.crt`` to serve with, in place of pulumi-tls material.
    ``engines_installed`` (``gpufleet:enginesInstalled``): Kueue, Volcano and
    scheduler-plugins were installed by someone else, so the stack installs no chart.
    """

    image: str = CONTROLLER_IMAGE
    digest: str = ""
    ca_bundle: Any = ""
    cert_manager: bool = False
    prometheus_operator: bool = False
    url: str = ""
    tls_dir: str = ""
    engines_installed: bool = False

    @property
    def image_ref(self) -> str:
        return f"{self.image.split('@')[0]}@{self.digest}" if self.digest else self.image


def labels(fleet: Fleet) -> dict[str, str]:
    return {
        APP_NAME_LABEL: NAME,
        APP_PART_OF_LABEL: "gpufleet",
        MANAGED_BY_LABEL: "gpufleet",
        FLEET_LABEL: fleet.name,
    }


def selector() -> dict[str, str]:
    return {APP_NAME_LABEL: NAME}


def meta(fleet: Fleet, name: str = NAME, namespaced: bool = True, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": labels(fleet)}
    if namespaced:
        meta["namespace"] = fleet.controller.namespace
    meta.update(extra)
    return meta
