"""The controller image recipe: pinned, non-root, read-only friendly, and its dependencies cover the server."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.mutate.builders import fleet_dict, volcano_job

REPO = Path(__file__).resolve().parents[2]
CONTROLLER = REPO / "controller"
PYTHON_FLOOR = (3, 11, 17)
"""The oldest base Python accepted: the newest 3.11 security release when the base was last moved
(controller/README.md); 3.11.7 (2023) carried published CVEs (issue 30)."""
DEBIAN = "trixie"
"""Debian's current stable release; the slim base is built on it."""


def pins(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if match := re.fullmatch(r"([A-Za-z0-9_.\-]+)==(\S+)", line):
            out[re.sub(r"[-_.]+", "-", match.group(1)).lower()] = match.group(2)
    return out


def test_the_image_is_pinned_non_root_read_only_friendly_and_runs_the_webhook():
    text = (CONTROLLER / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11\.\d+-slim", text, re.M)
    assert re.search(r"^USER 65532(:65532)?$", text, re.M)
    assert "PYTHONDONTWRITEBYTECODE=1" in text and re.search(r"^EXPOSE 8443$", text, re.M)
    assert 'ENTRYPOINT ["python", "-m", "gpufleet.webhook"]' in text


def test_the_base_image_is_a_pinned_current_python_patch_on_the_current_debian():
    base = re.search(r"^FROM (\S+)", (CONTROLLER / "Dockerfile").read_text(), re.M).group(1)
    match = re.fullmatch(r"python:(\d+)\.(\d+)\.(\d+)-slim-([a-z]+)(?:@sha256:[0-9a-f]{64})?", base)
    assert match, f"{base}: not a pinned python:X.Y.Z-slim-<debian> tag"
    version, debian = tuple(int(g) for g in match.groups()[:3]), match.group(4)
    assert version[:2] == PYTHON_FLOOR[:2] and version >= PYTHON_FLOOR and debian == DEBIAN, base


def test_controller_pins_are_the_project_pins():
    project, controller = pins(REPO / "requirements.txt"), pins(CONTROLLER / "requirements.txt")
    assert controller and all(project.get(name) == version for name, version in controller.items()), {
        n: (v, project.get(n)) for n, v in controller.items() if project.get(n) != v
    }


def test_every_third_party_module_the_server_loads_is_in_the_image():
    script = """
import sys
baseline = set(sys.modules)
from gpufleet.fleetctx.context import FleetContext
from gpufleet.webhook.handlers import build_registry
from gpufleet.webhook.registry import serve
from gpufleet.webhook.state import State
import gpufleet.webhook.server, gpufleet.webhook.app, orjson
state = State()
state.use_fleet(FleetContext.from_dict(%s))
job = %s
registry = build_registry()
for path in registry.paths():
    serve(registry, state, path, orjson.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
          "request": {"uid": "u", "operation": "CREATE", "namespace": "research", "object": job}}))
import json, importlib.metadata as md
dists = md.packages_distributions()
tops = {m.split('.')[0] for m in set(sys.modules) - baseline} - set(sys.stdlib_module_names) - {'gpufleet'}
print(json.dumps(sorted({d for m in tops for d in dists.get(m, [])})))
""" % (fleet_dict(), volcano_job(2))
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True).stdout
    loaded = {re.sub(r"[-_.]+", "-", d).lower() for d in json.loads(out.splitlines()[-1])}
    allowed = set(pins(CONTROLLER / "requirements.txt")) | set(pins(CONTROLLER / "constraints.txt"))
    assert loaded and loaded <= allowed, (
        f"missing from controller/requirements.txt or constraints.txt: {loaded - allowed}"
    )
