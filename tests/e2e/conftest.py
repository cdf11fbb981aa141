"""The e2e tier's session: the shared sandbox pool, the module order it needs, and where the time went.

- ``sandbox_pool`` (session): :class:`tests.e2e.sandbox_pool.Pool`; every sandbox it holds is
  stopped by its PIDs when the session ends;
- the e2e modules run last, after the other tiers, and wait for the engines scripts/test.sh builds in
  the background meanwhile (tests/e2e/engine_wait.py): the session for the sandbox's engines, a module
  that needs the Pulumi engines or runs alone for the whole build; such modules run last;
- modules that declare the same ``POOL`` (``pool_key(model, options)``) run one after another,
  each group where its first module would have run, so that they reuse one sandbox;
- with ``GPUFLEET_E2E_LANE=K/N`` (scripts/test.sh: two pytest processes at once) only lane K's
  e2e modules run (tests/e2e/lanes.py), the rest deselected; with ``GPUFLEET_E2E_LOCK`` each
  module holds the lanes' lock, a module with ``ALONE = True`` alone (the summary says who waited);
- the terminal summary lists the seconds of each e2e module (setup, tests and teardown) and
  of each sandbox start, and which leases reused a running sandbox.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import pytest

from tests.e2e import engine_wait, lanes, sandbox_env
from tests.e2e.sandbox_pool import Pool, grouped

E2E = "tests/e2e/"
_MODULE_SECONDS: dict[str, float] = defaultdict(float)
_POOLS: list[Pool] = []
_WAITS: list[tuple[str, float, bool]] = []  # (module, seconds waited for the lanes' lock, ran alone)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The e2e modules last (scripts/test.sh builds the engines meanwhile), those of one ``POOL`` together; with
    ``GPUFLEET_E2E_LANE=K/N`` only lane K's e2e modules (tests/e2e/lanes.py), the others deselected."""
    by_module: dict[str, list[pytest.Item]] = {}
    keys: dict[str, str | None] = {}
    for item in items:
        name = item.nodeid.split("::")[0]
        by_module.setdefault(name, []).append(item)
        keys.setdefault(name, getattr(getattr(item, "module", None), "POOL", None))
    e2e = [(name, key) for name, key in keys.items() if name.startswith(E2E)]
    rest = [name for name in keys if not name.startswith(E2E)]
    late = {name for name, _ in e2e if engine_wait.is_late(getattr(by_module[name][0], "module", None))}
    order = engine_wait.late_last(grouped(e2e), keys, late)
    try:
        lane = lanes.parse(os.environ.get(lanes.ENV))
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    if lane is not None:
        alone = frozenset(name for name in order if getattr(by_module[name][0].module, "ALONE", False))
        split = lanes.assign([(name, keys[name]) for name in order], lane[1], alone=alone, late=frozenset(late))
        mine = set(split[lane[0] - 1])
        config.hook.pytest_deselected(items=[item for name in order if name not in mine for item in by_module[name]])
        order = [name for name in order if name in mine]
    items[:] = [item for name in rest + order for item in by_module[name]]


@pytest.fixture(scope="session", autouse=True)
def engines_built(request) -> None:
    """Wait for the sandbox's engines from scripts/test.sh's background build before the first e2e test; a
    failed build ends the run (its lines are above, from build.sh)."""
    _wait(request, engine_wait.EARLY, "the sandbox's engines")


@pytest.fixture(scope="module")
def whole_build(request) -> None:
    """A module that needs the Pulumi engines or runs alone waits for the whole build (before the lanes' lock)."""
    if engine_wait.is_late(request.module):
        _wait(request, None, "the whole engine build")


def _wait(request, engines: tuple[str, ...] | None, what: str) -> None:
    try:
        waited = engine_wait.wait(engines)
    except (engine_wait.BuildEnded, TimeoutError) as exc:
        pytest.exit(f"{exc}; the e2e tier did not run", returncode=1)
    if waited >= 1:
        write = request.config.pluginmanager.get_plugin("terminalreporter").write_line
        write(f"e2e tier: {request.node.name} waited {waited:.0f} s for {what}")


@pytest.fixture(scope="module", autouse=True)
def lane_turn(request, whole_build):
    """With two lanes (``GPUFLEET_E2E_LOCK``), each module holds the lanes' lock: shared, or alone
    (``ALONE = True``)."""
    path = os.environ.get(lanes.LOCK_ENV)
    if not path:
        yield
        return
    alone = bool(getattr(request.module, "ALONE", False))
    with lanes.turn(Path(path), alone) as waited:
        if alone and sandbox_env.POOL is not None:
            sandbox_env.POOL.retire_idle()  # this lane's idle sandbox would run beside it (the other's may)
        if waited >= 1:
            _WAITS.append((request.module.__name__.rsplit(".", 1)[-1], waited, alone))
        yield


@pytest.fixture(scope="session")
def sandbox_pool(tmp_path_factory):
    pool = Pool(tmp_path_factory.mktemp("pool"), sandbox_env.running)
    sandbox_env.POOL = pool
    _POOLS.append(pool)
    try:
        yield pool
    finally:
        sandbox_env.POOL = None
        pool.close()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.nodeid.startswith(E2E):
        _MODULE_SECONDS[report.nodeid.split("::")[0]] += report.duration


def pytest_terminal_summary(terminalreporter) -> None:
    if not _MODULE_SECONDS:
        return
    write = terminalreporter.write_line
    terminalreporter.section("e2e tier: seconds per module (setup, tests, teardown)")
    for name, seconds in sorted(_MODULE_SECONDS.items(), key=lambda kv: -kv[1]):
        write(f"{seconds:8.1f}  {name}")
    starts = sandbox_env.STARTS
    write(
        f"sandboxes started: {len(starts)}, {sum(s for _, s in starts):.0f} s in all"
        + (f" (slowest {max(s for _, s in starts):.0f} s)" if starts else "")
    )
    for name, waited, alone in _WAITS:
        why = "to end (it runs alone)" if alone else "that ran alone"
        write(f"{name} waited {waited:.0f} s for the other lane's module {why}, counted above")
    for pool in _POOLS:
        reused = sum(r for _, r in pool.leases)
        write(f"shared sandboxes: {len(pool.leases)} leases, {reused} reused a running sandbox")
        for why in pool.retired:
            write(f"  stopped after its lease, not clean: {why}")
