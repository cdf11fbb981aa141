"""A global budget of request-body bytes in flight, across every connection of one server.

Used by the app (``gpufleet.webhook.app``): each admission call reserves its body's
size (its ``Content-Length``, or ``--max-body-bytes`` when it sends none) before the body
is read, and gives it back once the answer is built. A call that would take the bytes in
flight past ``--max-inflight-bytes`` is answered 429 at once, its body unread, instead of
being read, parsed and queued behind the others.

Why: ``--max-body-bytes`` bounds one request, not how many arrive together. Sixty
concurrent 2.8 MB reviews took a server to 340 MB (past the Deployment's 256 Mi limit:
an OOM kill of every replica in turn) and its answers to 3.7 s (past the webhook's 3 s
timeout: every call failed anyway, slowly). With the budget, memory stays bounded by
``--max-inflight-bytes`` times the few copies a review takes in the server, and the calls
beyond it fail in microseconds, so the API server's retries reach a replica with room
(issue 30).
"""

from __future__ import annotations


class Budget:
    """Bytes reserved by calls in flight, at most ``limit`` (``limit`` >= the largest body)."""

    __slots__ = ("limit", "used", "refused")

    def __init__(self, limit: int) -> None:
        self.limit, self.used, self.refused = limit, 0, 0

    def reserve(self, size: int) -> bool:
        """Take ``size`` bytes when they fit; False (and counted in ``refused``) when they do not."""
        if self.used + size > self.limit:
            self.refused += 1
            return False
        self.used += size
        return True

    def release(self, size: int) -> None:
        self.used -= size
