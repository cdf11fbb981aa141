"""The aiohttp application: admission paths from the registry, health, readiness, metrics.

Built by the server (``gpufleet.webhook.server``). Handlers only move bytes: the
admission pipeline is :func:`gpufleet.webhook.registry.serve`.

- ``POST <path>`` for each registered handler (``/validate``, ``/mutate``; ``/echo``
  with ``--bench-echo``); bodies over ``state.max_body`` get HTTP 400 unread.
- A body that has not fully arrived within ``state.body_timeout`` seconds (jittered down
  to 80 %, as the header deadline in ``gpufleet.webhook.connections``) gets HTTP 408;
  one still arriving when shutdown closes the listener gets HTTP 503 (both with
  ``Connection: close``), so every request whose headers were read is answered.
- Reviews that are expensive to check are answered by the worker process
  (``gpufleet.webhook.worker``, chosen by :func:`offloaded`):
  bodies over ``state.inline_bytes``, and ConfigMaps over ``state.inline_config_bytes``
  (the GANG5xx rules parse the Kueue or Volcano configuration a ConfigMap carries as
  YAML: about 2 ms per KiB, 30-60 ms for a 15 KiB one, which would stop every other
  request for that long). The event loop keeps serving (and ``/healthz`` keeps
  answering) while such a review is checked. Until the worker is up, the loop checks them.
- Every call reserves its body's size in ``state.budget`` (``gpufleet.webhook.budget``)
  before the body is read; one that does not fit the bytes in flight is answered 429 at
  once (``Retry-After: 1``, ``Connection: close``), its body unread. A call offloaded to
  the worker that is not answered within ``state.review_deadline`` seconds of its headers
  gets 503 (``gpufleet.webhook.worker``): a fast failure, never a slow one past the API
  server's timeout.
- A client that disconnects mid-body is logged at DEBUG, not as an error. A body aiohttp
  cannot decode (a bad ``Content-Encoding``) is answered 400 and its connection closed;
  nothing is logged as an unhandled exception (its payload is ended in :func:`_read`, so
  aiohttp does not drain it after the answer and meet the decoding error again).
- ``GET /healthz``: 200 while the process serves. ``GET /readyz``: 200 once the
  fleet context and TLS are loaded and until shutdown starts, else 503 with reasons.
- ``GET /metrics``: Prometheus text format.
- While draining (after SIGTERM) every response carries ``Connection: close``, so
  the API server's pooled keep-alive connections move to other replicas.
"""

from __future__ import annotations

import asyncio
import logging
import time

from aiohttp import web

from gpufleet.webhook.connections import jittered
from gpufleet.webhook.metrics import CONTENT_TYPE
from gpufleet.webhook.registry import Registry, record, serve
from gpufleet.webhook.review import error_body
from gpufleet.webhook.state import State

JSON = "application/json"
log = logging.getLogger("gpufleet.webhook")


def _refuse(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    response = web.Response(status=status, content_type=JSON, body=error_body(message), headers=headers)
    response.force_close()
    return response


async def _read(request: web.Request, state: State) -> bytes | web.Response:
    """The body, or the response refusing it (too large, too slow, shutting down, client gone)."""
    if request.content_length is not None and request.content_length > state.max_body:
        return _refuse(400, f"body exceeds the {state.max_body}-byte limit")
    try:
        if request.content.is_eof():  # the whole body is buffered already: the usual case
            return await request.read()
        reading = asyncio.ensure_future(request.read())
        done, _ = await asyncio.wait(
            (reading, state.closing), timeout=jittered(state.body_timeout), return_when=asyncio.FIRST_COMPLETED
        )
        if reading in done:
            return reading.result()
        reading.cancel()
        if state.closing.done():
            return _refuse(503, "the admission controller is shutting down; retry (another replica answers)")
        return _refuse(408, f"the request body did not arrive within {state.body_timeout:g}s")
    except web.HTTPRequestEntityTooLarge:
        return _refuse(400, f"body exceeds the {state.max_body}-byte limit")
    except (ConnectionError, asyncio.IncompleteReadError, web.HTTPException) as exc:
        log.debug("client went away while sending %s: %s", request.path, exc)
        return _refuse(400, "incomplete request body")
    except Exception as exc:  # noqa: BLE001 - aiohttp's payload errors (client aborts) vary by version
        if type(exc).__name__ in ("ClientPayloadError", "RequestPayloadError", "ClientConnectionResetError"):
            log.debug("request body on %s could not be read: %s", request.path, exc)
            # aiohttp would drain the rest after the answer and re-raise this error there, logged as an
            # unhandled exception with its traceback: end the payload here; the answer closes the connection
            request.content.feed_eof()
            return _refuse(
                400, "the request body could not be read: it was cut off, or its Content-Encoding does not decode"
            )
        raise


def offloaded(body: bytes, state: State) -> bool:
    """Whether this review is checked in the worker process instead of on the event loop.

    Decided on the raw bytes, before parsing: a large body, or a ConfigMap (the only
    kind whose check parses YAML it carries) that is not tiny. A body that merely
    mentions ``ConfigMap`` is checked by the worker too; that costs it nothing but a hop.
    """
    size = len(body)
    return size > state.inline_bytes or (size > state.inline_config_bytes and b"ConfigMap" in body)


def build_app(registry: Registry, state: State) -> web.Application:
    app = web.Application(client_max_size=state.max_body)

    def endpoint(request: web.Request) -> str:
        return request.path if request.path in registry.handlers else "other"

    async def admission(request: web.Request) -> web.StreamResponse:
        started = time.perf_counter()
        length = request.content_length
        size = state.max_body if length is None or length > state.max_body else length
        if not state.budget.reserve(size):
            state.metrics.observe(endpoint(request), "overloaded", time.perf_counter() - started)
            return _refuse(
                429,
                f"the admission controller has {state.budget.used} bytes of reviews in flight "
                "(--max-inflight-bytes); retry",
                {"Retry-After": "1"},
            )
        try:
            return await _admit(request, started)
        finally:
            state.budget.release(size)

    async def _admit(request: web.Request, started: float) -> web.StreamResponse:
        deadline = time.monotonic() + state.review_deadline
        body = await _read(request, state)
        if isinstance(body, web.Response):
            state.metrics.observe(
                endpoint(request), "invalid" if body.status != 503 else "unavailable", time.perf_counter() - started
            )
            return body
        if state.worker is not None and state.worker.ready and offloaded(body, state):
            checked = time.perf_counter()
            reply = await state.worker.check(state.fleet_generation, state.fleet, request.path, body, deadline)
            record(registry, state, request.path, reply, time.perf_counter() - checked)
        else:
            reply = serve(registry, state, request.path, body)
        return web.Response(status=reply.status, body=reply.body, content_type=JSON)

    async def healthz(request: web.Request) -> web.StreamResponse:
        return web.Response(text="ok\n")

    async def readyz(request: web.Request) -> web.StreamResponse:
        if state.ready:
            return web.Response(text="ok\n")
        return web.Response(status=503, text="not ready: " + "; ".join(state.not_ready_reasons()) + "\n")

    async def metrics(request: web.Request) -> web.StreamResponse:
        response = web.Response(body=state.metrics.render())
        response.headers["Content-Type"] = CONTENT_TYPE
        return response

    async def close_when_draining(request: web.Request, response: web.StreamResponse) -> None:
        if state.draining:  # the hook runs after aiohttp wrote its own Connection header
            response.force_close()
            response.headers["Connection"] = "close"

    for path in registry.paths():
        app.router.add_post(path, admission)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
    app.on_response_prepare.append(close_when_draining)
    return app
