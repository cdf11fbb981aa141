"""Resident memory of a process and of its children, read from /proc (Linux); 0 when the process is gone.

Used by the benchmarks that report memory: bench/webhook_abuse.py, bench/webhook_flood.py
and bench/sandbox_bench.py.
"""

from __future__ import annotations

from pathlib import Path


def rss_mb(pid: int) -> float:
    """``VmRSS`` of ``pid`` in MiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def children(pid: int) -> list[int]:
    """The PIDs of ``pid``'s direct children."""
    try:
        return [int(kid) for kid in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def children_rss_mb(pid: int) -> float:
    """Resident memory of ``pid``'s descendants (a server's review worker), summed."""
    return sum(rss_mb(kid) + children_rss_mb(kid) for kid in children(pid))
