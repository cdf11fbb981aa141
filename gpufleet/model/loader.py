"""Load a fleet model file: YAML -> pydantic -> semantic validation, all errors at once.

Called by the CLI, the Pulumi program (``__main__.py``) and the linter's ``--fleet``.
Every problem is an :class:`gpufleet.yamlin.errors.Issue` with the exact path; the loader
raises one :class:`gpufleet.yamlin.errors.ModelError` naming the file and carrying all of
them (pydantic's field errors and ``gpufleet.model.checks``' cross-field errors together).
Input limits (size, depth, numbers, aliases, encoding) come from :mod:`gpufleet.yamlin.yamllimits`;
at most :data:`MAX_ISSUES` issues are listed, then how many more; nothing escapes as a traceback.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

import yaml
from pydantic import ValidationError

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import GPUFLEET_GROUP
from gpufleet.model import checks, duplicate_keys, field_errors, gpu_units
from gpufleet.model.fleet import Fleet
from gpufleet.yamlin import marks, syntax, yamlio, yamllimits
from gpufleet.yamlin.errors import Issue, ModelError


def _fix_for(error: Mapping[str, Any]) -> str:
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


def issues_from_pydantic(exc: ValidationError, data: Any = None) -> list[Issue]:
    """One issue per pydantic error; ``data`` (the raw document) tells which keys each mapping already has."""
    issues = []
    for error in exc.errors(include_url=False):
        path = FieldPath.of(*error["loc"]) or "(document)"
        message, fix = field_errors.rewrite(
            Fleet, error, error["msg"].removeprefix("Value error, "), _fix_for(error), data
        )
        issues.append(Issue(path, message, fix))
    return issues


MAX_ISSUES = 50  # issues listed per file; the rest are counted


def capped(issues: list[Issue]) -> list[Issue]:
    """At most :data:`MAX_ISSUES` issues, then one saying how many more there are."""
    if len(issues) <= MAX_ISSUES:
        return issues
    more = len(issues) - MAX_ISSUES
    return [
        *issues[:MAX_ISSUES],
        Issue("(more)", f"and {more} more issue(s) not listed", "fix the ones above and run again"),
    ]


def _number_issues(data: Any) -> list[Issue]:
    return [
        Issue(
            FieldPath.of(*path) or "(document)",
            f"the number {text} is out of range: Kubernetes numbers are finite and at most 2^63-1 (19 digits)",
            "write a smaller number, a quantity with a suffix (e.g. 8Ei), or leave the field out for no limit",
        )
        for path, text in yamllimits.out_of_range(data)
    ]


def _merge(first: list[Issue], second: list[Issue]) -> list[Issue]:
    """Both lists' issues, each path and message once, in path order."""
    seen: dict[tuple[FieldPath | str, str], Issue] = {}
    for issue in [*first, *second]:
        seen.setdefault((issue.path, issue.message), issue)
    return sorted(seen.values(), key=lambda i: i.path)


def _wrong_kind(data: dict[Any, Any]) -> Issue | None:
    """An issue when ``data`` is plainly another kind of document (a Kubernetes manifest, say)."""
    kind, api = data.get("kind"), data.get("apiVersion")
    if (isinstance(kind, str) and kind != "Fleet") or (isinstance(api, str) and not api.startswith(GPUFLEET_GROUP)):
        return Issue(
            "(document)",
            f"this is a {kind or 'document'} ({api or 'no apiVersion'}), not a fleet model",
            "pass the fleet model file (apiVersion: gpufleet.dev/v1alpha1, kind: Fleet), e.g. stacks/prod.fleet.yaml",
        )
    return None


def parse_model(data: Any, source: str = "<model>", validate: bool = True) -> Fleet:
    """Build a Fleet from parsed YAML; raise ModelError with every issue."""
    if not isinstance(data, dict):
        raise ModelError(
            source,
            [
                Issue(
                    "(document)",
                    "the model must be a YAML mapping with apiVersion: gpufleet.dev/v1alpha1 and kind: Fleet",
                    "start the file with `apiVersion: gpufleet.dev/v1alpha1` and `kind: Fleet`",
                )
            ],
        )
    wrong = _wrong_kind(data)
    if wrong:
        raise ModelError(source, [wrong])
    numbers = _number_issues(data)
    if numbers:
        raise ModelError(source, capped(numbers))
    whole = gpu_units.check_raw(data) if validate else []
    try:
        fleet = Fleet.model_validate(data)
    except ValidationError as exc:
        raise ModelError(source, capped(_merge(whole, issues_from_pydantic(exc, data)))) from None
    issues = _merge(whole, checks.validate(fleet)) if validate else whole
    if issues:
        raise ModelError(source, capped(issues))
    return fleet


def load_model(path: str | Path, validate: bool = True) -> Fleet:
    """Read and validate a model file; raise ModelError naming the file (never another exception)."""
    source = str(path)
    text = None
    try:
        text, data = _read(path, source)
        return parse_model(data, source, validate)
    except ModelError as exc:
        raise placed(exc, text) from None
    except Exception as exc:  # noqa: BLE001 - a model file must never end in a traceback
        raise ModelError(
            source,
            [
                Issue(
                    "(document)",
                    f"gpufleet could not check this model ({type(exc).__name__}: {str(exc)[:200]})",
                    "this is a gpufleet bug: report it with the file; meanwhile simplify the values near the last change",
                )
            ],
        ) from None


def placed(exc: ModelError, text: str | None) -> ModelError:
    """``exc`` with each issue at a field given the line and column its path reaches in ``text`` (``file:line:column``)."""
    if text is None or not any(isinstance(i.path, FieldPath) and i.at is None for i in exc.issues):
        return exc
    root = marks.compose(text)
    return ModelError(
        exc.source,
        [
            replace(i, at=marks.position(root, i.path.segments))
            if isinstance(i.path, FieldPath) and i.at is None
            else i
            for i in exc.issues
        ],
    )


def _read(path: str | Path, source: str) -> tuple[str, Any]:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ModelError(
            source, [Issue("(file)", f"cannot read the model file: {exc.strerror}", "check the path")]
        ) from None
    if len(raw) > yamllimits.MAX_BYTES:
        raise ModelError(
            source,
            [
                Issue(
                    "(file)",
                    f"the model file is {len(raw)} bytes, more than the {yamllimits.MAX_BYTES} gpufleet reads",
                    "check the path: a model is a few kilobytes",
                )
            ],
        )
    try:
        text = yamllimits.decode(raw)
    except ValueError as exc:
        raise ModelError(source, [Issue("(file)", str(exc).split(": ")[0], str(exc).split(": ", 1)[-1])]) from None
    try:
        data = yamlio.load(text)
    except yamllimits.LimitError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}" if mark is not None else "(document)"
        problem, _, fix = (exc.problem or "").partition("; ")
        raise ModelError(source, [Issue(where, problem, fix or "simplify the document")]) from None
    except yaml.YAMLError as exc:
        raise ModelError(source, [syntax.issue(exc, text)]) from None
    duplicates = duplicate_keys.check(text)  # after the limits: the text is known to be shallow and alias-bounded
    if duplicates:
        raise placed(ModelError(source, capped(duplicates)), text)
    return text, data
