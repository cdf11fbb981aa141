"""The folder ``gpufleet render --out DIR`` writes, applied without Pulumi, refuses an unsafe gang twice over.

One sandbox of the dev model with the engines only (``gpufleet sandbox up --engines-only``: Kueue, Volcano and the
controller's backend, unregistered; nothing of the model applied). The test writes a Pulumi project beside the
model whose stack points the controller at that backend (``gpufleet:controllerUrl``, as ``sandbox up`` says), runs
the real ``gpufleet render --out DIR`` (no key asked for), adds the overlay docs/gitops.md gives for the CA
bundle ("The controller's certificate": the sandbox's CA), creates the serving Secret as that section says, and
applies it all with ``kubectl apply --server-side -k``. The dev model enforces the rules in both places
(``controller.enforcement: both``), so a Volcano Job whose ``minAvailable`` is below its replicas is refused:

- by the controller's webhook, with the API server's own policy for that rule unbound;
- by the API server's ValidatingAdmissionPolicy, with the webhook configuration removed.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from kubernetes.client.exceptions import ApiException

from gpufleet.sandbox.up import Options
from tests.e2e.sandbox_env import VC_API, running, vcjob

ROOT = Path(__file__).resolve().parents[2]
ADMISSION = "admissionregistration.k8s.io/v1"
POLICY = "gpufleet-gang001"
WEBHOOK = "gang-admission-controller"


def kubectl(sb, *args: str) -> str:
    done = subprocess.run(
        ["kubectl", f"--kubeconfig={sb.state.kubeconfig}", *args], capture_output=True, text=True, timeout=120
    )
    if done.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)}: {done.stderr}")
    return done.stdout


def project(tmp: Path, url: str) -> Path:
    """A Pulumi project whose stack names the dev model and the sandbox's controller URL; the model's path in it."""
    folder = tmp / "infra"
    folder.mkdir()
    (folder / "Pulumi.yaml").write_text("name: gitops-e2e\nruntime: python\n")
    (folder / "Pulumi.sandbox.yaml").write_text(
        yaml.safe_dump({"config": {"gpufleet:model": "fleet.yaml", "gpufleet:controllerUrl": url}})
    )
    shutil.copy(ROOT / "stacks" / "dev.fleet.yaml", folder / "fleet.yaml")
    return folder / "fleet.yaml"


def overlay(tmp: Path, rendered: Path, ca: bytes) -> Path:
    """docs/gitops.md's overlay: the rendered folder, its order kept, each webhook given the CA."""
    bundle = base64.b64encode(ca).decode()
    patches = []
    for path in sorted((rendered / "110-webhooks").glob("0*.yaml")):
        config = yaml.safe_load(path.read_text())
        ops = [
            {"op": "add", "path": f"/webhooks/{i}/clientConfig/caBundle", "value": bundle}
            for i in range(len(config["webhooks"]))
        ]
        patches.append({"target": {"kind": config["kind"], "name": WEBHOOK}, "patch": yaml.safe_dump(ops)})
    folder = tmp / "overlay"
    folder.mkdir()
    (folder / "kustomization.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "sortOptions": {"order": "fifo"},
                "resources": [f"../{rendered.name}"],
                "patches": patches,
            }
        )
    )
    return folder


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH: the test applies the folder as a user would, with kubectl apply -k")
    tmp = tmp_path_factory.mktemp("gitops")
    with running(ROOT / "stacks" / "dev.fleet.yaml", tmp, Options(engines_only=True)) as sb:
        tls = Path(sb.state.stack["gpufleet:controllerTlsDir"])
        model = project(tmp, sb.state.stack["gpufleet:controllerUrl"])
        out = tmp / "deploy"
        subprocess.run([sys.executable, "-m", "gpufleet", "render", str(model), "--out", str(out)], check=True, cwd=tmp)
        assert not any("PRIVATE KEY" in p.read_text() for p in out.rglob("*.yaml"))
        applied = overlay(tmp, out, (tls / "ca.crt").read_bytes())
        sb.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": sb.fleet.controller.namespace}})
        kubectl(
            sb,
            "-n",
            sb.fleet.controller.namespace,
            "create",
            "secret",
            "generic",
            "gang-admission-controller-tls",
            "--type=kubernetes.io/tls",
            f"--from-file=tls.crt={tls / 'tls.crt'}",
            f"--from-file=tls.key={tls / 'tls.key'}",
            f"--from-file=ca.crt={tls / 'ca.crt'}",
        )
        sb.wait("the folder applied", lambda: _apply(sb, applied), timeout=120, interval=3)
        sb.out = out
        sb.wait("the gang-rule policies enforced", lambda: POLICY in _refusal(sb, "probe"), timeout=90)
        yield sb


