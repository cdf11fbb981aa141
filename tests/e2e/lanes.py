"""The e2e tier in two lanes: which modules each of two pytest processes runs at once, so that their waits overlap.

An e2e module mostly waits on its engines (the differential tier and the whatif replays, with
their sandboxes, used 22 and 28 % of one core on 2 Dec 2026: docs/sandbox.md, "Measured"),
so two modules at a time take about the wall time of one. ``scripts/test.sh`` runs the test
command as two pytest processes at once: ``GPUFLEET_E2E_LANE=1/2 pytest`` (every other tier
first, then lane 1's e2e modules) and ``GPUFLEET_E2E_LANE=2/2 pytest tests/e2e`` (lane 2's).
tests/e2e/conftest.py reads the variable at collection and deselects the other lane's
modules; without it every module runs, as before. A module whose timing is part of what it checks (the whatif replays'
engine latency times the time scale) sets ``ALONE = True``: with :data:`LOCK_ENV` set, it waits
for the other lane's module in progress and runs with no other e2e module beside it
(:func:`turn`); such modules go to lane 1, after the other tiers.

:func:`assign` is pure (tests/sandbox/test_e2e_lanes.py): modules that lease one
sandbox (the same ``POOL``) stay in one lane; the heaviest group goes first to the lane
with the least expected work (lane 1 starts with :data:`HEAD`, the tiers before the e2e
tier), the modules that wait for the whole build weighed apart from the others: on a cold
cache they all run after the build, and the lane left with more of them ends the run (the
clean-clone run of 4 Dec 2026 gave lane 1 527 of their 709 expected seconds). Expected seconds per module are :data:`SECONDS`, measured; a module not listed counts
:data:`DEFAULT_SECONDS`. Both processes collect the same e2e modules, so they agree on the
split without talking to each other. The figures only balance the lanes: a wrong one makes
one lane finish later, it never drops or doubles a module.
"""

from __future__ import annotations

import fcntl
import os
import re
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Mapping

ENV = "GPUFLEET_E2E_LANE"
LOCK_ENV = "GPUFLEET_E2E_LOCK"
"""A file both lanes lock around each e2e module (scripts/test.sh makes it): :func:`turn`."""
HEAD = 330.0
"""Seconds of the tiers before the e2e tier, which lane 1 runs first (the clean-clone run of 2 Dec 2026,
14:50-15:29 UTC)."""
DEFAULT_SECONDS = 40.0
SECONDS = {  # seconds per module (setup, tests, teardown): that run's summary, sandbox starts included
    "test_difftier_e2e.py": 298,
    "test_whatif_e2e.py": 250,  # 184 in that run; the elastic replay since (278 s alone, idle, 4 Dec 2026)
    "test_diff_pulumi_e2e.py": 183,
    "test_faults_e2e.py": 179,
    "test_try_e2e.py": 134,
    "test_pulumi_e2e.py": 122,
    "test_policy_pack_e2e.py": 109,
    "test_kueue_e2e.py": 91,
    "test_essay_e2e.py": 73,
    "test_native_gang_e2e.py": 70,
    "test_partition_policy_e2e.py": 50,
    "test_kueue_labels_e2e.py": 48,
    "test_depends_on_e2e.py": 47,
    "test_pulumi_interrupt_e2e.py": 41,
    "test_required_topology_e2e.py": 40,
    "test_partition_e2e.py": 39,
    "test_yaml_program_e2e.py": 38,
    "test_alerts_sandbox_e2e.py": 35,
    "test_vap_e2e.py": 33,
    "test_installed_wheel_e2e.py": 32,
    "test_takeover_e2e.py": 25,
    "test_diff_e2e.py": 18,
    "test_controller_e2e.py": 17,
    "test_gang_alerts_e2e.py": 17,
    "test_ownership_e2e.py": 14,
    "test_controlplane_e2e.py": 14,
    "test_partition_exemption_e2e.py": 7,
    "test_namespace_guard_e2e.py": 7,
    "test_map_e2e.py": 149,  # not in that run: docs/webhook.md's figure for it (2 Dec 2026, shared cores)
    "test_kwok_retry_e2e.py": 35,  # not in that run: one 20 s rank touched at 10 s (3 Dec 2026)
    "test_jobset_conformance_e2e.py": 60,  # not in that run: three JobSets, failed rank each, on the dev sandbox (7 Dec 2026)
    "test_whatif_waiting_e2e.py": 238,  # alone, load 3.5-5.7 (7 Dec 2026)
}


