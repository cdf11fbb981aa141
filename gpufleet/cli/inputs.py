"""The paths a command reads and writes: checked before any work, one line each when bad.

Called by every command module and the lint fast path (standard library only). A path
that does not exist, is a directory where a file is wanted (or the reverse) or cannot
be read is a :class:`~gpufleet.cli.exits.CliError` (exit 2, one line naming the path
and the fix) before anything is loaded; an output that cannot be written is one too.

:func:`model_path` is the one rule every command that takes a fleet model uses when
none is named on the command line (README, "Which model a command uses"):
``$GPUFLEET_MODEL``, else the ``gpufleet:model`` stack setting of the nearest
``Pulumi.yaml`` (this folder or a parent) for the stack ``$GPUFLEET_STACK`` names
(or the project's only stack), else a usage error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from gpufleet.cli.exits import CliError, os_error_line

if TYPE_CHECKING:  # imported where used: the CLI's start stays light
    from gpufleet.render.controller import ControllerSettings

MODEL_ENV, STACK_ENV = "GPUFLEET_MODEL", "GPUFLEET_STACK"
MODEL_HINT = "pass the fleet model file, e.g. stacks/prod.fleet.yaml"


def _readable(path: Path) -> str | None:
    """Why ``path`` cannot be read (None when it can)."""
    try:
        if path.is_dir():
            os.listdir(path)
        else:
            with open(path, "rb") as handle:
                handle.read(1)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def file_in(path: Path | str, what: str, fix: str) -> Path:
    """``path`` when it is a readable file; else a usage error naming it, ``what`` it should be and ``fix``."""
    path = Path(path)
    if not path.exists():
        raise CliError([f"{path}: no such file (fix: {fix})"])
    if path.is_dir():
        raise CliError([f"{path}: is a directory, not a {what} (fix: {fix})"])
    return _checked(path, fix)


def dir_in(path: Path | str, what: str, fix: str) -> Path:
    """``path`` when it is a readable directory."""
    path = Path(path)
    if not path.exists():
        raise CliError([f"{path}: no such directory (fix: {fix})"])
    if not path.is_dir():
        raise CliError([f"{path}: is a file, not a {what} (fix: {fix})"])
    return _checked(path, fix)


def any_in(path: Path | str, fix: str) -> Path:
    """``path`` when it is a readable file or directory (manifests)."""
    path = Path(path)
    if not path.exists():
        raise CliError([f"{path}: no such file or directory (fix: {fix})"])
    return _checked(path, fix)


def _checked(path: Path, fix: str) -> Path:
    reason = _readable(path)
    if reason:
        raise CliError([f"{path}: cannot be read: {reason} (fix: check its permissions; {fix})"])
    return path


def write_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path``, or a usage error naming it (missing folder, a directory, a full disk)."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        exc.filename = str(path)
        raise CliError([os_error_line(exc)]) from None


def _stack_model(project: Path) -> Path:
    """The ``gpufleet:model`` of the chosen stack of the Pulumi project in ``project``."""
    config_dir = project / _stack_config_dir(project / "Pulumi.yaml")
    stacks = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in config_dir.glob("Pulumi.*.yaml"))
    chosen = os.environ.get(STACK_ENV)
    if chosen is None and len(stacks) != 1:
        raise CliError(
            [
                f"no fleet model given, and the Pulumi project {project} has the stacks {', '.join(stacks) or '(none)'} "
                f"(fix: pass the model file, or set {STACK_ENV} to one of the stacks, or {MODEL_ENV} to the model)"
            ]
        )
    if chosen is not None and chosen not in stacks:
        raise CliError(
            [
                f"{STACK_ENV}={chosen}: the Pulumi project {project} has no stack {chosen!r}, only "
                f"{', '.join(stacks) or '(none)'} (fix: set {STACK_ENV} to one of them, or pass the model file, "
                f"or set {MODEL_ENV} to the model)"
            ]
        )
    stack = chosen or stacks[0]
    config = config_dir / f"Pulumi.{stack}.yaml"
    model = (_yaml(config).get("config") or {}).get("gpufleet:model")
    if not isinstance(model, str) or not model:
        raise CliError(
            [
                f"{config}: no gpufleet:model setting for stack {stack!r} "
                f"(fix: pulumi config set -s {stack} gpufleet:model stacks/{stack}.fleet.yaml, or pass the model file)"
            ]
        )
    return project / model


def _yaml(path: Path) -> dict:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CliError(
            [f"{path}: cannot be read: {getattr(exc, 'strerror', None) or exc} (fix: {MODEL_HINT})"]
        ) from None
    return data if isinstance(data, dict) else {}


def _stack_config_dir(pulumi_yaml: Path) -> str:
    folder = _yaml(pulumi_yaml).get("stackConfigDir")
    return folder if isinstance(folder, str) and folder else "."


def model_path(given: Path | str | None) -> Path:
    """The fleet model a command uses: ``given``, else ``$GPUFLEET_MODEL``, else the nearest Pulumi project's stack's."""
    if given is not None:
        return Path(given)
    if os.environ.get(MODEL_ENV):
        return Path(os.environ[MODEL_ENV])
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / "Pulumi.yaml").is_file():
            return _stack_model(folder)
    raise CliError(
        [
            f"no fleet model given (fix: {MODEL_HINT}, or set {MODEL_ENV}, or run inside a Pulumi project "
            f"whose stack sets gpufleet:model)"
        ]
    )


def model_file(given: Path | str | None) -> Path:
    """The fleet model a command uses (:func:`model_path`), checked to be a readable file."""
    return file_in(model_path(given), "fleet model file", MODEL_HINT)


def stack_for(model: Path) -> tuple[str, Path, dict] | None:
    """The Pulumi stack whose ``gpufleet:model`` is ``model``: (name, its stack file, its config); None when none is."""
    target = model.resolve()
    for folder in target.parents:
        if (folder / "Pulumi.yaml").is_file():
            config_dir = folder / _stack_config_dir(folder / "Pulumi.yaml")
            for path in sorted(config_dir.glob("Pulumi.*.yaml")):
                config = _yaml(path).get("config") or {}
                named = config.get("gpufleet:model")
                if isinstance(named, str) and (folder / named).resolve() == target:
                    return path.name[len("Pulumi.") : -len(".yaml")], path, config
            return None
    return None


def stack_switch(config: dict, key: str) -> bool:
    """A boolean stack setting (``gpufleet:prometheusOperator: true`` or ``"true"``); absent = false, as Pulumi.yaml's default."""
    return str(config.get(key, False)).lower() == "true"