def _apply(sb, folder: Path) -> bool:
    """Apply the folder; False while an engine's webhook is not answering yet (retried)."""
    try:
        kubectl(sb, "apply", "--server-side", "--field-manager=gpufleet", "-k", str(folder))
        return True
    except AssertionError:
        return False


def _unsafe(name: str) -> dict:
    return vcjob(name, "alpha-vc", pods=2, gpus=2, queue="alpha", min_available=1)


def _refusal(sb, name: str) -> str:
    """The API server's answer to creating the unsafe gang (empty when it was admitted; it is then deleted)."""
    try:
        sb.create(_unsafe(name))
    except ApiException as exc:
        try:
            return str(json.loads(exc.body)["message"])  # the Status's message, quotes unescaped
        except (TypeError, ValueError, KeyError):
            return str(exc.body)
    sb.kube.delete(VC_API, "Job", name, "alpha-vc")
    return ""


def test_the_folder_created_the_controller_the_policies_and_the_webhooks(sandbox):
    assert sandbox.get("apps/v1", "Deployment", WEBHOOK, sandbox.fleet.controller.namespace) is not None
    assert sandbox.get(ADMISSION, "ValidatingAdmissionPolicy", POLICY) is not None
    assert sandbox.get(ADMISSION, "ValidatingAdmissionPolicyBinding", POLICY) is not None
    assert sandbox.get(ADMISSION, "ValidatingWebhookConfiguration", WEBHOOK) is not None


def test_the_controller_refuses_the_gang_with_the_rules_own_policy_unbound(sandbox):
    sandbox.kube.delete(ADMISSION, "ValidatingAdmissionPolicyBinding", POLICY)
    try:
        sandbox.wait(
            "only the webhook judging",
            lambda: "admission webhook" in (answer := _refusal(sandbox, "by-webhook")) and POLICY not in answer,
            timeout=60,
        )
        answer = _refusal(sandbox, "by-webhook")
        assert 'admission webhook "workloads.validate.gpufleet.dev" denied' in answer and "GANG001" in answer
        assert sandbox.get(VC_API, "Job", "by-webhook", "alpha-vc") is None
    finally:
        binding = next(
            (sandbox.out / "090-admission-policies").glob(f"*-validatingadmissionpolicybinding-{POLICY}.yaml")
        )
        sandbox.apply(yaml.safe_load(binding.read_text()))


def test_the_api_servers_policy_refuses_the_gang_with_the_webhook_gone(sandbox):
    sandbox.kube.delete(ADMISSION, "ValidatingWebhookConfiguration", WEBHOOK)
    sandbox.wait(
        "only the API server's policy judging",
        lambda: POLICY in (answer := _refusal(sandbox, "by-policy")) and "admission webhook" not in answer,
        timeout=60,
    )
    answer = _refusal(sandbox, "by-policy")
    assert f"ValidatingAdmissionPolicy '{POLICY}'" in answer and "GANG001" in answer
    assert sandbox.get(VC_API, "Job", "by-policy", "alpha-vc") is None
