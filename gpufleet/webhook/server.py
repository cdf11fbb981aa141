"""``python -m gpufleet.webhook``: flags, startup, file watching and graceful shutdown.

Every flag has an environment fallback (``GPUFLEET_<FLAG>``) so the Pulumi
component can set either; values are range-checked (:data:`RANGES`) and a bad one
exits 2 with one line. Startup loads the TLS pair (exit 1 with a clear message
if it cannot) and the fleet context (the server starts anyway and stays unready
until the file is valid), then starts the review worker process (``gpufleet.webhook.worker``)
and waits up to 30 s for it before listening. A watcher polls both files every
``--reload-interval`` seconds.

On SIGTERM or SIGINT: readiness turns 503 and every response says
``Connection: close`` for ``--shutdown-delay`` seconds (endpoint removal reaches
the API server meanwhile), then the listener closes, idle keep-alive connections
are closed, in-flight requests get ``--shutdown-timeout`` seconds, and the process
exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import gc
import logging
import os
import signal
import sys
from dataclasses import dataclass
from typing import Any, Callable, NoReturn, Sequence

from aiohttp import web

from gpufleet.rules import engine
from gpufleet.rules.engine import freeze, matches
from gpufleet.settings import load_crds
from gpufleet.webhook.app import build_app
from gpufleet.webhook.budget import Budget
from gpufleet.webhook.connections import GuardedSite
from gpufleet.webhook.handlers import build_registry
from gpufleet.webhook.reload import FleetSource, TlsSource
from gpufleet.webhook.state import MAX_BODY, MAX_INFLIGHT, REVIEW_DEADLINE, State
from gpufleet.webhook.worker import MAX_PENDING, Worker
from gpufleet.yamlin.errors import ModelError

log = logging.getLogger("gpufleet.webhook")
WORKER_START_SECONDS = 30.0
# The listen backlog, and so the most connections asyncio accepts in one pass of the loop, each with its
# TLS state and handler before any byte is read: 512 let a burst of plain connects take ~190 MB at once.
BACKLOG = 128


@dataclass(frozen=True)
class Config:
    cert: str = "/etc/gpufleet/tls/tls.crt"
    key: str = "/etc/gpufleet/tls/tls.key"
    fleet_context: str = "/etc/gpufleet/fleet/fleet-context.json"
    host: str = "0.0.0.0"
    port: int = 8443
    reload_interval: float = 5.0
    shutdown_delay: float = 3.0
    shutdown_timeout: float = 10.0
    max_body_bytes: int = MAX_BODY
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    idle_timeout: float = 60.0
    max_connections: int = 1000
    handshake_timeout: float = 10.0
    max_inflight_bytes: int = MAX_INFLIGHT
    worker_queue: int = MAX_PENDING
    review_deadline: float = REVIEW_DEADLINE
    ca: str = ""
    log_level: str = "info"
    bench_echo: bool = False
    bench_ignore: str = ""
    reuse_port: bool = False
    crds: str = ""  # a folder of CRDs on top of the carried schemas (gpufleet.settings.load_crds)
    no_crds: bool = False  # the schema rules off


# flag -> (lowest, highest) accepted; anything else exits 2 with one line naming the flag.
RANGES: dict[str, tuple[float, float]] = {
    "port": (0, 65535),
    "reload_interval": (0.1, 3600),
    "shutdown_delay": (0, 300),
    "shutdown_timeout": (0.1, 300),
    "max_body_bytes": (4096, 64 * 1024 * 1024),
    "header_timeout": (0.1, 600),
    "body_timeout": (0.1, 600),
    "idle_timeout": (0.1, 3600),
    "max_connections": (1, 100_000),
    "handshake_timeout": (0.1, 600),
    "max_inflight_bytes": (4096, 1024 * 1024 * 1024),
    "worker_queue": (1, 10_000),
    "review_deadline": (0.1, 30),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line and exit 2 (main), not usage text
        raise ValueError(message)


def _check_ranges(cfg: Config) -> None:
    for name, (low, high) in RANGES.items():
        value = getattr(cfg, name)
        if not low <= value <= high:  # also false for NaN
            flag, var = "--" + name.replace("_", "-"), "GPUFLEET_" + name.upper()
            raise ValueError(f"{flag} (or {var}) is {value:g}, outside {low:g}..{high:g}")
    if cfg.max_inflight_bytes < cfg.max_body_bytes:
        raise ValueError(
            f"--max-inflight-bytes (or GPUFLEET_MAX_INFLIGHT_BYTES) is {cfg.max_inflight_bytes}, below "
            f"--max-body-bytes ({cfg.max_body_bytes}): the largest review could never be read; raise it"
        )


def parse_args(argv: Sequence[str] | None = None, env: dict[str, str] | None = None) -> Config:
    env = dict(os.environ if env is None else env)
    d = Config()
    p = _Parser(
        prog="python -m gpufleet.webhook", description="gpufleet gang-admission controller (HTTPS admission webhook)."
    )

    def opt(flag: str, kind: Callable[[str], Any], default: Any, text: str, **extra: Any) -> None:
        var = "GPUFLEET_" + flag.upper().replace("-", "_")
        try:
            value = kind(env.get(var, default))
        except ValueError:
            raise ValueError(f"{var}={env[var]!r} is not a valid {getattr(kind, '__name__', 'value')}") from None
        p.add_argument(f"--{flag}", type=kind, default=value, help=f"{text} (env {var}; default %(default)s)", **extra)

    opt("cert", str, d.cert, "PEM serving certificate (chain), reloaded when it changes")
    opt("key", str, d.key, "PEM private key of the certificate")
    opt("fleet-context", str, d.fleet_context, "fleet context JSON (render_context output), reloaded when it changes")
    opt("host", str, d.host, "address to listen on")
    opt("port", int, d.port, "HTTPS port (0 picks a free one)")
    opt("reload-interval", float, d.reload_interval, "seconds between checks of the mounted files")
    opt("shutdown-delay", float, d.shutdown_delay, "seconds to keep serving with Connection: close after SIGTERM")
    opt("shutdown-timeout", float, d.shutdown_timeout, "seconds in-flight requests get once the listener closes")
    opt("max-body-bytes", int, d.max_body_bytes, "largest AdmissionReview accepted; larger gets HTTP 400")
    opt(
        "header-timeout",
        float,
        d.header_timeout,
        "seconds (at most: 80-100%% per connection) a request line and headers may take once they start; then the connection closes",
    )
    opt(
        "body-timeout",
        float,
        d.body_timeout,
        "seconds (at most: 80-100%% per connection) a request body may take after its headers; then HTTP 408",
    )
    opt("idle-timeout", float, d.idle_timeout, "seconds a keep-alive connection may stay idle (or send nothing at all)")
    opt(
        "max-connections",
        int,
        d.max_connections,
        "open connections per replica (counted once their TLS handshake is done); more are closed at once",
    )
    opt(
        "handshake-timeout", float, d.handshake_timeout, "seconds a new connection may take to finish its TLS handshake"
    )
    opt(
        "max-inflight-bytes",
        int,
        d.max_inflight_bytes,
        "request-body bytes in flight at once across all connections; "
        "a call beyond it gets HTTP 429 at once, its body unread",
    )
    opt(
        "worker-queue",
        int,
        d.worker_queue,
        "large reviews waiting for or in the review worker process; one more gets HTTP 503 at once",
    )
    opt(
        "review-deadline",
        float,
        d.review_deadline,
        "seconds from a call's headers to its answer for a review the "
        "worker checks; then HTTP 503 (keep it below the webhook's timeoutSeconds, 3)",
    )
    opt(
        "ca",
        str,
        d.ca,
        "PEM CA bundle the serving certificate must chain to (checked on every load; empty: not checked)",
    )
    opt(
        "crds",
        str,
        d.crds,
        "directory of CRD YAML files checked on top of the CRD schemas gpufleet carries (same "
        "group/version/kind: the directory's wins), read at start; empty: the carried schemas only",
    )
    p.add_argument(
        "--no-crds",
        action="store_true",
        default=env.get("GPUFLEET_NO_CRDS", "") in ("1", "true"),
        help="check no CRD schema: the schema rules (GANG601, GANG602) stay quiet (env GPUFLEET_NO_CRDS)",
    )
    opt("log-level", str.lower, d.log_level, "log level", choices=["debug", "info", "warning", "error"])
    p.add_argument(
        "--bench-echo",
        action="store_true",
        default=env.get("GPUFLEET_BENCH_ECHO", "") in ("1", "true"),
        help="also serve POST /echo (allow-all, the benchmark's floor); never in production",
    )
    p.add_argument(
        "--bench-ignore",
        default=env.get("GPUFLEET_BENCH_IGNORE", ""),
        metavar="CODES",
        help="with --bench-echo only: /validate skips these rules (codes or prefixes, comma separated, or "
        "ALL), so the benchmark can measure what the rules cost (env GPUFLEET_BENCH_IGNORE)",
    )
    p.add_argument(
        "--reuse-port",
        action="store_true",
        default=env.get("GPUFLEET_REUSE_PORT", "") in ("1", "true"),
        help="bind with SO_REUSEPORT, so several server processes (one per core) share the port and "
        "the kernel spreads connections over them (env GPUFLEET_REUSE_PORT)",
    )
    ns = p.parse_args(argv)
    if ns.log_level not in ("debug", "info", "warning", "error"):
        p.error(f"GPUFLEET_LOG_LEVEL={ns.log_level!r} is not one of debug, info, warning, error")
    cfg = Config(**{k: v for k, v in vars(ns).items()})
    _check_ranges(cfg)
    _check_ignore(cfg)
    _check_crds(cfg)
    return cfg


def _check_crds(cfg: Config) -> None:
    if cfg.crds and cfg.no_crds:
        raise ValueError("give either --crds DIR (GPUFLEET_CRDS) or --no-crds (GPUFLEET_NO_CRDS), not both")
    if cfg.crds and not os.path.isdir(cfg.crds):
        raise ValueError(f"--crds (or GPUFLEET_CRDS) {cfg.crds} is not a directory: give a folder of CRD YAML files")


def _check_ignore(cfg: Config) -> None:
    """``--bench-ignore`` only with ``--bench-echo``, and only patterns that name some rule."""
    patterns = freeze(cfg.bench_ignore) or frozenset()
    if patterns and not cfg.bench_echo:
        raise ValueError(
            "--bench-ignore (or GPUFLEET_BENCH_IGNORE) needs --bench-echo: it is a benchmark's "
            "ablation, never a production setting (waive a rule per object instead)"
        )
    unknown = sorted(
        p for p in patterns if not any(matches(rule.code, frozenset({p})) for rule in engine.DEFAULT.rules)
    )
    if unknown:
        raise ValueError(
            f"--bench-ignore names no rule with {', '.join(unknown)} (codes look like GANG402 or a prefix "
            "like GANG4, or ALL)"
        )


async def serve_forever(cfg: Config, stop: asyncio.Event, on_listening: Callable[[int], None] | None = None) -> int:
    """Run until ``stop`` is set; returns the exit code."""
    ignore = freeze(cfg.bench_ignore) or None
    crds = (cfg.crds or None, not cfg.no_crds)
    try:
        schemas = load_crds(crds[0], bundled=crds[1])
    except ModelError as exc:
        log.error("the CRDs cannot be loaded: %s; fix --crds (GPUFLEET_CRDS)", "; ".join(exc.lines()))
        return 1
    state = State(
        crds=schemas,
        max_body=cfg.max_body_bytes,
        body_timeout=cfg.body_timeout,
        ignore_rules=ignore,
        budget=Budget(cfg.max_inflight_bytes),
        review_deadline=cfg.review_deadline,
        worker=Worker(cfg.bench_echo, cfg.max_body_bytes, cfg.log_level, ignore, cfg.worker_queue, crds),
    )
    state.metrics.track(lambda: state.budget.used, state.worker)
    fleet, tls = FleetSource(cfg.fleet_context, state), TlsSource(cfg.cert, cfg.key, state, ca=cfg.ca)
    try:
        ssl_context = tls.load()
    except ValueError as exc:
        log.error("%s; fix --cert/--key (GPUFLEET_CERT/GPUFLEET_KEY)", exc)
        return 1
    fleet.poll()
    await _start_worker(state)
    registry = build_registry(cfg.bench_echo)
    runner = web.AppRunner(
        build_app(registry, state),
        access_log=None,
        handle_signals=False,
        shutdown_timeout=cfg.shutdown_timeout,
        keepalive_timeout=cfg.idle_timeout,
    )
    await runner.setup()
    guard = {
        "max_connections": cfg.max_connections,
        "header_timeout": cfg.header_timeout,
        "on_refused": state.metrics.connections_refused.inc,
        "handshake_timeout": cfg.handshake_timeout,
    }
    site = GuardedSite(
        runner, cfg.host, cfg.port, guard, ssl_context=ssl_context, backlog=BACKLOG, reuse_port=cfg.reuse_port or None
    )
    try:
        await site.start()
    except OSError as exc:
        log.error("cannot listen on %s:%s: %s", cfg.host, cfg.port, exc)
        await runner.cleanup()
        state.worker.shutdown()
        return 1
    port = runner.addresses[0][1]
    # Everything loaded so far (modules, rule registry, fleet context) lives as long as
    # the process: move it out of the collector's generations, so the collections the
    # per-request garbage triggers stay cheap.
    gc.freeze()
    log.info("serving https://%s:%d (%s)", cfg.host, port, ", ".join(registry.paths()))
    if on_listening:
        on_listening(port)
    watcher = asyncio.create_task(_watch(cfg.reload_interval, fleet, tls, stop))
    await stop.wait()
    log.info("shutting down: draining for %.1fs", cfg.shutdown_delay)
    state.draining = True
    await asyncio.sleep(cfg.shutdown_delay)
    watcher.cancel()
    state.close()  # requests still receiving a body are answered 503 now
    await runner.cleanup()
    state.worker.shutdown()
    log.info("stopped")
    return 0


async def _start_worker(state: State) -> None:
    """Wait (at most :data:`WORKER_START_SECONDS`) for the review worker process before listening.

    Without it the server still serves: the app checks every review on the loop until it is up.
    """
    try:
        await asyncio.wait_for(asyncio.wrap_future(state.worker.start()), WORKER_START_SECONDS)
    except Exception as exc:  # noqa: BLE001 - a server without its worker is slower, not broken
        log.warning(
            "the review worker process did not start (%s); large reviews are checked on the event loop",
            type(exc).__name__,
        )


def _release_memory() -> None:
    """Give freed heap back to the OS (glibc's ``malloc_trim``); a no-op without glibc.

    Bursts of connections (each TLS connection holds buffers) leave the heap fragmented
    and the resident size high after they close; trimming after them keeps a replica's
    memory where it was (bench/webhook_abuse.py). ctypes releases the GIL during the call.
    """
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


async def _watch(interval: float, fleet: FleetSource, tls: TlsSource, stop: asyncio.Event) -> None:
    while not stop.is_set():
        await asyncio.sleep(interval)
        await asyncio.to_thread(_release_memory)
        for source in (fleet, tls):
            try:
                source.poll()
            except Exception:  # noqa: BLE001 - the watcher must survive anything
                log.exception("reload check of %s failed", type(source).__name__)


async def _main(cfg: Config) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return await serve_forever(cfg, stop)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        cfg = parse_args(argv)
    except ValueError as exc:  # a bad flag or GPUFLEET_* value: one line, exit 2 (like the CLI)
        print(f"gpufleet webhook: error: {exc} (see --help)", file=sys.stderr)
        return 2
    # Threads still share the GIL with the event loop (the worker process's queue feeder and
    # result threads, malloc_trim); a 1 ms switch interval (default 5 ms) gives the loop the
    # GIL back sooner while one runs, so small reviews and probes stay fast.
    sys.setswitchinterval(0.001)
    logging.basicConfig(
        level=cfg.log_level.upper(), stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    return asyncio.run(_main(cfg))
