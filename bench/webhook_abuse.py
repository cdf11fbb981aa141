"""Benchmark the gang-admission controller under abuse: ordinary p99 with and without a hostile client.

Starts ``python -m gpufleet.webhook`` on 127.0.0.1 (default flags: header/body timeouts
10 s, idle 60 s, 1,000 connections) and measures ordinary ``/validate`` calls (the
64-replica Volcano Job of bench/webhook_bench.py) at ``--concurrency`` 16, alternating
``--rounds`` rounds of:

- **quiet**: only the ordinary client;
- **abused**: the same while a second process (``--hostile``) holds ``--stalled`` (200)
  TLS connections that drip request headers or bodies one byte a second (reconnecting
  whenever the server cuts them) and sends hostile reviews on 2 connections at
  ``--hostile-rate`` (100/s: more than one user gets past the API server's priority and
  fairness limits; an unlimited flood measures capacity, not hostility): GPU limits
  like ``1e<n>`` with distinct ``n``, 20,000-digit quantities, integers beyond 64 bits,
  objects nested 500 deep, and every 50th a ConfigMap carrying a distinct 15 KB Kueue
  configuration.

The hostile process then continues until it has sent ``--hostile-reviews`` (10,000)
distinct hostile reviews; the server's resident memory (``VmRSS``) is read before the
first, during the abuse and 6 s after the last (connections closed). Last come issue 30's floods
(``bench/webhook_flood.py``: ``--scan`` plain connect-and-close calls and failed handshakes,
then ``/readyz`` must still answer; ``--large`` concurrent 2.8 MB reviews, peak memory and
slowest answer), reported under ``floods``. Prints one JSON line: quiet and abused p50/p99, ``p99_ratio``
(abused / quiet; goal <= 1.5), ``rss_growth_mb`` (goal <= 50), hostile answers by status.
The server runs on CPU 0, both clients on CPU 1 (``--pin``, default with 2+ CPUs).
Also printed: the p99 of each round (quiet, abused), and the resident memory of the
server's child processes (its review worker) before, during and after.

Ablations (to find what makes the tail; the defaults are the benchmark): ``--stalled 0``
(hostile reviews only), ``--hostile-reviews 0`` (stalled connections only, held until the
rounds end), ``--kinds config,nested`` (only these review kinds, same rate),
``--stalled-mode headers|bodies``.

    .venv/bin/python bench/webhook_abuse.py [--requests 4000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import ssl
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import webhook_bench as wb  # noqa: E402 - the same PKI, job, server start and load driver
from procmem import children_rss_mb, rss_mb  # noqa: E402
from webhook_flood import flood_phase, scan  # noqa: E402 - issue 30's floods, after the rounds

NAMESPACE = wb.NAMESPACE


def envelope(obj: dict, uid: str) -> bytes:
    """``webhook_bench.review`` written by the standard library (integers beyond 64 bits stay exact)."""
    review = json.loads(wb.review({**obj, "spec": {}} if "spec" in obj else obj, uid))
    review["request"]["object"] = obj
    return json.dumps(review).encode()


KINDS = ("config", "exponent", "digits", "bigint", "nested")  # what hostile_review(i) sends, by i % 50


def kind_of(i: int) -> str:
    """``config`` for every 50th review, else the other four in turn."""
    return "config" if i % 50 == 0 else KINDS[1 + (i % 50 - 1) % 4]


def hostile_indices(count: int, kinds: set[str]) -> list[int]:
    """The first ``count`` review numbers whose kind is in ``kinds`` (all kinds: ``0..count-1``)."""
    out: list[int] = []
    i = 0
    while len(out) < count:
        if kind_of(i) in kinds:
            out.append(i)
        i += 1
    return out


def hostile_review(i: int) -> bytes:
    """The ``i``-th hostile review: distinct from every other one."""
    job = wb.mutated_job()
    container = job["spec"]["tasks"][1]["template"]["spec"]["containers"][0]
    kind = i % 50
    if kind == 0:
        config = "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n" + "".join(
            f"k{i}x{j}: {{a: [1, 2, {j}], b: value-{j}}}\n" for j in range(360)
        )
        obj = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"kueue-manager-config-{i}", "namespace": "kueue-system"},
            "data": {"controller_manager_config.yaml": config},
        }
        return envelope(obj, f"hostile-{i}")
    if kind % 4 == 1:
        container["resources"]["limits"]["nvidia.com/gpu"] = f"1e{999_999 + i}"
    elif kind % 4 == 2:
        container["resources"]["limits"]["nvidia.com/gpu"] = str(i) + "9" * 20_000
    elif kind % 4 == 3:
        job["spec"]["tasks"][1]["replicas"] = 2**64 + i
    else:
        nested: object = i
        for d in range(500):
            nested = [nested] if d % 2 else {"k": nested}
        job["metadata"]["annotations"] = {"x": json.dumps(nested)}
        job["spec"]["plugins"] = {"deep": [nested]}
    return envelope(job, f"hostile-{i}")


async def stalled(
    host: str, port: int, ctx: ssl.SSLContext, body: bool, stop: asyncio.Event, cuts: Counter, pause: Path
) -> None:
    """One connection dripping headers (or a body) a byte a second; reconnects when the server cuts it."""
    head = (
        b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
        if body
        else b"POST /validate HTTP/1.1\r\nHost: x\r\n"
    )
    while not stop.is_set():
        if pause.exists():  # a quiet round: no hostile connection at all
            await asyncio.sleep(0.2)
            continue
        try:
            reader, writer = await asyncio.open_connection(host, port, ssl=ctx, server_hostname="127.0.0.1")
            writer.write(head)
            while not stop.is_set() and not pause.exists():
                await writer.drain()
                if reader.at_eof():
                    break
                try:
                    data = await asyncio.wait_for(reader.read(4096), 1.0)
                    if not data:
                        break
                except TimeoutError:
                    writer.write(b"x" if body else b"X")
            cuts["cut"] += 1
            writer.close()
        except (OSError, ssl.SSLError, ConnectionError):
            cuts["refused"] += 1
            await asyncio.sleep(0.5)


async def hostile_main(args: argparse.Namespace) -> None:
    ctx = ssl.create_default_context(cafile=args.ca)
    stop = asyncio.Event()
    cuts: Counter = Counter()
    drips_body = {"both": lambda i: i % 2 == 1, "headers": lambda i: False, "bodies": lambda i: True}[args.stalled_mode]
    holders = [
        asyncio.create_task(stalled("127.0.0.1", args.port, ctx, drips_body(i), stop, cuts, Path(args.pause)))
        for i in range(args.stalled)
    ]
    statuses: Counter = Counter()
    url = f"https://127.0.0.1:{args.port}/validate"
    order = hostile_indices(args.hostile_reviews, set(args.kinds.split(",")))
    random.Random(1).shuffle(order)
    bodies = {i: hostile_review(i) for i in order}  # built before the run: the client's CPU is not the server's
    connector = aiohttp.TCPConnector(limit=2, ssl=ctx)
    print("ready", flush=True)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30)) as session:

        async def sender(part: list[int]) -> None:
            gap, due = 2.0 / args.hostile_rate, time.monotonic()
            for i in part:
                due += gap
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                async with session.post(url, data=bodies.pop(i), headers={"Content-Type": "application/json"}) as r:
                    await r.read()
                    statuses[r.status] += 1
                while Path(args.pause).exists():
                    await asyncio.sleep(0.2)
                    due = time.monotonic()

        await asyncio.gather(sender(order[0::2]), sender(order[1::2]))
        if not order:  # --hostile-reviews 0 (an ablation): hold the stalled connections until the rounds end
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    stop.set()
    await asyncio.gather(*holders, return_exceptions=True)
    print(json.dumps({"statuses": {str(k): v for k, v in statuses.items()}, "stalled": dict(cuts)}), flush=True)


async def ordinary(base: str, ca: Path, requests: int, concurrency: int) -> list[float]:
    ctx = ssl.create_default_context(cafile=str(ca))
    body = wb.review(wb.mutated_job(), "ordinary")
    latencies, _ = await wb.drive(
        base + "/validate", body, requests, concurrency, ctx, lambda d: b'"allowed":true' in d and b"status" not in d
    )
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=4000, help="ordinary requests per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--stalled", type=int, default=200)
    parser.add_argument("--hostile-reviews", type=int, default=10_000)
    parser.add_argument(
        "--hostile-rate", type=float, default=100.0, help="hostile reviews per second (both connections)"
    )
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help="hostile review kinds to send (an ablation; default all: %(default)s)"
    )
    parser.add_argument(
        "--stalled-mode",
        choices=["both", "headers", "bodies"],
        default="both",
        help="what the stalled connections drip (an ablation; default both: half each)",
    )
    parser.add_argument(
        "--scan",
        type=int,
        default=1000,
        help="after the rounds: plain connect-and-close calls, then a tenth as many failed "
        "handshakes (bench/webhook_flood.py; 0 with --large 0 skips the floods)",
    )
    parser.add_argument("--large", type=int, default=60, help="after the scan: concurrent 2.8 MB reviews")
    parser.add_argument("--pin", action=argparse.BooleanOptionalAction, default=(os.cpu_count() or 1) >= 2)
    parser.add_argument("--hostile", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--ca", help=argparse.SUPPRESS)
    parser.add_argument("--pause", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hostile:
        asyncio.run(hostile_main(args))
        return
    if args.pin:
        os.sched_setaffinity(0, {1})
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        server, port, ca = wb.serve_in(root, args.pin)
        base = f"https://127.0.0.1:{port}"
        pause = root / "pause"
        pause.touch()  # the hostile client holds its reviews until an abused round
        try:
            asyncio.run(ordinary(base, ca, 1000, args.concurrency))  # warm-up
            rss_before, kids_before = rss_mb(server.pid), children_rss_mb(server.pid)
            hostile = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--hostile",
                    "--port",
                    str(port),
                    "--ca",
                    str(ca),
                    "--pause",
                    str(pause),
                    "--stalled",
                    str(args.stalled),
                    "--hostile-reviews",
                    str(args.hostile_reviews),
                    "--hostile-rate",
                    str(args.hostile_rate),
                    "--kinds",
                    args.kinds,
                    "--stalled-mode",
                    args.stalled_mode,
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert hostile.stdout is not None and hostile.stdout.readline().strip() == "ready"
            quiet: list[float] = []
            abused: list[float] = []
            per_round: list[list[float]] = []
            for _ in range(args.rounds):
                quiet_round = asyncio.run(ordinary(base, ca, args.requests, args.concurrency))
                pause.unlink()
                time.sleep(2.0)  # the stalled connections open
                abused_round = asyncio.run(ordinary(base, ca, args.requests, args.concurrency))
                pause.touch()
                quiet += quiet_round
                abused += abused_round
                per_round.append(
                    [wb.figures(quiet_round, 1.0, 0.0)["p99_ms"], wb.figures(abused_round, 1.0, 0.0)["p99_ms"]]
                )
                time.sleep(1.5)  # the stalled connections close
            pause.unlink()
            rss_peak = rss_mb(server.pid)  # the hostile client still holds its stalled connections
            kids_peak = children_rss_mb(server.pid)
            out, _ = hostile.communicate(timeout=1800)
            time.sleep(6.0)  # closed connections are released; the server trims its heap every reload interval (5 s)
            rss_after, kids_after = rss_mb(server.pid), children_rss_mb(server.pid)
            hostile_result = json.loads(out.strip().splitlines()[-1])
            floods = (
                {**scan(port, ca, args.scan, server.pid), **flood_phase(base, ca, server.pid, args.large, 2.8)}
                if args.scan or args.large
                else {}
            )
        finally:
            server.terminate()
            server.wait(30)
    q, a = wb.figures(quiet, 1.0, 0.0), wb.figures(abused, 1.0, 0.0)
    result = {
        "name": "webhook_abuse",
        "concurrency": args.concurrency,
        "requests": len(quiet),
        "hostile_rate": args.hostile_rate,
        "stalled_connections": args.stalled,
        "quiet_p50_ms": q["p50_ms"],
        "quiet_p99_ms": q["p99_ms"],
        "abused_p50_ms": a["p50_ms"],
        "abused_p99_ms": a["p99_ms"],
        "p99_ratio": round(a["p99_ms"] / q["p99_ms"], 2),
        "rss_before_mb": round(rss_before, 1),
        "rss_abused_mb": round(rss_peak, 1),
        "rss_after_mb": round(rss_after, 1),
        "rss_growth_mb": round(rss_after - rss_before, 1),
        "rss_children_before_mb": round(kids_before, 1),
        "rss_children_abused_mb": round(kids_peak, 1),
        "rss_children_after_mb": round(kids_after, 1),
        "rss_growth_with_children_mb": round(rss_after + kids_after - rss_before - kids_before, 1),
        "round_p99_ms": per_round,
        "hostile": hostile_result,
        "floods": floods,
        "load_average": os.getloadavg()[0],
    }
    if args.kinds != ",".join(KINDS) or args.stalled_mode != "both":
        result["ablation"] = {
            "kinds": args.kinds,
            "stalled_mode": args.stalled_mode,
            "hostile_reviews": args.hostile_reviews,
        }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
