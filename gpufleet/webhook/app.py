"""The aiohttp application: admission paths from the registry, health, readiness, metrics.

Built by the server (``gpufleet.webhook.server``). Handlers only move bytes: the
admission pipeline is :func:`gpufleet.webhook.registry.serve`.

- ``POST <path>`` for each registered handler (``/validate``, ``/mutate``; ``/echo``
  with ``--bench-echo``); bodies over ``state.max_body`` get HTTP 400 unread.
- ``GET /healthz``: 200 while the process serves. ``GET /readyz``: 200 once the
  fleet context and TLS are loaded and until shutdown starts, else 503 with reasons.
- ``GET /metrics``: Prometheus text format.
- While draining (after SIGTERM) every response carries ``Connection: close``, so
  the API server's pooled keep-alive connections move to other replicas.
"""

from __future__ import annotations

import time

from aiohttp import web

from gpufleet.webhook.metrics import CONTENT_TYPE
from gpufleet.webhook.registry import Registry, serve
from gpufleet.webhook.review import error_body
from gpufleet.webhook.state import State

JSON = "application/json"


def build_app(registry: Registry, state: State) -> web.Application:
    app = web.Application(client_max_size=state.max_body)

    async def admission(request: web.Request) -> web.StreamResponse:
        started = time.perf_counter()
        try:
            if request.content_length is not None and request.content_length > state.max_body:
                raise web.HTTPRequestEntityTooLarge(max_size=state.max_body, actual_size=request.content_length)
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            state.metrics.observe(request.path, "invalid", time.perf_counter() - started)
            response = web.Response(status=400, content_type=JSON,
                                    body=error_body(f"body exceeds the {state.max_body}-byte limit"))
            response.force_close()
            return response
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