def parse(text: str | None) -> tuple[int, int] | None:
    """``"K/N"`` as (K, N), lanes counted from 1; None when unset. Anything else is one clear error."""
    if not text:
        return None
    found = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not found or not 1 <= int(found.group(1)) <= int(found.group(2)):
        raise ValueError(f"{ENV}={text!r}: expected K/N with 1 <= K <= N, for example 1/2 (scripts/test.sh sets it)")
    return int(found.group(1)), int(found.group(2))


def seconds(module: str, table: Mapping[str, float] = SECONDS) -> float:
    """Expected seconds of ``module`` (a path or node id; its file name is looked up)."""
    return float(table.get(module.rsplit("/", 1)[-1], DEFAULT_SECONDS))


def assign(
    modules: list[tuple[str, str | None]],
    count: int,
    head: float = HEAD,
    table: Mapping[str, float] = SECONDS,
    alone: frozenset[str] = frozenset(),
    late: frozenset[str] = frozenset(),
) -> list[list[str]]:
    """Modules (name, pool key) split into ``count`` lanes, each lane in the order given; one pool key, one lane.
    Modules that run ``alone`` (and their pool peers) go to lane 1, where they run after the other tiers; their
    seconds count in every lane (the others wait meanwhile). The ``late`` modules (those that wait for the whole
    build: tests/e2e/engine_wait.py) are balanced among themselves: on a cold engine cache they all run after the
    build, so what each lane has of them is what it has left to do once the build ends."""
    groups: dict[str, list[str]] = {}
    for name, key in modules:
        groups.setdefault(name if key is None else f"\0{key}", []).append(name)
    loads = {False: [head] + [0.0] * (count - 1), True: [0.0] * count}  # early modules' work, late modules' work
    lane_of: dict[str, int] = {}
    heaviest = sorted(
        groups.values(), key=lambda g: (not alone & set(g), -sum(seconds(m, table) for m in g), sorted(g))
    )
    for group in heaviest:
        weight = sum(seconds(m, table) for m in group)
        load = loads[bool((late | alone) & set(group))]
        if alone & set(group):  # lane 1 runs it; every other lane waits meanwhile
            lane = 0
            load[:] = [x + weight for x in load]
        else:
            lane = min(range(count), key=lambda i: (load[i], i))
            load[lane] += weight
        lane_of.update((m, lane) for m in group)
    return [[name for name, _ in modules if lane_of[name] == lane] for lane in range(count)]


@contextmanager
def turn(path: Path, alone: bool) -> Iterator[float]:
    """Hold ``path`` for one e2e module: shared by the lanes' modules, exclusively by one that runs ``alone`` (its
    timing is part of what it checks: ``ALONE = True`` at module level), which waits for the other lane's module
    in progress and holds back its next. Yields the seconds waited. Two locks, so that a module waiting to run
    alone is not passed over by the other lane's next modules: each module first passes ``path.gate``
    (held by a module that waits to run alone, or runs), then locks ``path``."""
    began = time.monotonic()
    gate = os.open(f"{path}.gate", os.O_RDWR | os.O_CREAT, 0o600)
    body = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(gate, fcntl.LOCK_EX)
        if not alone:
            fcntl.flock(gate, fcntl.LOCK_UN)
        fcntl.flock(body, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        yield time.monotonic() - began
    finally:
        os.close(body)  # closing releases the locks
        os.close(gate)
