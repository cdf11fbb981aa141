"""The wheel as a user installs it: it carries the Pulumi components and the policy pack (issue 33, point 1).

The checkout's sources are built into a wheel (offline) and installed into a fresh virtual
environment outside the repository; its dependencies come from this test's environment
(a ``.pth`` line after the venv's own site-packages, so the installed gpufleet is the one
imported). A Pulumi program of the user's, in a folder of its own, builds ``GpuFleet`` for
stacks/dev.fleet.yaml under ``pulumi.runtime.set_mocks``; the installed ``gpufleet
policy-pack`` writes a pack folder whose entry point Pulumi's way of starting a pack serves.
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest
import yaml

from gpufleet.model import load_model
from gpufleet.policypack.build import policies
from gpufleet.render import render_all
from gpufleet.util.policyfolder import FILES
from tests.install.checkout import ROOT, build_wheel, clean_env, install_outside, succeeds
from tests.policies.harness import Pack

PROGRAM = '''"""A user's Pulumi program: GpuFleet from the installed gpufleet, run under mocks; prints what it made."""
import json
import sys

import pulumi

import gpufleet
from gpufleet.model import load_model
from gpufleet.pulumi import GpuFleet, GpuFleetArgs

created = []


class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args):
        created.append(args.typ)
        outputs = dict(args.inputs)
        if args.typ.startswith("tls:"):  # pulumi-tls makes its PEMs in the provider
            outputs.update(privateKeyPem="KEY", certPem="CERT", publicKeyPem="PUB")
        return f"{args.name}-id", outputs

    def call(self, args):
        return {}, None


pulumi.runtime.set_mocks(Mocks(), project="platform", stack="dev", preview=False)
fleet = load_model(sys.argv[1])


outputs = {}


@pulumi.runtime.test
def deploy():
    made = GpuFleet(fleet.name, GpuFleetArgs(fleet))
    return pulumi.Output.all(made.cluster_queues, made.volcano_queues).apply(
        lambda queues: outputs.update(clusterQueues=queues[0], volcanoQueues=queues[1]))


deploy()  # returns once every registration has finished
print(json.dumps({"gpufleet": gpufleet.__file__, **outputs, "types": sorted(set(created))}))
'''


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    return install_outside(wheel, tmp_path_factory.mktemp("user") / "venv")


def test_the_wheel_carries_the_components_and_the_policy_pack(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    components = {f"gpufleet/pulumi/{p.name}" for p in (ROOT / "gpufleet" / "pulumi").glob("*.py")}
    pack = {f"gpufleet/policypack/{p.name}" for p in (ROOT / "gpufleet" / "policypack").glob("*.py")}
    assert "gpufleet/pulumi/fleet.py" in components and "gpufleet/policypack/pack.py" in pack
    assert components | pack | {"gpufleet/policypack/README.md"} <= names


def test_a_program_outside_the_repository_deploys_gpufleet_from_the_installed_wheel(venv, tmp_path):
    project = tmp_path / "platform"
    project.mkdir()
    (project / "__main__.py").write_text(PROGRAM)
    model = shutil.copy(ROOT / "stacks" / "dev.fleet.yaml", project / "fleet.yaml")
    out = succeeds([str(venv / "bin" / "python"), "__main__.py", str(model)], timeout=300, cwd=project, env=clean_env())
    made = json.loads(out.strip().splitlines()[-1])
    assert Path(made["gpufleet"]).is_relative_to(venv)
    rendered = render_all(load_model(ROOT / "stacks" / "dev.fleet.yaml"))
    queues = sorted(o.manifest["metadata"]["name"] for o in rendered.objects if o.manifest["kind"] == "ClusterQueue")
    assert queues and sorted(made["clusterQueues"]) == queues
    kinds = {f'{o.manifest["apiVersion"]}:{o.manifest["kind"]}' for o in rendered.objects}
    assert kinds <= {t.split(":", 1)[1].replace("core/v1:", "v1:") for t in made["types"]}, made["types"]


def test_the_installed_gpufleet_writes_a_pack_folder_that_pulumi_can_run(venv, tmp_path):
    folder = tmp_path / "policy"
    succeeds([str(venv / "bin" / "gpufleet"), "policy-pack", str(folder)], timeout=120, cwd=tmp_path, env=clean_env())
    assert sorted(p.name for p in folder.iterdir()) == sorted(FILES)
    settings = yaml.safe_load((folder / "PulumiPolicy.yaml").read_text())
    named = settings["runtime"]["options"]["virtualenv"]  # relative to the folder: no path of this machine
    assert not Path(named).is_absolute() and (folder / named).resolve() == venv.resolve()
    pack = Pack(python=str(venv / "bin" / "python"), pack_dir=folder)  # as Pulumi starts it: python -m pulumi.policy
    try:
        assert sorted(p.name for p in pack.info.policies) == sorted(p.name for p in policies())
    finally:
        pack.close()


def test_the_installed_gpufleet_writes_a_component_package_whose_provider_serves_gpufleet_index_gpufleet(
    venv, tmp_path
):
    """Started as gpufleet's language host starts it (``python FOLDER ENGINE``): it prints its port and answers GetSchema."""
    import grpc
    from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

    folder = tmp_path / "gpufleet-package"
    succeeds(
        [str(venv / "bin" / "gpufleet"), "pulumi-package", str(folder)], timeout=120, cwd=tmp_path, env=clean_env()
    )
    named = yaml.safe_load((folder / "PulumiPlugin.yaml").read_text())["runtime"]["options"]["virtualenv"]
    assert not Path(named).is_absolute() and (folder / named).resolve() == venv.resolve()
    provider = subprocess.Popen(
        [str(venv / "bin" / "python"), str(folder), "127.0.0.1:1"],
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = first_line(provider.stdout, timeout=60).strip()
        assert port.isdigit(), provider.stderr.read() if provider.poll() is not None else port
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            reply = provider_pb2_grpc.ResourceProviderStub(channel).GetSchema(
                provider_pb2.GetSchemaRequest(), timeout=60
            )
    finally:
        provider.terminate()
        provider.wait(timeout=30)
    schema = json.loads(reply.schema)
    assert list(schema["resources"]) == ["gpufleet:index:GpuFleet"]
    assert schema["resources"]["gpufleet:index:GpuFleet"]["requiredInputs"] == ["model"]


def first_line(stream, timeout: float) -> str:
    """The first line ``stream`` gives, or "" when none comes within ``timeout`` seconds (a silent process)."""
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(stream.readline()), daemon=True).start()
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        return ""


def test_a_process_that_prints_nothing_is_given_up_on_after_the_timeout():
    silent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert first_line(silent.stdout, timeout=1) == ""
    finally:
        silent.terminate()
        silent.wait(timeout=30)
