"""Benchmark the gang-admission controller against the floods of issue 30: lockout and memory.

Starts ``python -m gpufleet.webhook`` on 127.0.0.1 with its default flags (1,000
connections, 32 MiB of request bodies in flight, 16 queued large reviews, a 2.5 s review
deadline) and runs, in this order:

1. **scan**: ``--scan`` (1,000) plain TCP connect-and-close calls, then ``--scan`` / 10
   connections that fail the certificate check, then one that never starts its
   handshake; then ``/readyz`` must answer 200 (before the fix it got an empty reply
   until the process restarted). Prints ``scan_locked_out``, how long ``/readyz``
   took to answer and the peak memory (server and worker) meanwhile (``scan_peak_mb``).
2. **flood**: ``--large`` (60) concurrent reviews of ``--large-mb`` (2.8) MB each, every
   one a Volcano Job with large annotations, sent at once; the server's and its review
   worker's resident memory is sampled every 20 ms. Prints the peak (server, worker,
   both; goal: both <= 256 MiB, the Deployment's limit), the slowest answer (goal
   <= 3 s, the webhook's timeout) and the answers by HTTP status (200 checked, 429 over
   the bytes in flight, 503 past the worker's queue or deadline).
3. the floor, in the same run: one such review alone (its answer time and the
   server's resident memory before the flood).

One JSON line; ``meets_goals`` is true when nothing locked out, every peak fits 256 MiB
and no answer took 3 s. ``bench/webhook_abuse.py`` runs the same phases (``flood``) after
its rounds.

    .venv/bin/python bench/webhook_flood.py [--scan 1000] [--large 60] [--large-mb 2.8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import ssl
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import webhook_bench as wb  # noqa: E402 - the same PKI, job and server start
from procmem import children, rss_mb  # noqa: E402

LIMIT_MB = 256.0  # the Deployment's memory limit (gpufleet/render/controller/workload.py)
TIMEOUT_S = 3.0  # the rendered webhooks' timeoutSeconds


def large_review(megabytes: float, uid: str) -> bytes:
    job = wb.mutated_job()
    count = int(megabytes * 1024 * 1024 / 220)
    job["metadata"]["annotations"] = {f"note-{i}": "x" * 200 for i in range(count)}
    return wb.review(job, uid)


def readyz_seconds(port: int, ca: Path, timeout: float = 10.0) -> float | None:
    """Seconds until ``/readyz`` answers 200 on a fresh connection, or None when it never does."""
    ctx = ssl.create_default_context(cafile=str(ca))
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            with (
                socket.create_connection(("127.0.0.1", port), timeout=2) as raw,
                ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
            ):
                tls.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if tls.recv(64).startswith(b"HTTP/1.1 200"):
                    return round(time.monotonic() - started, 3)
        except OSError:
            pass
        time.sleep(0.1)
    return None


def scan(port: int, ca: Path, count: int, pid: int) -> dict:
    sampler = Sampler(pid)
    sampler.start()
    for _ in range(count):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    wrong = ssl.create_default_context()  # the system's CAs: never the test CA
    for _ in range(max(1, count // 10)):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            try:
                wrong.wrap_socket(raw, server_hostname="127.0.0.1")
            except ssl.SSLError:
                pass
    silent = socket.create_connection(("127.0.0.1", port), timeout=5)  # never handshakes
    seconds = readyz_seconds(port, ca)
    silent.close()
    sampler.stop.set()
    sampler.join()
    return {
        "scan_connections": count,
        "scan_locked_out": seconds is None,
        "scan_readyz_seconds": seconds,
        "scan_peak_mb": round(sampler.both, 1),
    }


class Sampler(threading.Thread):
    """The server's and its children's resident memory every 20 ms, keeping the peaks."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.stop, self.server, self.worker, self.both = pid, threading.Event(), 0.0, 0.0, 0.0

    def run(self) -> None:
        while not self.stop.is_set():
            server, worker = rss_mb(self.pid), sum(rss_mb(kid) for kid in children(self.pid))
            self.server, self.worker = max(self.server, server), max(self.worker, worker)
            self.both = max(self.both, server + worker)
            time.sleep(0.02)


async def flood(base: str, ca: Path, bodies: list[bytes]) -> tuple[Counter, float]:
    ctx = ssl.create_default_context(cafile=str(ca))
    statuses: Counter = Counter()
    slowest = 0.0
    connector = aiohttp.TCPConnector(limit=len(bodies), ssl=ctx)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as session:

        async def one(body: bytes) -> None:
            nonlocal slowest
            started = time.perf_counter()
            try:
                async with session.post(
                    base + "/validate", data=body, headers={"Content-Type": "application/json"}
                ) as response:
                    await response.read()
                    statuses[str(response.status)] += 1
            except aiohttp.ClientError as exc:
                statuses[type(exc).__name__] += 1
            slowest = max(slowest, time.perf_counter() - started)

        await asyncio.gather(*(one(body) for body in bodies))
    return statuses, slowest


def flood_phase(base: str, ca: Path, pid: int, large: int, megabytes: float) -> dict:
    bodies = [large_review(megabytes, f"flood-{i}") for i in range(large)]
    alone_started = time.perf_counter()
    alone, _ = asyncio.run(flood(base, ca, bodies[:1]))
    alone_seconds = time.perf_counter() - alone_started
    before = rss_mb(pid) + sum(rss_mb(kid) for kid in children(pid))
    sampler = Sampler(pid)
    sampler.start()
    statuses, slowest = asyncio.run(flood(base, ca, bodies))
    sampler.stop.set()
    sampler.join()
    return {
        "flood_reviews": large,
        "flood_review_mb": megabytes,
        "flood_statuses": dict(statuses),
        "flood_slowest_s": round(slowest, 3),
        "alone_s": round(alone_seconds, 3),
        "alone_status": dict(alone),
        "rss_before_mb": round(before, 1),
        "peak_server_mb": round(sampler.server, 1),
        "peak_worker_mb": round(sampler.worker, 1),
        "peak_both_mb": round(sampler.both, 1),
    }


def meets_goals(result: dict) -> bool:
    return (
        not result["scan_locked_out"]
        and max(result["peak_both_mb"], result["scan_peak_mb"]) <= LIMIT_MB
        and result["flood_slowest_s"] <= TIMEOUT_S
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scan", type=int, default=1000, help="plain connect-and-close calls")
    parser.add_argument("--large", type=int, default=60, help="concurrent large reviews")
    parser.add_argument("--large-mb", type=float, default=2.8, help="size of each large review (MB)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server, port, ca = wb.serve_in(Path(tmp), pin=False)
        try:
            result = {
                "name": "webhook_flood",
                **scan(port, ca, args.scan, server.pid),
                **flood_phase(f"https://127.0.0.1:{port}", ca, server.pid, args.large, args.large_mb),
            }
        finally:
            server.terminate()
            server.wait(30)
    result["meets_goals"] = meets_goals(result)
    result["load_average"] = os.getloadavg()[0]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
