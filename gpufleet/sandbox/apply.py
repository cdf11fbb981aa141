"""Applying the rendered objects in ``gpufleet sandbox up``: retried while an engine starts, final on a denial.

An engine's webhook that is still starting makes the API server fail a request ("failed calling
webhook ... connection refused"), and a kind whose CRD was just installed may not be served yet:
those passes are retried, every ``interval`` seconds, for up to ``timeout``. An admission webhook
that *answers* and denies an object ("admission webhook "X" denied the request: ...") has judged
it, and judges it the same way again: after :data:`DENIAL_GRACE` seconds of the same denial (a
webhook that reads its informer's cache may not yet see an object applied a moment before, such
as a parent queue) it is final, :class:`Denied`, naming the object, quoting the webhook and
saying what to do. Called by :mod:`gpufleet.sandbox.up`; ``sandbox up``, ``try`` and ``whatif``
report it alike.
"""

from __future__ import annotations

import re
import time
from typing import Any, Callable, Iterable, Mapping

from gpufleet.sandbox.kube import Kube, Refused, WaitTimeout

DENIAL_GRACE = 5.0
"""Seconds a denial may still be a webhook's cache catching up before it is final."""

_DENIED = re.compile(r'admission webhook "(?P<webhook>[^"]+)" denied the request')
_VOLCANO = re.compile(r"^(?P<verb>validate|mutate)(?P<kind>[a-z]+)\.volcano\.sh$")

VERSIONS_DOC = 'docs/sandbox.md, "Versions"'


class Denied(Refused):
    """An admission webhook denied a rendered object: a final refusal, not an engine still starting."""

    def __init__(self, obj: str, webhook: str, message: str) -> None:
        self.obj, self.webhook, self.message = obj, webhook, message
        super().__init__(f"{obj}: {message} (fix: {fix(webhook)})")


def volcano_path(webhook: str) -> str | None:
    """The Volcano admission path that serves ``webhook`` (``validatequeue.volcano.sh`` -> ``/queues/validate``)."""
    match = _VOLCANO.match(webhook)
    return f"/{match['kind']}s/{match['verb']}" if match else None


def fix(webhook: str) -> str:
    """What to do about a denial by ``webhook``."""
    path = volcano_path(webhook)
    if path is not None:
        return (
            f"the sandbox runs Volcano v1.14.1, not v1.15.1 ({VERSIONS_DOC}): where v1.15.1 takes this object, "
            f"leave that check out with --volcano-without {path}; otherwise change the model"
        )
    return (
        "change the model so that this engine takes the object; a model `gpufleet validate` accepts should "
        "always apply, so report it too"
    )


def denial(exc: Refused) -> tuple[str, str] | None:
    """(webhook, message) when ``exc`` is an admission webhook's denial, else None (worth retrying)."""
    message = getattr(exc, "message", None) or str(exc)
    match = _DENIED.search(message)
    return (match["webhook"], message) if match else None


def apply_rendered(
    kube: Kube,
    manifests: Iterable[Mapping[str, Any]],
    timeout: float = 120.0,
    interval: float = 2.0,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Apply ``manifests`` in order, the whole (idempotent) pass again until it goes through.

    Raises :class:`Denied` once a webhook has denied an object for :data:`DENIAL_GRACE` seconds,
    :class:`~gpufleet.sandbox.kube.WaitTimeout` when other failures outlast ``timeout``.
    """
    objects = [dict(m) for m in manifests]
    deadline = clock() + timeout
    denied_since: float | None = None
    while True:
        try:
            kube.apply_all(objects)
            return
        except Refused as exc:
            denied = denial(exc)
            now = clock()
            if denied is None:
                denied_since, last = None, str(exc)
            else:
                denied_since = now if denied_since is None else denied_since
                if now - denied_since >= DENIAL_GRACE:
                    raise Denied(getattr(exc, "obj", "") or str(exc).split(": ", 1)[0], *denied) from None
                last = str(exc)
            if now >= deadline:
                raise WaitTimeout(
                    f"timed out after {timeout:.0f}s waiting for the rendered objects to apply; last seen: {last!r}"[
                        :2000
                    ]
                ) from None
            sleep(min(interval, 1.0) if denied is not None else interval)
