"""`pulumi preview --policy-pack` from the installed wheel, against the sandbox (issue 33, point 1).

The wheel built from the checkout is installed in a virtual environment outside the repository
(``tests.install.checkout.install_outside``). A platform team's own project there (its
Pulumi.yaml names that environment) builds ``GpuFleet`` for the dev model with the sandbox's
stack config and declares one Volcano gang; the installed ``gpufleet policy-pack`` writes the
pack folder. The real Pulumi CLI, language host and Kubernetes provider run the preview.
"""

from __future__ import annotations

import subprocess

import pytest
import yaml

from gpufleet.model import load_model
from gpufleet.sandbox.up import Options
from tests.e2e.pulumi_env import REPO, Workspace
from tests.e2e.sandbox_env import vcjob
from tests.e2e.sandbox_pool import pool_key
from tests.e2e.test_policy_pack_e2e import VIOLATION, mandatory
from tests.install.checkout import build_wheel, clean_env, install_outside

NEEDS_PULUMI = True  # runs the Pulumi engines, built last: waits for the whole build, runs last (engine_wait)

PROGRAM = '''"""A platform team's program: the fleet and one Volcano gang, from the installed gpufleet."""
from pathlib import Path

import pulumi
import yaml

from gpufleet.model import load_model
from gpufleet.pulumi import GpuFleet, GpuFleetArgs, read_stack_config
from gpufleet.pulumi.manifest import ManifestCustomResource

config = read_stack_config(Path.cwd())
fleet = load_model(config.model)
GpuFleet(fleet.name, GpuFleetArgs(fleet, config.controller, config.chart_paths))
with open(pulumi.Config().require("jobFile")) as handle:
    job = yaml.safe_load(handle)
ManifestCustomResource(f"job-{job['metadata']['name']}", job)
'''


POOL = pool_key(REPO / "stacks" / "dev.fleet.yaml", Options(engines_only=True))


@pytest.fixture(scope="module")
def user(tmp_path_factory, sandbox_pool):
    """(workspace, the user's project folder, its venv) with the sandbox's engines running."""
    tmp = tmp_path_factory.mktemp("installed")
    venv = install_outside(build_wheel(tmp / "wheel"), tmp / "user" / "venv")
    project = tmp / "user" / "platform"
    project.mkdir()
    (project / "Pulumi.yaml").write_text(
        yaml.safe_dump({"name": "platform", "runtime": {"name": "python", "options": {"virtualenv": str(venv)}}})
    )
    (project / "__main__.py").write_text(PROGRAM)
    (project / "fleet.yaml").write_text((REPO / "stacks" / "dev.fleet.yaml").read_text())
    written = subprocess.run(
        [str(venv / "bin" / "gpufleet"), "policy-pack", "policy"],
        cwd=project,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert written.returncode == 0, written.stdout + written.stderr
    with sandbox_pool.lease(REPO / "stacks" / "dev.fleet.yaml", Options(engines_only=True)) as sandbox:
        yield Workspace(sandbox.state, tmp), project


def gang(name: str, min_available: int | None) -> dict:
    """A 2-rank Volcano gang of the dev model's first team: its Volcano namespace and queue, on the Volcano pool."""
    fleet = load_model(REPO / "stacks" / "dev.fleet.yaml")
    team = fleet.teams[0]
    [pool] = [p for p in fleet.pools if p.system == "volcano"]
    job = vcjob(
        name,
        team.volcano_namespaces[0],
        pods=2,
        gpus=2,
        queue=team.name,
        min_available=min_available,
        node_selector=dict(pool.node_labels),
    )
    job["spec"]["policies"].append({"event": "PodFailed", "action": "RestartJob"})
    job["spec"]["tasks"][0]["template"]["metadata"]["labels"]["gpufleet.dev/gang"] = name
    return job


def preview(ws: Workspace, project, name: str, min_available: int | None):
    job = gang(f"{name}-job", min_available)
    (project / f"{name}.yaml").write_text(yaml.safe_dump(job, sort_keys=False))
    ws.stack(name, cwd=project, **{"gpufleet:model": "fleet.yaml", "platform:jobFile": str(project / f"{name}.yaml")})
    return ws.cli(
        "preview",
        "-s",
        name,
        "--policy-pack",
        "policy",
        "--policy-pack-config",
        str(REPO / "policies" / "ci.json"),
        cwd=project,
    )


def test_the_installed_pack_passes_the_fleet_and_a_full_gang(user):
    ws, project = user
    done = preview(ws, project, "full", min_available=None)
    assert done.code == 0, done.out[-3000:] + done.err[-3000:]
    assert "✅ gpufleet@v0.1.0" in done.out and VIOLATION.findall(done.out) == []


def test_the_installed_pack_fails_a_gang_below_its_size(user):
    ws, project = user
    done = preview(ws, project, "partial", min_available=1)
    assert done.code != 0
    assert "❌ gpufleet@v0.1.0" in done.out
    assert mandatory(done.out) == [
        ("gang001-min-below-replicas", "kubernetes:batch.volcano.sh/v1alpha1:Job: job-partial-job")
    ], done.out[-3000:]
