"""A Pulumi YAML program deploys the dev stack through gpufleet's component package (issue 33, point 2).

A platform team's YAML project (``runtime: yaml``) names the folder ``gpufleet pulumi-package``
writes in its ``packages`` (what ``pulumi package add DIR`` records) and declares one
``gpufleet:index:GpuFleet`` with the dev model and the sandbox's settings as inputs. The real
Pulumi CLI, the YAML language host (engine ``pulumi-yaml``), gpufleet's Python language host
(which runs the component provider) and the Kubernetes provider run one ``pulumi up`` against a
sandbox running the engines only (``gpufleet sandbox up --engines-only``). Before it, the
project's own Python program is previewed for the same model and settings on the same sandbox:
the YAML stack must hold the same resources (type and name) under one more parent, every
Kubernetes object it records must be in the API server, and they must be what ``gpufleet plan``
lists. No destroy: the sandbox is dropped whole (tests/e2e/test_pulumi_e2e.py destroys a stack).
"""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml

from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.sandbox.engines import locate
from gpufleet.sandbox.up import Options
from tests.e2e.pulumi_env import REPO, Workspace, events, kubernetes_objects
from tests.e2e.sandbox_env import running
from tests.e2e.test_pulumi_e2e import label, plan_objects

NEEDS_PULUMI = True  # runs the Pulumi engines, built last: waits for the whole build, runs last (engine_wait)

MODEL = REPO / "stacks" / "dev.fleet.yaml"
COMPONENT = "gpufleet:index:GpuFleet"
BOOLEANS = {"true": True, "false": False}


def inputs(stack_config: dict[str, str]) -> dict:
    """The GpuFleet inputs for the stack config ``gpufleet:key: value`` (the inputs are the config keys)."""
    return {key.split(":", 1)[1]: BOOLEANS.get(value, value) for key, value in stack_config.items()}


def yaml_project(folder: Path, sandbox_stack: dict[str, str]) -> Path:
    """The platform team's YAML project: the package folder, the model, and Pulumi.yaml using GpuFleet."""
    folder.mkdir(parents=True)
    written = subprocess.run(
        [str(REPO / ".venv" / "bin" / "gpufleet"), "pulumi-package", "gpufleet-package"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert written.returncode == 0, written.stdout + written.stderr
    (folder / "fleet.yaml").write_text(MODEL.read_text())
    (folder / "Pulumi.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "platform",
                "runtime": "yaml",
                "packages": {"gpufleet": "./gpufleet-package"},
                "resources": {
                    "fleet": {"type": COMPONENT, "properties": {"model": "fleet.yaml", **inputs(sandbox_stack)}}
                },
                "outputs": {"clusterQueues": "${fleet.clusterQueues}", "volcanoQueues": "${fleet.volcanoQueues}"},
            },
            sort_keys=False,
        )
    )
    return folder


def type_and_name(urn: str) -> tuple[str, str]:
    _, _, qualified, name = urn.split("::", 3)
    return qualified.split("$")[-1], name


def own(pairs) -> set[tuple[str, str]]:
    """The program's own resources: no stack, no provider, not the package's component."""
    return {p for p in pairs if not p[0].startswith(("pulumi:pulumi:", "pulumi:providers:")) and p[0] != COMPONENT}


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """(sandbox, workspace, the YAML project, its up, the Python program's previewed resources)."""
    tmp = tmp_path_factory.mktemp("yaml-program")
    with running(MODEL, tmp / "sandbox", Options(engines_only=True)) as sandbox:
        ws = Workspace(sandbox.state, tmp)
        yaml_host = locate(["pulumi-yaml"]).binary("pulumi-language-yaml").parent
        ws.env["PATH"] = f"{yaml_host}{os.pathsep}{ws.env['PATH']}"
        ws.stack("dev")  # the Python program, same model and settings: previewed on the fresh sandbox first
        preview = ws.cli("preview", "-s", "dev", "--json")
        assert preview.code == 0, preview.out[-3000:] + preview.err[-3000:]
        python = own(type_and_name(step["urn"]) for step in preview.json()["steps"])
        program = yaml_project(tmp / "platform", sandbox.state.stack)
        ws.stack("dev", sandbox_config=False, cwd=program)
        up = ws.cli("up", "-s", "dev", "--yes", "--skip-preview", "--json", cwd=program)
        yield sandbox, ws, program, up, python


def test_the_yaml_program_up_succeeds(deployed):
    _, _, _, up, _ = deployed
    assert up.code == 0, up.out[-3000:] + up.err[-3000:]
    assert [e["summaryEvent"]["result"] for e in events(up.out) if "summaryEvent" in e] == ["succeeded"]


def test_it_creates_the_resources_the_python_program_creates_by_type_and_name_under_one_gpufleet_component(deployed):
    _, ws, program, up, python = deployed
    assert up.code == 0
    resources = ws.resources("dev", cwd=program)
    assert [r["type"] for r in resources].count(COMPONENT) == 1
    assert sum(1 for kind, _ in python if kind.startswith("kubernetes:")) == sum(plan_objects(ws, "dev").values())
    assert own(type_and_name(r["urn"]) for r in resources) == python


def test_every_kubernetes_object_it_records_is_in_the_api_server_and_is_what_gpufleet_plan_lists(deployed):
    sandbox, ws, program, up, _ = deployed
    assert up.code == 0
    objects = kubernetes_objects(ws.resources("dev", cwd=program))
    assert Counter(label(r) for r in objects) == plan_objects(ws, "dev")
    missing = [
        r["urn"]
        for r in objects
        if sandbox.get(
            r["outputs"]["apiVersion"],
            r["outputs"]["kind"],
            r["outputs"]["metadata"]["name"],
            r["outputs"]["metadata"].get("namespace"),
        )
        is None
    ]
    assert missing == []


def test_the_yaml_program_reads_the_fleets_queues_from_the_components_outputs(deployed):
    _, ws, program, up, _ = deployed
    assert up.code == 0
    outputs = ws.cli("stack", "output", "-s", "dev", "--json", check=True, cwd=program).json()
    rendered = [
        o.manifest["metadata"]["name"]
        for o in render_all(load_model(MODEL)).objects
        if o.engine == "kueue" and o.manifest["kind"] == "ClusterQueue"
    ]
    assert outputs["clusterQueues"] == rendered
