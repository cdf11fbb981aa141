"""Every command, every kind of bad input: one line, no traceback, the README's exit code.

The exit codes and the code for each (kind of bad input, role of the path) are read from
the README's "Exit codes" tables, so the documentation and this test cannot drift. The
commands are discovered from the typer app: a command added later fails
:func:`test_every_command_of_the_cli_has_its_bad_inputs_listed` until its paths are
listed in :data:`CASES`, and gets the generic checks at once.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer

from gpufleet.cli import commands, exits
from gpufleet.cli.app import run
from tests.cli.test_advise_cli import JOB as COSCHEDULED_JOB
from tests.cli.test_advise_cli import MIXED
from tests.lint import manifests as m
from tests.lint.test_fix import VOLCANO_JOB

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DEV = ROOT / "stacks" / "dev.fleet.yaml"
ROLES = {"checked": 1, "option": 2, "output": 3}  # column of each role in the README's second table


def readme_tables() -> tuple[dict[str, int], dict[str, dict[str, int | None]]]:
    """({name: code}, {bad input: {role: code or None}}) from the README's "Exit codes" section."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Exit codes") :]
    section = section[: section.index("\n### ", 1)]
    rows = [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("|") and not line.startswith("|---")
    ]
    codes = {r[1]: int(r[0]) for r in rows if r[0].isdigit()}
    kinds = {
        r[0]: {role: int(r[i]) if r[i][:1].isdigit() else None for role, i in ROLES.items()}
        for r in rows
        if not r[0].isdigit() and r[0] not in ("code", "bad input")
    }
    return codes, kinds


CODES, KINDS = readme_tables()


def test_the_readme_tables_are_the_codes_the_cli_uses():
    assert CODES == {"ok": exits.OK, "invalid": exits.INVALID, "usage": exits.USAGE}
    assert set(KINDS) == {"missing", "directory", "unreadable", "full disk", "wrong kind of file"}


@dataclass(frozen=True)
class Case:
    argv: tuple[str, ...]  # BAD marks the bad path; MODEL, JOBS, OUT good ones
    role: str
    kinds: tuple[str, ...]
    wrong: str = ""  # what "wrong kind of file" is here: job, model, binary, file

    @property
    def command(self) -> str:
        return self.argv[0]


ALL_FILE = ("missing", "directory", "unreadable", "wrong kind of file")
MANIFEST = ("missing", "unreadable", "wrong kind of file")  # a directory of manifests is fine
DIRECTORY = ("missing", "unreadable", "wrong kind of file")  # --crds wants a directory: wrong = a file
CASES = [
    Case(("validate", "BAD"), "checked", ALL_FILE, "job"),
    Case(("render", "BAD", "--out", "OUT"), "checked", ALL_FILE, "job"),
    Case(("render", "MODEL", "--out", "BAD"), "output", ("wrong kind of file",), "file"),
    Case(("plan", "BAD"), "checked", ALL_FILE, "job"),
    Case(("diff", "BAD", "MODEL"), "checked", ALL_FILE, "job"),
    Case(("diff", "MODEL", "BAD"), "checked", ALL_FILE, "job"),
    Case(("diff", "MODEL", "MODEL", "--crds", "BAD"), "option", DIRECTORY, "file"),
    Case(("lint", "BAD"), "checked", MANIFEST, "binary"),
    Case(("lint", "JOBS", "--fleet", "BAD"), "option", ALL_FILE, "job"),
    Case(("lint", "JOBS", "--fleet-context", "BAD"), "option", ALL_FILE, "model"),
    Case(("lint", "JOBS", "--config", "BAD"), "option", ALL_FILE, "model"),
    Case(("lint", "JOBS", "--crds", "BAD"), "option", DIRECTORY, "file"),
    Case(("lint", "JOBS", "--output", "BAD"), "output", ("missing", "directory", "full disk")),
    Case(("lint", "BAD", "--fix", "--fleet", "MODEL"), "checked", MANIFEST, "binary"),
    Case(("lint", "JOBS", "--fix", "--fleet", "BAD"), "option", ALL_FILE, "job"),
    Case(("lint", "BAD", "--diff", "--fleet", "MODEL"), "checked", ("missing", "unreadable")),
    Case(
        ("lint", "FIXABLE", "--diff", "--fleet", "MODEL", "--output", "BAD"),
        "output",
        ("missing", "directory", "full disk"),
    ),
    Case(("advise", "BAD"), "checked", ALL_FILE, "job"),
    Case(("advise", "MODEL", "BAD"), "checked", MANIFEST, "binary"),
    Case(("podgroups", "BAD", "JOBS"), "checked", ALL_FILE, "job"),
    Case(("podgroups", "MIXED", "BAD"), "checked", MANIFEST, "binary"),
    Case(("sandbox", "up", "BAD", "--dir", "OUT"), "checked", ALL_FILE, "job"),
    Case(("policy-pack", "BAD"), "output", ("wrong kind of file",), "file"),
    Case(("pulumi-package", "BAD"), "output", ("wrong kind of file",), "file"),
    Case(("try", "BAD", "JOBS", "--dir", "OUT"), "checked", ALL_FILE, "job"),
    Case(("try", "MODEL", "BAD", "--dir", "OUT"), "checked", MANIFEST, "binary"),
    Case(("whatif", "BAD", "MODEL", "--trace", "TRACE", "--dry-run"), "checked", ALL_FILE, "job"),
    Case(("whatif", "MODEL", "MODEL", "--trace", "BAD", "--dry-run"), "checked", ALL_FILE, "job"),
    Case(("whatif", "trace", "synth", "BAD"), "checked", ALL_FILE, "job"),
    Case(("predict", "BAD"), "checked", MANIFEST, "binary"),
    Case(("predict", "JOBS", "--fleet", "BAD"), "option", ALL_FILE, "job"),
]
# A good command line per command, whose standard output is then /dev/full (every command prints).
PRINTING = {
    "validate": ("validate", "MODEL"),
    "render": ("render", "MODEL", "--out", "OUT"),
    "plan": ("plan", "MODEL"),
    "schema": ("schema",),
    "diff": ("diff", "MODEL", "MODEL"),
    "lint": ("lint", "JOBS"),
    "rules": ("rules",),
    "explain": ("explain", "GANG301"),
    "advise": ("advise", "MODEL"),
    "podgroups": ("podgroups", "MIXED", "COSCHEDULED"),
    "sandbox": ("sandbox", "status", "--dir", "OUT"),
    "policy-pack": ("policy-pack", "OUT"),
    "pulumi-package": ("pulumi-package", "OUT"),
    "try": ("try", "MODEL", "JOBS", "--dry-run", "--dir", "OUT"),
    "whatif": ("whatif", "trace", "synth", "MODEL", "--jobs", "3"),
    "predict": ("predict", "JOBS"),
}