STACK_TEXT = {
    "image": "gpufleet:controllerImage",
    "digest": "gpufleet:controllerImageDigest",
    "url": "gpufleet:controllerUrl",
}
"""The controller's text settings a stack may give (``render`` writes them into the Deployment and webhooks)."""


def stack_settings(model: Path) -> tuple[dict, ControllerSettings]:
    """The stack that deploys ``model`` (JSON-ready, for ``plan``) and the settings it deploys with (``plan``, ``diff``)."""
    from gpufleet.render.controller import ControllerSettings

    found = stack_for(model)
    name, config = (found[0], found[2]) if found else (None, {})
    text = {
        key: value
        for key in ("image", "digest", "url")
        if isinstance(value := config.get(STACK_TEXT[key]), str) and value
    }
    settings = ControllerSettings(
        **text,
        cert_manager=stack_switch(config, "gpufleet:certManager"),
        prometheus_operator=stack_switch(config, "gpufleet:prometheusOperator"),
        engines_installed=stack_switch(config, "gpufleet:enginesInstalled"),
    )
    return (
        {
            "name": name,
            "file": str(found[1]) if found else None,
            "prometheusOperator": settings.prometheus_operator,
            "certManager": settings.cert_manager,
            "enginesInstalled": settings.engines_installed,
        },
        settings,
    )
