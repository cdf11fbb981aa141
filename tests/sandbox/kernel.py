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


def zombie_children(parent: int) -> list[str]:
    """``PID (comm)`` of every child of ``parent`` that has exited and was not reaped."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # exited and reaped while we read
        fields = text[text.rindex(")") + 2 :].split()
        if fields[0] == "Z" and int(fields[1]) == parent:
            found.append(text[: text.rindex(")") + 1])
    return found
