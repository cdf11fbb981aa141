"""gpufleet.steps is import-light and installs on its own (the gpufleet-steps distribution in steps/)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = (
    "pydantic",
    "pulumi",
    "pulumi_kubernetes",
    "aiohttp",
    "prometheus_client",
    "yaml",
    "typer",
    "rich",
    "grpc",
    "kubernetes",
    "jsonschema",
)

PROBE = (
    "import json, sys; from gpufleet import steps; r = steps.Reporter(port=0, host='127.0.0.1', serve=True); "
    "r.report_step(3); import urllib.request; "
    "body = urllib.request.urlopen(f'http://127.0.0.1:{r.port}/metrics', timeout=5).read().decode(); r.stop(); "
    "print(json.dumps({'file': steps.__file__, 'modules': sorted(sys.modules), 'body': body}))"
)


def _probe(*args: str, cwd: Path, path: str | None = None) -> dict:
    code = PROBE if path is None else f"import sys; sys.path.insert(0, {path!r}); " + PROBE
    result = subprocess.run([sys.executable, *args, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_importing_it_pulls_in_none_of_gpufleets_heavy_dependencies(tmp_path):
    out = _probe(cwd=ROOT)
    heavy = sorted({m.split(".")[0] for m in out["modules"]} & set(HEAVY))
    assert heavy == []
    assert "gpufleet_training_step 3\n" in out["body"]


def test_the_steps_distribution_installs_alone_offline_and_works_without_gpufleet(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(ROOT / "steps", source, symlinks=False)  # resolves steps/gpufleet/steps -> gpufleet/steps
    target = tmp_path / "site"
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "--target",
            str(target),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    installed = sorted(p.relative_to(target).as_posix() for p in target.rglob("*.py"))
    assert installed == ["gpufleet/steps/__init__.py"]
    out = _probe("-S", cwd=tmp_path, path=str(target))  # -S: no site-packages, so not the gpufleet of this repo
    assert out["file"] == str(target / "gpufleet" / "steps" / "__init__.py")
    assert "pydantic" not in out["modules"] and "gpufleet.model" not in out["modules"]
    assert "gpufleet_training_step 3\n" in out["body"]


def test_the_distribution_ships_the_same_module_as_gpufleet():
    assert (ROOT / "steps" / "gpufleet" / "steps").resolve() == (ROOT / "gpufleet" / "steps").resolve()
