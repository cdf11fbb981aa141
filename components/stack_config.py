"""The stack configuration (``gpufleet:*`` keys), read once and typed.

Called by ``__main__.py``. The keys and their types are declared in
``Pulumi.yaml``; the Pulumi CLI validates stack files against that schema and
applies its defaults, but the SDK does not (under mocks or ``PULUMI_CONFIG``),
so the defaults are repeated here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pulumi

from gpufleet.render.controller_common import DEFAULT_IMAGE, ControllerSettings


@dataclass(frozen=True)
class StackConfig:
    model: Path
    """The stack's fleet model file, resolved against the project directory."""
    controller: ControllerSettings
    """Image, digest, cert-manager and prometheus-operator switches for the gang-admission controller."""


def read_stack_config(project_dir: Path) -> StackConfig:
    """Read ``gpufleet:*`` config; a missing ``gpufleet:model`` is a clean ``pulumi.RunError``."""
    config = pulumi.Config("gpufleet")
    return StackConfig(
        model=project_dir / config.require("model"),
        controller=ControllerSettings(
            image=config.get("controllerImage") or DEFAULT_IMAGE,
            digest=config.get("controllerImageDigest") or "",
            cert_manager=bool(config.get_bool("certManager")),
            prometheus_operator=bool(config.get_bool("prometheusOperator")),
        ),
    )
