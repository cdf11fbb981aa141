"""What the sandbox needs from the machine is checked before anything starts, and a missing need says the fix."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpufleet.sandbox import kueue, needs
from gpufleet.sandbox.engines import BUILD, EnginesMissing
from gpufleet.sandbox.needs import NeedMissing, SandboxUnavailable

ROOT = Path(__file__).resolve().parents[2]


def refused(argv, **_):
    return subprocess.CompletedProcess(argv, 1, "", "unshare: unshare failed: Operation not permitted\n")


def test_a_user_who_cannot_make_a_mount_namespace_is_told_it_needs_root_before_anything_starts():
    with pytest.raises(NeedMissing) as missing:
        needs.mount_namespace(run=refused)
    text = str(missing.value)
    assert "Operation not permitted" in text and "root or CAP_SYS_ADMIN" in text and "docs/sandbox.md" in text
    assert "\n" not in text


def test_a_user_who_can_make_one_passes():
    needs.mount_namespace(run=lambda argv, **_: subprocess.CompletedProcess(argv, 0, "", ""))


def test_without_unshare_the_message_names_util_linux(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(NeedMissing, match="util-linux"):
        needs.mount_namespace()


def test_the_disk_line_names_the_cache_the_size_and_the_free_space_of_the_nearest_existing_folder(tmp_path):
    line = needs.disk_line(tmp_path / "not" / "yet" / "engines")
    assert f"about {needs.BUILD_GB} GB under {tmp_path / 'not' / 'yet' / 'engines'}" in line
    assert "GB free there" in line


def hung(argv, timeout, **_):
    raise subprocess.TimeoutExpired(argv, timeout)


def unrunnable(argv, **_):
    raise PermissionError(13, "Permission denied", argv[0])


@pytest.mark.parametrize(
    "run, words", [(hung, "did not finish in 30 s"), (unrunnable, "Permission denied")], ids=["hangs", "cannot-run"]
)
def test_a_probe_that_hangs_or_cannot_run_is_a_missing_need_in_one_line(run, words):
    with pytest.raises(NeedMissing) as missing:
        needs.mount_namespace(run=run)
    text = str(missing.value)
    assert words in text and "unshare --mount" in text and "docs/sandbox.md" in text and "\n" not in text


def test_a_missing_need_is_no_missing_engine_but_both_are_why_the_sandbox_is_unavailable():
    assert not issubclass(NeedMissing, EnginesMissing)
    assert issubclass(NeedMissing, SandboxUnavailable) and issubclass(EnginesMissing, SandboxUnavailable)


def test_the_probe_makes_the_namespace_kueue_runs_in():
    assert needs.PROBE == [*kueue.UNSHARE, "true"]
    argv = kueue.argv(Path("/bin/kueue"), Path("/c.yaml"), Path("/certs"))
    assert argv[: len(kueue.UNSHARE)] == kueue.UNSHARE


def test_the_go_needed_is_the_newest_go_directive_of_the_engines_modules(tmp_path):
    for engine, directive in (("a", "1.24.0"), ("b", "1.26.10"), ("c", "1.26.9"), ("d", "1.25")):
        (tmp_path / engine).mkdir()
        (tmp_path / engine / "go.mod").write_text(f"module x/{engine}\n\ngo {directive}\n\ntoolchain go1.27.1\n")
    assert needs.go_minimum(tmp_path) == "1.26.10"


def test_the_go_named_to_users_is_the_one_the_engines_need():
    assert needs.GO == f"Go {needs.go_minimum()} or newer" and needs.go_minimum()


DOCS = [ROOT / "README.md", ROOT / "docs" / "sandbox.md"]


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_the_docs_name_the_go_disk_and_minutes_the_build_needs(doc):
    text = doc.read_text()
    go = re.findall(r"Go (\d+\.\d+(?:\.\d+)?)(?:\*\*)? or newer|Go (\d+\.\d+(?:\.\d+)?)\+", text)
    assert go and {a or b for a, b in go} == {needs.GO_MIN}
    disk = re.findall(r"(?:[Aa]bout |~)(\d+) GB", text)
    assert disk and set(disk) == {str(needs.BUILD_GB)}
    minutes = re.findall(r"about (\d+) min\w* on 2 cores", text)
    assert minutes and set(minutes) == {str(needs.BUILD_MINUTES)}


def test_the_build_script_without_go_names_the_same_go_and_disk(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dirname", "awk", "sort", "tail", "cat"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    done = subprocess.run(
        [shutil.which("bash"), str(BUILD), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
    )
    assert done.returncode == 3
    assert f"install {needs.GO} (about {needs.BUILD_GB} GB of disk" in done.stderr
