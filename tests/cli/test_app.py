"""The entry point: ``gpufleet lint`` takes the argparse fast path (same options, same results), the rest typer."""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from gpufleet import __version__
from gpufleet.cli import commands, lint_cmds, lint_fast, lint_run
from gpufleet.cli.app import main
from tests.lint import manifests as m

runner = CliRunner()


def typer_lint_options() -> set[str]:
    app = typer.Typer(add_completion=False)
    lint_cmds.register(app)
    lint = typer.main.get_command(app).commands["lint"]  # type: ignore[attr-defined]
    return {opt for param in lint.params for opt in param.opts if opt.startswith("-")}


def test_the_fast_path_accepts_exactly_the_typer_commands_options():
    assert set(lint_fast.OPTION_STRINGS) == typer_lint_options() - {"--help"}


def test_every_lint_option_is_declared_once_in_the_option_table():
    # Issue 36, item 4: one lint front end; both parsers are made from lint_fast.OPTIONS.
    dests = [opt.dest for opt in lint_fast.OPTIONS]
    assert sorted(dests) == sorted(f.name for f in dataclasses.fields(lint_run.Options))
    assert len(set(dests)) == len(dests)
    assert "typer.Option(" not in inspect.getsource(lint_cmds.lint_command)


def test_the_typer_command_shows_the_tables_help_and_metavars():
    lint = typer.main.get_command(_lint_app()).commands["lint"]  # type: ignore[attr-defined]
    shown = {param.name: (param.help, getattr(param, "metavar", None)) for param in lint.params}
    for opt in lint_fast.OPTIONS:
        assert shown[opt.dest][0] == opt.help
        if opt.metavar:
            assert shown[opt.dest][1] == opt.metavar


def _lint_app() -> typer.Typer:
    app = typer.Typer(add_completion=False)
    lint_cmds.register(app)
    return app


def run_main(monkeypatch, capsys, *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["gpufleet", *argv])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--format", "json"],
        ["-f", "JSON", "--select", "GANG301,GANG2"],
        ["--ignore", "GANG3", "--namespace", "vision"],
    ],
)
def test_the_fast_path_and_the_typer_command_give_the_same_report_and_exit_code(monkeypatch, capsys, tmp_path, extra):
    path = str(m.write(tmp_path, "job.yaml", m.probed_job()))
    code, out, _ = run_main(monkeypatch, capsys, "lint", path, *extra)
    app = typer.Typer()
    lint_cmds.register(app)
    app.callback()(lambda: None)
    typed = runner.invoke(app, ["lint", path, *extra])
    assert (code, out) == (typed.exit_code, typed.output)
    assert code == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["lint", "/nonexistent.yaml"],
        ["lint", "-", "--select", "GANG999"],
        ["lint", "x.yaml", "--format", "yaml"],
        ["lint", "x.yaml", "--bogus"],
        ["lint"],
    ],
)
def test_usage_errors_on_the_fast_path_exit_two_without_a_traceback(monkeypatch, capsys, argv):
    code, out, err = run_main(monkeypatch, capsys, *argv)
    assert code == 2 and "Traceback" not in out + err


def test_version_prints_the_package_version(monkeypatch, capsys):
    assert run_main(monkeypatch, capsys, "--version")[:2] == (0, f"gpufleet {__version__}\n")
    assert runner.invoke(commands.app, ["--version"]).output == f"gpufleet {__version__}\n"


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["lint", "x"], ("lint_cmds",)),
        (["validate", "m.yaml"], ("fleet_cmds",)),
        (["podgroups"], ("advise_cmds",)),
        (["predict", "job.yaml"], ("predict_cmds",)),
        (["--help"], commands.GROUPS),
        (["nope"], commands.GROUPS),
    ],
)
def test_only_the_named_commands_module_is_imported(argv, expected):
    assert commands.modules(argv) == expected


def test_a_lint_run_imports_neither_typer_nor_pydantic_nor_the_model(tmp_path):
    path = m.write(tmp_path, "job.yaml", m.probed_job())
    probe = (
        "import sys; sys.argv = ['gpufleet', 'lint', %r, '--format', 'json']\n"
        "from gpufleet.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = sorted(n for n in ('typer', 'pydantic', 'rich', 'gpufleet.model', 'gpufleet.render', 'celpy',"
        " 'jsonschema') if n in sys.modules)\n"
        "print('HEAVY', heavy)"
    ) % str(path)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert json.loads(done.stdout[done.stdout.index("{") : done.stdout.rindex("}") + 1])["findings"]
    assert done.stdout.strip().endswith("HEAVY []"), done.stdout[-300:] + done.stderr[-300:]


def test_running_main_many_times_in_one_process_registers_each_command_once(monkeypatch, capsys, tmp_path):
    for _ in range(3):
        for argv in (["validate", str(tmp_path / "none.yaml")], ["--help"], ["rules"]):
            run_main(monkeypatch, capsys, *argv)
    names = [c.name or c.callback.__name__ for c in commands.app.registered_commands]
    names += [g.name or g.typer_instance.info.name for g in commands.app.registered_groups]  # gpufleet sandbox ...
    assert sorted(names) == sorted(set(names)) == sorted(commands.COMMANDS)


def entry_point(*argv: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufleet", *argv], capture_output=True, text=True, check=False, cwd=cwd
    )


@pytest.mark.parametrize("files", [1, 300])  # 300: a run shared with worker processes (gpufleet.lint.pool.MIN_FILES)
def test_the_entry_point_ends_a_lint_process_with_the_whole_report_and_its_exit_code(
    monkeypatch, capsys, tmp_path, files
):
    for i in range(files):
        m.write(tmp_path, f"job-{i:03}.yaml", m.probed_job(f"train-{i}"))
    done = entry_point("lint", str(tmp_path), "--format", "json", "--jobs", "2")
    in_process = run_main(monkeypatch, capsys, "lint", str(tmp_path), "--format", "json", "--jobs", "1")
    assert (done.returncode, done.stdout, done.stderr) == (in_process[0], in_process[1], "") == (1, in_process[1], "")
    assert len(json.loads(done.stdout)["findings"]) >= files


def test_the_entry_point_reports_usage_errors_and_other_commands_as_main_does():
    assert entry_point("lint", "/nonexistent.yaml").returncode == 2
    assert (entry_point("--version").returncode, entry_point("--version").stdout) == (0, f"gpufleet {__version__}\n")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full (a Linux device) on this system")
def test_the_entry_point_reports_a_full_disk_on_standard_output_in_one_line(tmp_path):
    path = m.write(tmp_path, "job.yaml", m.probed_job())
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "gpufleet", "lint", str(path), "--format", "json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "No space left" in done.stderr


def test_the_entry_point_writes_the_whole_report_to_an_output_file_before_it_ends(tmp_path):
    path = m.write(tmp_path, "job.yaml", m.probed_job())
    done = entry_point("lint", str(path), "--format", "json", "--output", str(tmp_path / "report.json"))
    assert done.returncode == 1 and json.loads((tmp_path / "report.json").read_text())["findings"]
