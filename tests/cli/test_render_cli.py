"""``gpufleet render``: ``--out -`` (one YAML stream), the missing ``--out`` in one line, an honest apply hint."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpufleet.cli.app import run

ROOT = Path(__file__).resolve().parents[2]
STACKS = sorted((ROOT / "stacks").glob("*.fleet.yaml"))


def cli(argv: list[str], capsys) -> tuple[int, str, str]:
    code = run(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _applied(folder: Path) -> list[Path]:
    """The files the root kustomization applies, in its order (what ``kubectl apply -k DIR`` reads)."""
    stages = yaml.safe_load((folder / "kustomization.yaml").read_text())["resources"]
    return [
        folder / stage / name
        for stage in stages
        for name in yaml.safe_load((folder / stage / "kustomization.yaml").read_text())["resources"]
    ]


@pytest.mark.parametrize("model", STACKS, ids=lambda p: p.name)
def test_out_dash_is_the_folders_documents_as_one_stream_in_apply_order(model, tmp_path, capsys):
    code, stream, err = cli(["render", str(model), "--out", "-"], capsys)
    assert code == 0 and err == "", err
    assert cli(["render", str(model), "--out", str(tmp_path / "out")], capsys)[0] == 0
    files = _applied(tmp_path / "out")
    docs = list(yaml.safe_load_all(stream))
    assert docs == [yaml.safe_load(p.read_text()) for p in files]
    assert stream.count("\n---\n") == len(files) - 1 and not stream.startswith("---")


def test_without_out_render_says_so_in_one_line_and_exits_2(capsys):
    code, out, err = cli(["render", str(STACKS[0])], capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "--out DIR" in err and "--out -" in err and "fix:" in err


def test_the_hint_after_out_dir_says_what_an_apply_needs_first(tmp_path, capsys):
    dev = ROOT / "stacks" / "dev.fleet.yaml"
    code, out, _ = cli(["render", str(dev), "--out", str(tmp_path / "out")], capsys)
    assert code == 0
    first, *hint = out.splitlines()
    text = " ".join(hint)
    written = sum(1 for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert first.endswith(f"wrote {written} files to " + str(tmp_path / "out") + "/")
    assert "Kueue in kueue-system" in text and "Volcano in volcano-system" in text and "CRDs" in text
    assert f"values in {tmp_path / 'out'}/engines/" in text
    assert "the Secret gpufleet-system/gang-admission-controller-tls" in text and "caBundle" in text


def test_with_cert_manager_the_hint_asks_for_no_secret(tmp_path, capsys):
    out = cli(["render", str(ROOT / "stacks" / "prod.fleet.yaml"), "--out", str(tmp_path / "out")], capsys)[1]
    assert "gang-admission-controller-tls" not in out and "Kueue in kueue-system" in out


def test_the_hint_names_the_coscheduling_chart_only_where_a_pool_uses_it(tmp_path, capsys):
    for model, shown in (("mixed", True), ("prod", False)):
        out = cli(["render", str(ROOT / "stacks" / f"{model}.fleet.yaml"), "--out", str(tmp_path / model)], capsys)[1]
        assert ("scheduler-plugins in" in out) is shown, out
        assert (tmp_path / model / "engines" / "coscheduling-values.yaml").is_file() is shown


def test_include_private_key_writes_a_serving_secret_whose_ca_the_webhooks_trust(tmp_path, capsys):
    import base64

    from cryptography import x509

    dev = ROOT / "stacks" / "dev.fleet.yaml"
    code, out, _ = cli(["render", str(dev), "--out", str(tmp_path / "out"), "--include-private-key"], capsys)
    assert code == 0 and "do not commit it" in out
    secret = yaml.safe_load((tmp_path / "out" / "095-controller-tls" / "000-secret-tls.yaml").read_text())
    data = secret["stringData"]
    assert "PRIVATE KEY" in data["tls.key"]
    ca = x509.load_pem_x509_certificate(data["ca.crt"].encode())
    serving = x509.load_pem_x509_certificate(data["tls.crt"].encode())
    serving.verify_directly_issued_by(ca)
    names = serving.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.DNSName
    )
    assert "gang-admission-controller.gpufleet-system.svc" in names
    hooks = [yaml.safe_load(p.read_text()) for p in (tmp_path / "out" / "110-webhooks").glob("0*.yaml")]
    bundles = {h["clientConfig"]["caBundle"] for d in hooks for h in d["webhooks"]}
    assert {base64.b64decode(b).decode() for b in bundles} == {data["ca.crt"]}


def test_include_private_key_is_refused_where_cert_manager_makes_the_key(tmp_path, capsys):
    prod = ROOT / "stacks" / "prod.fleet.yaml"
    code, _, err = cli(["render", str(prod), "--out", str(tmp_path / "out"), "--include-private-key"], capsys)
    assert code == 2 and "cert-manager" in err and "fix:" in err and not (tmp_path / "out").exists()
