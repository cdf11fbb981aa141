"""What the sandbox needs from the machine is checked before anything starts, and a missing need says the fix."""

from __future__ import annotations

import subprocess

import pytest

from gpufleet.sandbox import needs
from gpufleet.sandbox.engines import EnginesMissing


def refused(argv, **_):
    return subprocess.CompletedProcess(argv, 1, "", "unshare: unshare failed: Operation not permitted\n")


def test_a_user_who_cannot_make_a_mount_namespace_is_told_it_needs_root_before_anything_starts():
    with pytest.raises(EnginesMissing) as missing:
        needs.mount_namespace(run=refused)
    text = str(missing.value)
    assert "Operation not permitted" in text and "root or CAP_SYS_ADMIN" in text and "docs/sandbox.md" in text
    assert "\n" not in text


def test_a_user_who_can_make_one_passes():
    needs.mount_namespace(run=lambda argv, **_: subprocess.CompletedProcess(argv, 0, "", ""))


def test_without_unshare_the_message_names_util_linux(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(EnginesMissing, match="util-linux"):
        needs.mount_namespace()


def test_the_disk_line_names_the_cache_the_size_and_the_free_space_of_the_nearest_existing_folder(tmp_path):
    line = needs.disk_line(tmp_path / "not" / "yet" / "engines")
    assert f"about {needs.BUILD_GB} GB under {tmp_path / 'not' / 'yet' / 'engines'}" in line
    assert "GB free there" in line
