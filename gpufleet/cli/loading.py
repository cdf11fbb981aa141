"""The fleet model and the workload manifests a command reads, loaded or refused in one line each.

Called by :mod:`gpufleet.cli.advise_cmds` (``advise``, ``podgroups``) and
:mod:`gpufleet.cli.try_cmds`. A path that does not exist or cannot be read is a usage
error (exit 2); a model that does not validate, or a manifest that is not YAML or JSON
objects (a binary file), is invalid input (exit 1), one ``file: message (fix: ...)``
line per problem, each prefixed with ``gpufleet COMMAND:``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional

from gpufleet.cli import inputs
from gpufleet.cli.exits import INVALID, USAGE, CliError
from gpufleet.lint.loader import load
from gpufleet.lint.sources import collect
from gpufleet.model import Fleet, load_model
from gpufleet.yamlin.errors import ModelError


def fail(lines: list[str], code: int, command: str) -> CliError:
    return CliError([f"gpufleet {command}: {line}" for line in lines], code)


def model(given: Optional[Path], command: str) -> tuple[Path, Fleet]:
    """The model file (``inputs.model_file``'s rule) and the fleet it validates to."""
    try:
        path = inputs.model_file(given)
    except CliError as exc:
        raise fail(exc.lines, exc.code, command) from None
    try:
        return path, load_model(path)
    except ModelError as exc:
        raise fail(exc.lines(), INVALID, command) from None


def objects(paths: list[str], command: str) -> list[Mapping[str, Any]]:
    """Every object of the manifest files and directories ``paths``, in order."""
    found, problems = [], []
    try:
        for path in paths:
            inputs.any_in(path, "pass workload manifest files or directories")
    except CliError as exc:
        raise fail(exc.lines, USAGE, command) from None
    sources = collect(paths)
    unreadable = [f"{s.name}: {s.error} (fix: check its permissions)" for s in sources if s.unreadable]
    if unreadable:
        raise fail(unreadable, USAGE, command)
    for source in sources:
        if source.error:
            problems.append(f"{source.name}: {source.error} (fix: pass readable YAML or JSON manifests)")
            continue
        result = load(source)
        found += [item.obj for item in result.objects]
        problems += [f"{p.file}:{p.line or 1}: {p.message} (fix: {p.fix})" for p in result.problems]
    if problems:
        raise fail(problems, INVALID, command)
    return found