def every_command() -> set[str]:
    commands.register(["--help"])  # every group
    return set(typer.main.get_command(commands.app).commands)  # type: ignore[attr-defined]


def test_every_command_of_the_cli_has_its_bad_inputs_listed():
    missing = every_command() - {c.command for c in CASES} - set(PRINTING)
    assert not missing, f"list the paths of {sorted(missing)} in CASES and PRINTING (tests/cli/test_contract.py)"
    assert every_command() == set(PRINTING)


@pytest.fixture
def files(tmp_path):
    """The good inputs and one of each kind of bad one (an unreadable file: mode 000, or a socket for root)."""
    (tmp_path / "jobs").mkdir()
    paths = {
        "MODEL": DEV,
        "MIXED": MIXED,
        "OUT": tmp_path / "out",
        "JOBS": m.write(tmp_path / "jobs", "job.yaml", m.probed_job()),
        "COSCHEDULED": tmp_path / "coscheduled.yaml",
        "TRACE": tmp_path / "trace.jsonl",
    }
    paths["TRACE"].write_text(
        '{"submitSeconds": 0, "namespace": "alpha", "kind": "Job", "pods": 1, "gpusPerPod": 8, "runSeconds": 600}\n'
    )
    paths["COSCHEDULED"].write_text(COSCHEDULED_JOB)
    paths["FIXABLE"] = m.write(
        tmp_path, "fixable.yaml", VOLCANO_JOB
    )  # a job of the dev stack's team alpha: --diff prints
    job = tmp_path / "job.yaml"
    job.write_text("apiVersion: batch/v1\nkind: Job\nmetadata: {name: train}\nspec: {}\n")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
    (tmp_path / "adir").mkdir()
    short = Path(tempfile.mkdtemp(prefix="gf"))  # a socket path must be short
    unreadable = short / "unreadable.yaml"
    if os.geteuid() == 0:  # root reads any mode: a socket cannot be opened as a file (ENXIO)
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(unreadable))
    else:
        unreadable.write_text("x: 1\n")
        unreadable.chmod(0)
    bad = {
        "missing": tmp_path / "missing.yaml",
        "directory": tmp_path / "adir",
        "unreadable": unreadable,
        "job": job,
        "model": DEV,
        "binary": binary,
        "file": job,
        "full disk": Path("/dev/full"),
    }
    yield paths, bad, tmp_path
    if os.geteuid() == 0:
        server.close()
    shutil.rmtree(short, ignore_errors=True)


