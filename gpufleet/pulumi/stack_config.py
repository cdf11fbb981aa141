"""The stack configuration (``gpufleet:*`` keys), read once and typed.

Called by ``__main__.py``. The keys and their types are declared in
``Pulumi.yaml``; the Pulumi CLI validates stack files against that schema and
applies its defaults, but the SDK does not (under mocks or ``PULUMI_CONFIG``),
so the defaults are repeated here. Paths are resolved against the project
directory; a named chart path or TLS folder that is not there is a clean
``pulumi.RunError`` naming the key and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pulumi

from gpufleet import CONTROLLER_IMAGE
from gpufleet.render.controller_common import ControllerSettings

TLS_FILES = ("tls.crt", "tls.key", "ca.crt")
CHART_KEYS = {"kueue": "kueueChartPath", "volcano": "volcanoChartPath", "coscheduling": "coschedulingChartPath"}


@dataclass(frozen=True)
class StackConfig:
    model: Path
    """The stack's fleet model file, resolved against the project directory."""
    controller: ControllerSettings
    """Image, digest, cert-manager and prometheus-operator switches for the gang-admission controller."""
    chart_paths: dict[str, str] = field(default_factory=dict)
    """Engine name -> a local chart to install from (``gpufleet:kueueChartPath`` ...), when given."""

    @property
    def engines_installed(self) -> bool:
        return self.controller.engines_installed


def _path(project_dir: Path, key: str, value: str, what: str) -> str:
    path = project_dir / value
    if not path.exists():
        raise pulumi.RunError(f"stack config gpufleet:{key}: {path} does not exist "
                              f"(fix: point it at {what}, or `pulumi config rm gpufleet:{key}`)")
    return str(path)


def _tls_dir(project_dir: Path, value: str) -> str:
    if not value:
        return ""
    folder = _path(project_dir, "controllerTlsDir", value, "a folder holding " + ", ".join(TLS_FILES))
    missing = [name for name in TLS_FILES if not (Path(folder) / name).is_file()]
    if missing:
        raise pulumi.RunError(f"stack config gpufleet:controllerTlsDir: {folder} has no {', '.join(missing)} "
                              f"(fix: put the PEM files {', '.join(TLS_FILES)} there)")
    return folder


def _url(value: str) -> str:
    if value and not value.startswith("https://"):
        raise pulumi.RunError(f"stack config gpufleet:controllerUrl: {value!r} is not an https:// URL "
                              "(fix: the API server calls webhooks over TLS only: https://host:port)")
    return value


def read_stack_config(project_dir: Path) -> StackConfig:
    """Read ``gpufleet:*`` config; a missing ``gpufleet:model`` is a clean ``pulumi.RunError``."""
    config = pulumi.Config("gpufleet")
    if config.get("controllerTlsDir") and config.get_bool("certManager"):
        raise pulumi.RunError("stack config gpufleet:controllerTlsDir and gpufleet:certManager both name the controller's "
                              "certificate (fix: keep one: `pulumi config rm gpufleet:certManager` or "
                              "`pulumi config rm gpufleet:controllerTlsDir`)")
    charts = {engine: _path(project_dir, key, config.get(key), "a chart folder or .tgz")
              for engine, key in CHART_KEYS.items() if config.get(key)}
    return StackConfig(
        model=project_dir / config.require("model"),
        controller=ControllerSettings(
            image=config.get("controllerImage") or CONTROLLER_IMAGE,
            digest=config.get("controllerImageDigest") or "",
            cert_manager=bool(config.get_bool("certManager")),
            prometheus_operator=bool(config.get_bool("prometheusOperator")),
            url=_url(config.get("controllerUrl") or ""),
            tls_dir=_tls_dir(project_dir, config.get("controllerTlsDir") or ""),
            engines_installed=bool(config.get_bool("enginesInstalled")),
        ),
        chart_paths=charts,
    )
