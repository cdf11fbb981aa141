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


@pytest.mark.parametrize("model", STACKS, ids=lambda p: p.name)
def test_out_dash_is_the_folders_documents_as_one_stream_in_apply_order(model, tmp_path, capsys):
    code, stream, err = cli(["render", str(model), "--out", "-"], capsys)
    assert code == 0 and err == "", err
    assert cli(["render", str(model), "--out", str(tmp_path / "out")], capsys)[0] == 0
    files = sorted(p for p in (tmp_path / "out").iterdir() if p.is_file())  # what `kubectl apply -f DIR` reads
    docs = list(yaml.safe_load_all(stream))
    assert docs == [yaml.safe_load(p.read_text()) for p in files]
    assert stream.count("\n---\n") == len(files) - 1 and not stream.startswith("---")


def test_without_out_render_says_so_in_one_line_and_exits_2(capsys):
    code, out, err = cli(["render", str(STACKS[0])], capsys)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "--out DIR" in err and "--out -" in err and "fix:" in err


def test_the_hint_after_out_dir_says_what_a_plain_apply_needs_first(tmp_path, capsys):
    prod = ROOT / "stacks" / "prod.fleet.yaml"
    code, out, _ = cli(["render", str(prod), "--out", str(tmp_path / "out")], capsys)
    assert code == 0
    first, *hint = out.splitlines()
    text = " ".join(hint)
    assert first.endswith("wrote 50 files to " + str(tmp_path / "out") + "/") and "apply with" not in first
    assert "Kueue in kueue-system" in text and "Volcano in volcano-system" in text and "CRDs" in text
    assert "create the namespace gpufleet-system (090-configmap-gang-admission-controller-fleet-context.yaml" in text
    assert (
        "the charts own 000-configmap-kueue-manager-config.yaml, 000-configmap-volcano-scheduler-configmap.yaml" in text
    )


def test_the_hint_names_the_coscheduling_chart_only_where_a_pool_uses_it(tmp_path, capsys):
    for model, shown in (("mixed", True), ("prod", False)):
        out = cli(["render", str(ROOT / "stacks" / f"{model}.fleet.yaml"), "--out", str(tmp_path / model)], capsys)[1]
        assert ("scheduler-plugins in" in out) is shown, out
        assert ("000-configmap-scheduler-config.yaml" in out) is shown, out
