#!/usr/bin/env bash
# The README's test command: installs what the tests need into .venv (created with
# the python3 on PATH, 3.11 or newer), checks the import layering, then runs pytest.
# Usage: bash scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .
echo "== import layering (import-linter)"
.venv/bin/lint-imports
echo "== tests (pytest)"
.venv/bin/python -m pytest -q "$@"
