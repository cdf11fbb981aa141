"""What the kernel says of a PID, read independently of ``gpufleet.sandbox.procs`` (tests of reaping use it)."""

from __future__ import annotations

from pathlib import Path


def kernel_state(pid: int) -> str:
    """The state letter in ``/proc/PID/stat`` ('Z' a zombie), or 'gone' once the PID is reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "gone"
    return stat[stat.rindex(")") + 2]
