"""Load a fleet model file: YAML -> pydantic -> semantic validation, all errors at once.

Called by the CLI, the Pulumi program (``__main__.py``) and the linter's ``--fleet``.
Every problem is an :class:`gpufleet.errors.Issue` with the exact path; the loader
raises one :class:`gpufleet.errors.ModelError` naming the file and carrying all of
them (pydantic's field errors and ``gpufleet.model.checks``' cross-field errors together).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from gpufleet import yamlio
from gpufleet.errors import Issue, ModelError, join_path
from gpufleet.model import checks, duplicate_keys, field_errors, gpu_units
from gpufleet.model.fleet import Fleet


def _fix_for(error: dict[str, Any]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "remove the field or correct its spelling (see `gpufleet schema`)"
    if kind == "missing":
        return "add the field"
    if kind in ("literal_error", "enum"):
        return "use one of the allowed values"
    if kind == "string_pattern_mismatch":
        return "use lowercase letters, digits and '-' (a DNS label)"
    return "correct the value (see `gpufleet schema`)"


def issues_from_pydantic(exc: ValidationError) -> list[Issue]:
    issues = []
    for error in exc.errors(include_url=False):
        path = join_path(*error["loc"]) or "(document)"
        message, fix = field_errors.rewrite(Fleet, error, error["msg"].removeprefix("Value error, "), _fix_for(error))
        issues.append(Issue(path, message, fix))
    return issues


def _merge(first: list[Issue], second: list[Issue]) -> list[Issue]:
    """Both lists' issues, each path and message once, in path order."""
    seen: dict[tuple[str, str], Issue] = {}
    for issue in [*first, *second]:
        seen.setdefault((issue.path, issue.message), issue)
    return sorted(seen.values(), key=lambda i: i.path)


def parse_model(data: Any, source: str = "<model>", validate: bool = True) -> Fleet:
    """Build a Fleet from parsed YAML; raise ModelError with every issue."""
    if not isinstance(data, dict):
        raise ModelError(source, [Issue("(document)", "the model must be a YAML mapping with apiVersion: gpufleet.dev/v1alpha1 and kind: Fleet", "start the file with `apiVersion: gpufleet.dev/v1alpha1` and `kind: Fleet`")])
    whole = gpu_units.check_raw(data) if validate else []
    try:
        fleet = Fleet.model_validate(data)
    except ValidationError as exc:
        raise ModelError(source, _merge(whole, issues_from_pydantic(exc))) from None
    issues = _merge(whole, checks.validate(fleet)) if validate else whole
    if issues:
        raise ModelError(source, issues)
    return fleet


def load_model(path: str | Path, validate: bool = True) -> Fleet:
    """Read and validate a model file; raise ModelError naming the file."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ModelError(source, [Issue("(file)", f"cannot read the model file: {exc.strerror}", "check the path (stack config gpufleet:model)")]) from None
    duplicates = duplicate_keys.check(text)
    if duplicates:
        raise ModelError(source, duplicates)
    try:
        data = yamlio.load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(document)"
        problem = getattr(exc, "problem", None) or str(exc)
        raise ModelError(source, [Issue(where, f"malformed YAML: {problem}", "fix the YAML syntax")]) from None
    return parse_model(data, source, validate)
