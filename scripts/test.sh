#!/usr/bin/env bash
# The README's test command: installs what the tests need into .venv (created with
# the python3 on PATH, 3.11 or newer), checks the import layering, types (mypy) and lint (ruff), then runs pytest.
# Builds the sandbox's engines from their Go modules when Go is on PATH (tests/e2e).
# Installs Prometheus (promtool and the server: Debian's `prometheus` package) for the
# gang-alert tests when missing and run as root with apt-get; elsewhere those tests skip.
# Without arguments, pytest runs as two processes at once, the e2e tier split between them (tests/e2e/lanes.py;
# GPUFLEET_E2E_LANES=1 for one). Without arguments, the tests that read ../shared (the `shared` marker) then run a
# second time with ../shared hidden (GPUFLEET_SHARED an empty folder), as on a clone without it: each must skip with
# its reason or pass. Usage: bash scripts/test.sh [pytest args...] (with arguments: one process, no second pass)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# requirements-dev.lock: every transitive dependency pinned with hashes (scripts/lock.sh makes it).
.venv/bin/python -m pip install -q --disable-pip-version-check --require-hashes -r requirements-dev.lock
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .
if ! command -v promtool >/dev/null 2>&1 || ! command -v prometheus >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing Prometheus (promtool, server) for the gang-alert tests"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends prometheus >/dev/null 2>&1 \
      || { apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null 2>&1 \
           && apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends prometheus >/dev/null 2>&1; } \
      || echo "   could not install prometheus: the promtool and end-to-end alert tests will skip"
  else
    echo "== promtool/prometheus missing and not root with apt-get: the gang-alert tests will skip"
  fi
fi
build_pid=""
lane2_pid=""
if command -v go >/dev/null 2>&1; then
  # The e2e tier runs the real engines, built from their Go modules into a cache outside
  # the clone (a second run builds nothing; cold, about 28 min on 2 cores: docs/sandbox.md).
  # The build runs in the background while the tests before tests/e2e run (pytest uses one
  # core, `go build` the other); the e2e tier waits for the sandbox's engines (built first) before its
  # first module, and for the whole build (GPUFLEET_ENGINES_BUILD_STATUS: the file its exit code goes to)
  # before a module that runs the Pulumi engines (built last) or runs alone (tests/e2e/engine_wait.py). Its stdout (engine folders)
  # is not needed here; its stderr says one line per engine when it starts and when it is
  # built (with its seconds) or cached, and names the log of a failed build.
  echo "== engines for the e2e tier (sandbox/engines/build.sh), in the background while the other tests run"
  status=$(mktemp -d)/engines.rc
  export GPUFLEET_ENGINES_BUILD_STATUS=$status
  set -m  # the build in its own process group, so that an interrupted run stops it (by that group's id)
  ( set +e; bash sandbox/engines/build.sh --with pulumi-yaml >/dev/null; echo $? > "$status.tmp" && mv "$status.tmp" "$status" ) &
  build_pid=$!
  set +m
  trap '[ -z "$build_pid" ] || kill -- -"$build_pid" 2>/dev/null || true' EXIT
else
  echo "== Go is not on PATH: the e2e tier's real-engine tests will skip"
fi
echo "== import layering (import-linter)"
.venv/bin/lint-imports
echo "== types (mypy: gpufleet/ and policies/, strict on the core) and lint (ruff check, ruff format --check)"
.venv/bin/mypy
.venv/bin/ruff check --quiet .
.venv/bin/ruff format --check --quiet .
# The tests marked `shared` (tests/conftest.py) again, with ../shared hidden: every tier but the e2e tier (its
# modules that read ../shared lease a sandbox first; tests/sandbox/test_difftrial.py checks the differential tier's
# schema cases, which a clone without ../shared met first, without one).
without_shared() {
  local empty
  empty=$(mktemp -d)
  echo "== the tests that read ../shared, again with it hidden (GPUFLEET_SHARED=$empty, empty), as on a clone without it"
  GPUFLEET_SHARED=$empty .venv/bin/python -m pytest -q -m shared --ignore=tests/e2e
}
set +e
if [ $# -eq 0 ] && [ "${GPUFLEET_E2E_LANES:-2}" = 2 ]; then
  # Two pytest processes at once (tests/e2e/lanes.py): an e2e module mostly waits on its engines, so two
  # overlap well on 2 cores. Here: every other tier, then e2e lane 1; in the background: e2e lane 2 alone,
  # its output to a log printed when it ends. GPUFLEET_E2E_LANES=1 (or any pytest argument) runs one process.
  lanes_dir=$(mktemp -d)
  lane2_log=$lanes_dir/e2e-lane2.log
  export GPUFLEET_E2E_LOCK=$lanes_dir/e2e.lock  # each e2e module holds it; one with ALONE = True alone
  echo "== tests: two pytest processes (tests/e2e/lanes.py); here the other tiers, then e2e lane 1 (tests/e2e last)"
  echo "== e2e lane 2 in the background (GPUFLEET_E2E_LANE=2/2 pytest tests/e2e), its log: $lane2_log (printed at its end)"
  set -m  # its own process group: an interrupted run sends it SIGINT (pytest then stops its sandboxes)
  GPUFLEET_E2E_LANE=2/2 .venv/bin/python -m pytest -q tests/e2e >"$lane2_log" 2>&1 &
  lane2_pid=$!
  set +m
  trap '[ -z "$lane2_pid" ] || { kill -INT "$lane2_pid" 2>/dev/null; wait "$lane2_pid"; }
        [ -z "$build_pid" ] || kill -- -"$build_pid" 2>/dev/null || true' EXIT
  GPUFLEET_E2E_LANE=1/2 .venv/bin/python -m pytest -q
  rc=$?
  [ "$rc" != 2 ] || kill -INT "$lane2_pid" 2>/dev/null  # pytest's exit 2: interrupted (Ctrl-C), so is lane 2
  if [ "$rc" != 2 ]; then
    without_shared
    rc_hidden=$?
    [ "$rc" != 0 ] || rc=$rc_hidden
  fi
  wait "$lane2_pid"
  rc2=$?
  lane2_pid=""
  echo "== e2e lane 2 (GPUFLEET_E2E_LANE=2/2 pytest tests/e2e), exit $rc2:"
  cat "$lane2_log"
  [ "$rc" != 0 ] || rc=$rc2
else
  echo "== tests (pytest; tests/e2e last)"
  .venv/bin/python -m pytest -q "$@"
  rc=$?
  if [ $# -eq 0 ] && [ "$rc" != 2 ]; then
    without_shared
    rc_hidden=$?
    [ "$rc" != 0 ] || rc=$rc_hidden
  fi
fi
set -e
if [ -n "$build_pid" ]; then
  wait "$build_pid" || true
  build_pid=""
  built=$(cat "$status" 2>/dev/null || echo "?")
  if [ "$built" != 0 ]; then
    echo "== the engine build FAILED (exit $built): its last lines are above; the e2e tier cannot run without it" >&2
    [ "$rc" != 0 ] || rc=1
  fi
fi
exit "$rc"
