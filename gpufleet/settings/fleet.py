"""The fleet half of the settings: a fleet context from a model file or a context JSON.

Called by :func:`gpufleet.settings.load.load_settings` (and by tests and the sandbox that
want a context alone). A model is loaded and digested by ``gpufleet.model`` and
``gpufleet.render.context`` (imported only then, so linting with a context JSON never
loads pydantic); a context JSON is read with a size cap, checked against
:mod:`gpufleet.fleetctx.contextschema` when ``strict`` (the webhook), and built by
``FleetContext.from_dict``. Every failure is a :class:`~gpufleet.yamlin.errors.ModelError`
naming the file and the fix.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from gpufleet.fleetctx.context import FleetContext
from gpufleet.util.boundedread import TooLarge, read_bounded
from gpufleet.yamlin.errors import Issue, ModelError


def load_fleet(*, model: str | None = None, context: str | None = None, strict: bool = False) -> FleetContext | None:
    """The fleet context of a model file or a context JSON (None without either)."""
    if model and context:
        raise ModelError(
            context,
            [
                Issue(
                    "",
                    "give either a fleet model or a fleet context, not both",
                    "drop one of --fleet / --fleet-context",
                )
            ],
        )
    if model:
        return fleet_context_from_model(model)
    return load_fleet_context(context, strict=strict) if context else None


MAX_CONTEXT_BYTES = 8 * 1024 * 1024
"""A fleet context larger than this is refused unread (a ConfigMap holds at most 1 MiB)."""


def load_fleet_context(path: str, strict: bool = False) -> FleetContext:
    """Read a fleet context JSON file (the shape in ``gpufleet.fleetctx.context``)."""
    try:
        raw = read_bounded(path, MAX_CONTEXT_BYTES, "fleet context")
        data = json.loads(raw)
    except TooLarge as exc:
        raise ModelError(
            path, [Issue("", f"the fleet context is larger than {exc.cap}", "render it again from the fleet model")]
        ) from None
    except OSError as exc:
        raise ModelError(
            path, [Issue("", f"cannot read the fleet context: {exc.strerror or exc}", "check the path")]
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(path, [_not_a_context(raw, exc)]) from None
    return fleet_context_from_dict(data, path, strict=strict)


MAKE_CONTEXT = "make one with `gpufleet render MODEL --out DIR` (it writes DIR/context/fleet-context.json)"


def _not_a_context(raw: bytes, exc: Exception) -> Issue:
    """Why ``raw`` is no fleet context: a fleet model given in its place, or simply not JSON."""
    head = raw[:65536].decode("utf-8", "replace")
    if "kind: Fleet" in head or "gpufleet.dev/v1alpha1" in head:
        return Issue(
            "(file)",
            "this is a fleet model (kind: Fleet), but a fleet context (JSON) was expected",
            f"pass the model with --fleet instead of --fleet-context, or {MAKE_CONTEXT}",
        )
    return Issue(
        "(file)", f"not a JSON fleet context ({exc})", f"pass the JSON written by `gpufleet render`; {MAKE_CONTEXT}"
    )


def fleet_context_from_dict(data: Any, source: str, strict: bool = False) -> FleetContext:
    """A FleetContext of a decoded document; ``strict`` checks it against the context schema first."""
    if strict:
        from gpufleet.fleetctx import contextschema

        issues = contextschema.validate(data)
        if issues:
            raise ModelError(source, issues)
    if not isinstance(data, Mapping):
        raise ModelError(
            source,
            [Issue("", "the fleet context must be a JSON object", "see gpufleet.fleetctx.context for its shape")],
        )
    try:
        return FleetContext.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelError(
            source, [Issue("", f"invalid fleet context: {what}", "regenerate it from the fleet model")]
        ) from None


def fleet_context_from_model(path: str) -> FleetContext:
    """Load a fleet model and digest it into a FleetContext (needs the model and render layers)."""
    try:
        from gpufleet.model import load_model
        from gpufleet.render.context import render_context
    except ImportError as exc:
        raise ModelError(
            path,
            [
                Issue(
                    "",
                    f"a fleet model needs the fleet model layer, which is not available ({exc})",
                    "pass a fleet context JSON instead",
                )
            ],
        ) from None
    return fleet_context_from_dict(render_context(load_model(path)), path)
