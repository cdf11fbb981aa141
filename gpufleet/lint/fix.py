"""``gpufleet lint --fix`` and ``--diff``: the admission controller's defaults written into the files.

Called by :mod:`gpufleet.cli.lint_fix`. For every object of a manifest file, :func:`fix_text`
asks :func:`gpufleet.mutate.mutate` (the very function the controller's ``/mutate`` calls on
CREATE, with the same fleet context and the namespace the request would carry) for its
JSON Patch, and applies that patch to the document's round-trip tree
(:mod:`gpufleet.lint.rtpatch`), so the file gets exactly what the controller would add
(the queue label, the gang scheduler, ``minAvailable``, job-level restart policies, a
dedicated pool's toleration, the gang label...) and nothing else. Documents nothing
changes keep their text byte for byte; a changed one keeps its comments, key order,
quotes and flow style (:mod:`gpufleet.lint.rtyaml`). ``kind: List`` items are fixed one by one.

A file is rewritten whole or not at all: one that cannot be parsed (or decoded), or a
JSON file (printed back it would lose its layout), is left untouched and the
:class:`FileFix` says why. :func:`write` replaces a file atomically.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass
from typing import Any, Mapping

import yaml

from gpufleet.fleetctx.context import FleetContext
from gpufleet.lint import rtpatch, rtyaml
from gpufleet.lint.loader import is_list
from gpufleet.lint.namespaces import is_namespaced
from gpufleet.mutate import mutate
from gpufleet.yamlin import yamllimits


@dataclass(frozen=True)
class FileFix:
    """One file: its text, the fixed text (equal when nothing changes), the objects changed, or why not fixed."""

    name: str
    before: str
    after: str
    objects: int = 0
    error: str | None = None

    @property
    def changed(self) -> bool:
        return self.after != self.before


def request_namespace(obj: Mapping[str, Any], namespace: str) -> str | None:
    """The namespace of the CREATE request ``kubectl apply -n NAMESPACE`` would send for ``obj``."""
    meta = obj.get("metadata")
    named = meta.get("namespace") if isinstance(meta, Mapping) else None
    if isinstance(named, str) and named:
        return named
    return namespace if is_namespaced(obj) else None


def patch_for(obj: Any, fleet: FleetContext, namespace: str) -> list[dict[str, Any]]:
    """The controller's JSON Patch for ``obj`` (each item's, under ``/items/N``, for a ``List``)."""
    if not isinstance(obj, Mapping) or not obj.get("apiVersion") or not obj.get("kind"):
        return []  # not a Kubernetes object (a values file, a CI workflow): GANG000's or nobody's
    if not is_list(obj):
        return mutate(obj, fleet, request_namespace(obj, namespace))
    ops: list[dict[str, Any]] = []
    for i, item in enumerate(obj["items"]):
        if isinstance(item, Mapping):
            ops += [
                {**op, "path": f"/items/{i}{op['path']}"}
                for op in mutate(item, fleet, request_namespace(item, namespace))
            ]
    return ops


def fix_text(name: str, text: str, fleet: FleetContext, namespace: str) -> FileFix:
    """The fixed text of the file ``name`` (see the module docstring); never raises for bad input."""
    if name.endswith(".json"):
        return _json(name, text, fleet, namespace)
    crlf = "\r\n" in text
    source = text.replace("\r\n", "\n") if crlf else text
    newline = source.endswith("\n") or not source  # a last line without its line end keeps none
    try:
        yamllimits.check_text(source)
        fixed, objects = _fix_pieces(source if newline else source + "\n", fleet, namespace)
        fixed = fixed if newline else fixed.removesuffix("\n")
    except yaml.YAMLError as exc:  # the limits of gpufleet.yamlin.yamllimits, checked on the whole text
        return FileFix(name, text, text, error=f"cannot parse it as YAML ({getattr(exc, 'problem', None) or exc})")
    except (rtyaml.NotFixable, rtpatch.PatchError) as exc:
        return FileFix(name, text, text, error=str(exc))
    return FileFix(name, text, fixed.replace("\n", "\r\n") if crlf else fixed, objects)


def _json(name: str, text: str, fleet: FleetContext, namespace: str) -> FileFix:
    """A JSON manifest is never rewritten (printed back it would lose its layout); said only when it needs a fix."""
    try:
        yamllimits.check_text(text)
        needed = any(patch_for(obj, fleet, namespace) for obj in yaml.load_all(text, Loader=yamllimits.Loader))
    except yaml.YAMLError:
        return FileFix(name, text, text, error="cannot parse it as JSON")
    return FileFix(
        name,
        text,
        text,
        error="the controller would change it, but a JSON manifest is not rewritten "
        "(fix: add the defaults the findings name by hand, or write it as YAML)"
        if needed
        else None,
    )


def _fix_pieces(text: str, fleet: FleetContext, namespace: str) -> tuple[str, int]:
    pieces, line, plans = rtyaml.split(text), 1, []
    for piece in pieces:  # every document read, and its patch made, before any is changed
        line += 1 if piece.marker else 0
        obj = _read(piece.body, line) if piece.has_content else None
        plans.append((piece, line, obj, patch_for(obj, fleet, namespace) if obj is not None else []))
        line += piece.body.count("\n")
    out = [
        piece.marker + (_patched(piece.body, obj, ops, start) if ops else piece.body)
        for piece, start, obj, ops in plans
    ]
    return "".join(out), sum(1 for *_, ops in plans if ops)


def _read(body: str, line: int) -> Any:
    """The document as kubectl and the linter read it (YAML 1.1, the linter's limits): what the mutator sees."""
    try:
        return yamllimits.load(body)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {line + mark.line}: " if mark is not None else ""
        raise rtyaml.NotFixable(f"{where}cannot parse it as YAML ({getattr(exc, 'problem', None) or exc})") from None


def _patched(body: str, obj: Any, ops: list[dict[str, Any]], line: int) -> str:
    """``body`` with ``ops`` applied; checked: read back as kubectl reads it, the text is ``obj`` patched, or NotFixable."""
    tree = rtyaml.load(body, line)
    layout, base = rtyaml.layout_of(tree, body)
    rtpatch.apply(tree, ops)
    printed = rtyaml.dump(tree, layout)
    text = printed if base is None else rtyaml.merge(body, base, printed)
    if text is None and rtyaml.comments(body) == rtyaml.comments(printed):
        text = printed  # a document that cannot be printed back as written, without comments to lose (one flow line)
    expected = rtpatch.to_tree(obj)
    rtpatch.apply(expected, ops)
    if text is None or _read(text, line) != rtyaml.plain(expected):
        raise rtyaml.NotFixable(
            f"line {line}: ruamel.yaml cannot print this document back as it is written, and the "
            "defaults could not be placed in it alone (fix: write its multi-line flow collections "
            "({...}, [...]) in block style, or add the defaults the findings name by hand)"
        )
    return text


def unified_diff(fix: FileFix) -> str:
    """``fix`` as a unified diff, ``a/`` and ``b/`` before a relative name (``git apply`` takes it); ``""`` when unchanged."""
    if not fix.changed:
        return ""
    old, new = (fix.name, fix.name) if os.path.isabs(fix.name) else (f"a/{fix.name}", f"b/{fix.name}")
    lines = difflib.unified_diff(fix.before.splitlines(keepends=True), fix.after.splitlines(keepends=True), old, new)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def write(fix: FileFix) -> None:
    """Replace the file with the fixed text atomically (same folder, same mode); raises OSError."""
    folder = os.path.dirname(fix.name) or "."
    mode = os.stat(fix.name).st_mode & 0o7777
    handle, temp = tempfile.mkstemp(prefix=".gpufleet-fix-", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(fix.after)
        os.chmod(temp, mode)
        os.replace(temp, fix.name)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