def bad_path(case: Case, kind: str, bad: dict, tmp_path: Path) -> Path:
    if kind == "wrong kind of file":
        return bad[case.wrong]
    if case.role == "output" and kind == "missing":
        return tmp_path / "no-such-folder" / "report.txt"
    if "--crds" in case.argv and kind == "unreadable":
        if os.geteuid() == 0:
            pytest.skip("root reads every directory: an unreadable --crds directory cannot be made")
        bad["adir"] = tmp_path / "locked"
        bad["adir"].mkdir()
        bad["adir"].chmod(0)
        return bad["adir"]
    return bad[kind]


def cli(argv: list[str], capsys) -> tuple[int, str, str]:
    code = run(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def words(argv: tuple[str, ...], paths: dict, bad: Path | None = None) -> list[str]:
    return [str(bad) if w == "BAD" else str(paths[w]) if w in paths else w for w in argv]


@pytest.mark.parametrize(
    "case, kind", [(c, k) for c in CASES for k in c.kinds], ids=lambda v: " ".join(v.argv) if isinstance(v, Case) else v
)
def test_a_bad_input_is_one_line_naming_it_with_the_documented_exit_code(case, kind, files, capsys, monkeypatch):
    paths, bad, tmp_path = files
    monkeypatch.chdir(tmp_path)
    path = bad_path(case, kind, bad, tmp_path)
    code, out, err = cli(words(case.argv, paths, path), capsys)
    assert "Traceback" not in out + err
    assert code == KINDS[kind][case.role], (code, out, err)
    if case.command == "lint" and code == CODES["invalid"]:  # a finding, reported where findings go
        assert f"{path}: GANG000" in out and err == ""
        return
    assert out == "" and len(err.splitlines()) == 1, (out, err)
    assert str(path) in err and "fix" in err


@pytest.mark.parametrize("command", sorted(PRINTING))
def test_standard_output_on_a_full_disk_is_one_line_and_the_documented_exit_code(command, files, capsys, monkeypatch):
    paths, _, tmp_path = files
    monkeypatch.chdir(tmp_path)
    with open("/dev/full", "w", encoding="utf-8") as full:
        monkeypatch.setattr(sys, "stdout", full)
        code = run(words(PRINTING[command], paths))
        monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == KINDS["full disk"]["output"], err
    lines = [line for line in err.splitlines() if "standard output (/dev/full)" in line]
    assert len(lines) == 1 and "No space left on device" in lines[0] and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [["plan", str(DEV)], ["lint", "JOBS"], ["lint", "FIXABLE", "--diff", "--fleet", str(DEV)]],
    ids=["typer", "lint fast path", "lint --diff"],
)
def test_a_real_process_writing_to_a_full_disk_exits_2_with_one_line(argv, files):
    paths, _, _ = files
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "gpufleet", *words(tuple(argv), paths)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            check=False,
        )
    assert done.returncode == KINDS["full disk"]["output"]
    assert done.stderr.count("\n") == 1 and "standard output (/dev/full)" in done.stderr, done.stderr


@pytest.mark.parametrize("command", sorted(every_command()))
def test_an_unknown_option_is_a_usage_error_in_one_line(command, capsys):
    code, out, err = cli([command, "--no-such-option"], capsys)
    assert code == CODES["usage"] and "Traceback" not in out + err and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"gpufleet {command}") and "fix" in err, err


@pytest.mark.parametrize(
    "argv",
    [
        ("render", "MODEL"),
        ("explain",),
        ("podgroups",),
        ("predict",),
        ("lint",),
        ("diff",),
        ("plan", "--format"),
        ("sandbox", "up", "--bogus"),
    ],
    ids=" ".join,
)
def test_a_missing_argument_or_option_is_a_usage_error_in_one_line(argv, files, capsys):
    paths, _, _ = files
    code, out, err = cli(words(argv, paths), capsys)
    assert code == CODES["usage"] and out == "" and len(err.splitlines()) == 1 and "fix" in err, err
    assert err.startswith("gpufleet") and "╭" not in err


def test_render_to_standard_output_on_a_full_disk_is_one_line_and_the_documented_exit_code(files, capsys, monkeypatch):
    with open("/dev/full", "w", encoding="utf-8") as full:
        monkeypatch.setattr(sys, "stdout", full)
        code = run(["render", str(DEV), "--out", "-"])
        monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == KINDS["full disk"]["output"] and err.count("standard output (/dev/full)") == 1, err
