"""Connection hygiene for the listener: a cap on open connections and a header deadline.

Used by the server (``gpufleet.webhook.server``) in place of aiohttp's ``TCPSite``.
aiohttp 3.14 (pinned) already closes a connection that stays idle, or never finishes
its first request line and headers, for ``keepalive_timeout`` seconds (its keep-alive
timer starts when the connection is made and is not pushed back by incoming bytes).
This module adds what it lacks:

- ``max_connections``: a connection is counted once its TLS handshake is done
  (asyncio calls ``connection_made`` then, and ``connection_lost`` only for a connection
  that was made), and given back when it closes; one beyond the cap is closed at once,
  counted in ``gpufleet_connections_refused_total``; the API server retries another
  replica. Counting before the handshake leaked a slot for every connection whose
  handshake failed or never came (a port scan, a TCP health check, a client refusing
  the certificate): asyncio never tells the application about those, so 1,000 plain
  connect-and-close calls locked every client out, ``/readyz`` included (issue 30).
- ``handshake_timeout`` (passed to ``create_server`` as ``ssl_handshake_timeout``): a
  connection that has not finished its handshake by then is closed, so connections that
  never handshake hold a socket for seconds, not asyncio's default minute.
- ``header_timeout``: once the first byte of a request arrives, its request line and
  headers must be complete within this many seconds, else the connection is closed
  (a slow-header client cannot hold it for the whole keep-alive time).
- Jitter: each deadline is the configured timeout times a random factor in
  [:data:`JITTER`, 1] (:func:`jittered`: never longer than configured). Stalled
  connections opened together are then cut over a spread of time instead of together,
  so their reconnects (each a TLS handshake on the event loop, ~1 ms) do not arrive as
  one burst: 200 of them at once held the loop 100-175 ms (docs/performance.md).

- ``TLS_READ_BUFFER``: asyncio gives every accepted TLS connection a read buffer of
  ``SSLProtocol.max_size`` (256 KiB) before its handshake starts, and accepts up to the
  listen backlog (512) connections per loop pass, so a burst of plain connects (a port
  scan) alone took a replica from 60 MB to about 390 MB, past its 256 Mi limit. The
  listener sets it to 32 KiB (two TLS records; reading a 3 MB body takes 96 reads instead
  of 12): the same burst costs an eighth (bench/webhook_flood.py, ``scan_peak_mb``).

The body deadline is in ``gpufleet.webhook.app`` (a 408 answer). The handler subclass
reads private fields of aiohttp's ``RequestHandler`` (``_request_count``,
``_current_request``, ``_messages``) and the server's ``_kwargs``, which is why aiohttp is pinned;
tests/webhook/test_abuse.py fails if they change.
"""

from __future__ import annotations

import asyncio
import asyncio.sslproto
import logging
import random
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

log = logging.getLogger("gpufleet.webhook")
JITTER = 0.8  # deadlines fall between 80 % and 100 % of the configured timeout
TLS_READ_BUFFER = 32 * 1024  # bytes of asyncio's per-connection TLS read buffer (its default: 256 KiB)


def jittered(timeout: float, rng: random.Random | None = None) -> float:
    """``timeout`` times a random factor in [JITTER, 1]: desynchronises the cuts of connections opened together."""
    return timeout * (rng or random).uniform(JITTER, 1.0)


class _Handler(RequestHandler):
    """aiohttp's handler with the header deadline and the open-connection count."""

    __slots__ = ("_guard", "_header_timer", "_counted")

    def __init__(self, guard: Guard, **kwargs: Any) -> None:
        super().__init__(guard.server, loop=asyncio.get_event_loop(), **kwargs)
        self._guard: Guard = guard
        self._header_timer: asyncio.TimerHandle | None = None
        self._counted = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Called once the TLS handshake is done: take a slot, or close at once beyond the cap."""
        if not self._guard.admit():
            transport.close()  # aiohttp never saw this connection: connection_lost skips it too
            return
        self._counted = True
        super().connection_made(transport)

    def _expire(self, count: int) -> None:
        self._header_timer = None
        if self._request_count == count and self.transport is not None:
            log.debug(
                "closing a connection whose request headers did not arrive within %.1fs", self._guard.header_timeout
            )
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        count = self._request_count
        if data and self._header_timer is None and self._current_request is None and not self._messages:
            # the first bytes of a new request (not body bytes of the one being handled)
            self._header_timer = asyncio.get_event_loop().call_later(
                jittered(self._guard.header_timeout), self._expire, count
            )
        super().data_received(data)
        if self._header_timer is not None and self._request_count != count:
            self._header_timer.cancel()  # the request line and headers are complete
            self._header_timer = None

    def connection_lost(self, exc: BaseException | None) -> None:
        if not self._counted:
            return
        self._counted = False
        self._guard.open -= 1
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().connection_lost(exc)


class Guard:
    """Protocol factory in place of aiohttp's ``Server``: connection cap, header deadline.

    ``open`` counts connections whose handshake is done and that have not closed yet.
    """

    def __init__(
        self,
        server: web.Server,
        max_connections: int,
        header_timeout: float,
        on_refused: Any,
        handshake_timeout: float = 10.0,
    ) -> None:
        self.server, self.max_connections, self.header_timeout = server, max_connections, header_timeout
        self.on_refused, self.handshake_timeout = on_refused, handshake_timeout
        self.open = 0

    def admit(self) -> bool:
        """Take a slot for a connection whose handshake just finished; False (and counted) beyond the cap."""
        if self.open >= self.max_connections:
            self.on_refused()
            return False
        self.open += 1
        return True

    def __call__(self) -> asyncio.Protocol:
        return _Handler(self, **self.server._kwargs)


class GuardedSite(web.TCPSite):
    """``TCPSite`` whose listener creates connections through a :class:`Guard`."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, guard_args: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(runner, host, port, **kwargs)
        self.guard_args = guard_args
        self.guard: Guard | None = None

    async def start(self) -> None:
        await web.BaseSite.start(self)
        server = self._runner.server
        assert server is not None
        self.guard = Guard(server, **self.guard_args)
        if self._ssl_context is not None:  # the class attribute asyncio reads for each new TLS connection
            asyncio.sslproto.SSLProtocol.max_size = TLS_READ_BUFFER
        self._server = await asyncio.get_running_loop().create_server(
            self.guard,
            self._host,
            self._port,
            ssl=self._ssl_context,
            backlog=self._backlog,
            ssl_handshake_timeout=self.guard.handshake_timeout if self._ssl_context else None,
            reuse_address=self._reuse_address,
            reuse_port=self._reuse_port,
        )
        self._bound_port = self._server.sockets[0].getsockname()[1] if self._server.sockets else self._port
