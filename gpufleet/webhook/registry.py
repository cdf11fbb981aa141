"""Admission handlers registered by path, and ``serve``: one request body in, one reply out.

Handlers (``gpufleet.webhook.handlers``) register themselves like kopf's, with a
decorator naming the URL path they answer. :func:`serve` is the whole admission
pipeline without sockets (parse, dispatch, render, count), so tests and the
benchmark can drive it directly; the aiohttp app (``gpufleet.webhook.app``) only
moves bytes in and out of it.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from gpufleet.webhook.review import AdmissionRequest, BadReview, Verdict, error_body, parse_review, render_review

if TYPE_CHECKING:
    from gpufleet.webhook.state import State

Handler = Callable[[AdmissionRequest, "State"], Verdict]
log = logging.getLogger("gpufleet.webhook")


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    result: str
    denied_codes: tuple[str, ...] = ()


class Registry:
    """Path -> handler, filled with :meth:`admission` decorators."""

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {}

    def admission(self, path: str) -> Callable[[Handler], Handler]:
        def register(fn: Handler) -> Handler:
            if path in self.handlers:
                raise ValueError(f"two admission handlers for {path}")
            self.handlers[path] = fn
            return fn

        return register

    def paths(self) -> list[str]:
        return sorted(self.handlers)


def serve(registry: Registry, state: State, path: str, body: bytes) -> Reply:
    """Answer one admission call: 400 for a bad review, 503 before the fleet context loads, else 200."""
    started = time.perf_counter()
    reply = answer(registry, state, path, body)
    record(registry, state, path, reply, time.perf_counter() - started)
    return reply


def record(registry: Registry, state: State, path: str, reply: Reply, seconds: float) -> None:
    """Count one answered call in ``state.metrics`` (the worker process answers, the server counts)."""
    endpoint = path if path in registry.handlers else "other"
    state.metrics.observe(endpoint, reply.result, seconds)
    state.metrics.count_denials(reply.denied_codes)


def answer(registry: Registry, state: State, path: str, body: bytes) -> Reply:
    """:func:`serve` without the metrics."""
    handler = registry.handlers.get(path)
    if handler is None:
        return Reply(404, error_body(f"no admission handler at {path}; try {', '.join(registry.paths())}"), "invalid")
    if len(body) > state.max_body:
        return Reply(400, error_body(f"body of {len(body)} bytes exceeds the {state.max_body}-byte limit"), "invalid")
    try:
        request = parse_review(body)
    except BadReview as exc:
        return Reply(400, error_body(str(exc)), "invalid")
    if state.fleet is None:
        return Reply(503, error_body(f"fleet context {state.fleet_path} is not loaded yet; not ready"), "unavailable")
    verdict = handler(request, state)
    return Reply(200, render_review(request, verdict), verdict.result, tuple(verdict.denied_codes))
