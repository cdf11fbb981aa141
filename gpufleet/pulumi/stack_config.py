"""The stack configuration (``gpufleet:*`` keys), read once and typed.

Called by ``__main__.py`` (:func:`read_stack_config`) and by the component package's
``GpuFleet`` (:mod:`gpufleet.pulumi.package`), whose inputs are these keys
(:func:`settings` with another :class:`Source`). The keys and their types are declared in
``Pulumi.yaml``; the Pulumi CLI validates stack files against that schema and
applies its defaults, but the SDK does not (under mocks or ``PULUMI_CONFIG``),
so the defaults are repeated here. Paths are resolved against the project
directory; a named chart path or TLS folder that is not there is a clean
``pulumi.RunError`` naming the key and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pulumi

from gpufleet import CONTROLLER_IMAGE
from gpufleet.render.controller.common import ControllerSettings
from gpufleet.yamlin.errors import ModelError

TLS_FILES = ("tls.crt", "tls.key", "ca.crt")
CHART_KEYS = {"kueue": "kueueChartPath", "volcano": "volcanoChartPath", "coscheduling": "coschedulingChartPath"}
BOOLEAN_KEYS = ("certManager", "prometheusOperator", "enginesInstalled")
"""The keys Pulumi.yaml types ``boolean`` (tests/program/test_project_file.py checks the two agree)."""


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


@dataclass(frozen=True)
class Source:
    """Where the settings come from, as an error names a key and its removal.

    The stack configuration (``gpufleet:*``, :data:`STACK`) for ``__main__.py``, or the
    inputs of the component package's ``GpuFleet`` (:mod:`gpufleet.pulumi.package`), whose
    input names are these keys.
    """

    prefix: str
    """Put before a key in an error (``stack config gpufleet:``)."""
    remove: str
    """How to drop key ``{key}`` (``pulumi config rm gpufleet:{key}``)."""

    def named(self, key: str) -> str:
        return f"{self.prefix}{key}"

    def removal(self, key: str) -> str:
        return self.remove.format(key=key)


STACK = Source("stack config gpufleet:", "`pulumi config rm gpufleet:{key}`")


def _path(source: Source, project_dir: Path, key: str, value: str, what: str) -> str:
    path = project_dir / value
    if not path.exists():
        raise pulumi.RunError(
            f"{source.named(key)}: {path} does not exist (fix: point it at {what}, or {source.removal(key)})"
        )
    return str(path)


def _tls_dir(source: Source, project_dir: Path, value: str) -> str:
    if not value:
        return ""
    folder = _path(source, project_dir, "controllerTlsDir", value, "a folder holding " + ", ".join(TLS_FILES))
    missing = [name for name in TLS_FILES if not (Path(folder) / name).is_file()]
    if missing:
        raise pulumi.RunError(
            f"{source.named('controllerTlsDir')}: {folder} has no {', '.join(missing)} "
            f"(fix: put the PEM files {', '.join(TLS_FILES)} there)"
        )
    return folder


def _url(source: Source, value: str) -> str:
    if value and not value.startswith("https://"):
        raise pulumi.RunError(
            f"{source.named('controllerUrl')}: {value!r} is not an https:// URL "
            "(fix: the API server calls webhooks over TLS only: https://host:port)"
        )
    return value


def settings(project_dir: Path, get: Callable[[str], Any], source: Source = STACK) -> StackConfig:
    """The settings ``get(key)`` returns (None when unset), checked, paths resolved against ``project_dir``.

    A missing model, a missing path, TLS files or a plain-http URL is a clean ``pulumi.RunError``
    naming the key (as ``source`` names it) and the fix.
    """
    if get("controllerTlsDir") and get("certManager"):
        raise pulumi.RunError(
            f"{source.named('controllerTlsDir')} and {source.named('certManager')} both name the controller's "
            f"certificate (fix: keep one: {source.removal('certManager')} or "
            f"{source.removal('controllerTlsDir')})"
        )
    if not get("model"):
        raise pulumi.RunError(
            f"{source.named('model')} is missing (fix: set it to the fleet model file, e.g. stacks/dev.fleet.yaml)"
        )
    charts = {
        engine: _path(source, project_dir, key, get(key), "a chart folder or .tgz")
        for engine, key in CHART_KEYS.items()
        if get(key)
    }
    return StackConfig(
        model=project_dir / get("model"),
        controller=ControllerSettings(
            image=get("controllerImage") or CONTROLLER_IMAGE,
            digest=get("controllerImageDigest") or "",
            cert_manager=bool(get("certManager")),
            prometheus_operator=bool(get("prometheusOperator")),
            url=_url(source, get("controllerUrl") or ""),
            tls_dir=_tls_dir(source, project_dir, get("controllerTlsDir") or ""),
            engines_installed=bool(get("enginesInstalled")),
        ),
        chart_paths=charts,
    )


def read_stack_config(project_dir: Path) -> StackConfig:
    """Read ``gpufleet:*`` config; a missing ``gpufleet:model`` is a clean ``pulumi.RunError``."""
    config = pulumi.Config("gpufleet")
    config.require("model")  # the SDK's own message for a required key
    return settings(project_dir, lambda key: config.get_bool(key) if key in BOOLEAN_KEYS else config.get(key))


def model_error(exc: ModelError, source: Source = STACK) -> pulumi.RunError:
    """A fleet model's issues as one RunError: a header naming the file and the key, then one line per issue."""
    lines = exc.lines()
    header = f"the fleet model {exc.source} ({source.named('model')}) has {len(lines)} issue(s):"
    return pulumi.RunError("\n".join([header, *lines]))
