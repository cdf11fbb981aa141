"""``gpufleet whatif``: a job trace replayed on the real engines under two quota models, side by side.

Thin adapter: ``gpufleet whatif BASE NEW --trace FILE`` or ``gpufleet whatif MODEL --git REF
--trace FILE`` (models as ``gpufleet diff`` takes them) checks the trace against both
models (:mod:`gpufleet.whatif.trace`) and the time scale (:mod:`gpufleet.whatif.timescale`)
before anything starts, replays it on a fresh sandbox per model and repeat
(:mod:`gpufleet.sandbox.replay`), and prints the report (:mod:`gpufleet.whatif.report`):
a table, ``--format json`` or ``markdown``, and ``--plot FILE.png``. ``gpufleet whatif
trace synth`` and ``trace from-cluster`` write traces. Exit codes: 0 the report printed,
1 an invalid model or trace, or a rendered object of a model an engine's webhook denies
in the sandbox (as ``sandbox up`` and ``try``), 2 a usage or I/O error, engines not built, a sandbox that did
not start. Registered by ``gpufleet.cli.commands``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import List, Optional

import click
import typer

from gpufleet.cli import inputs, loading
from gpufleet.cli.console import table, table_console
from gpufleet.cli.exits import INVALID, USAGE, CliError, guarded
from gpufleet.cli.helptext import ReadmeGroup
from gpufleet.cli.sandbox_cmds import VOLCANO_WITHOUT_HELP, denied_lines
from gpufleet.model.base import parse_duration
from gpufleet.yamlin.errors import ModelError

COMMAND = "whatif"
FORMATS = ("text", "json", "markdown")


class DefaultRun(ReadmeGroup):
    """``gpufleet whatif BASE NEW ...`` runs the ``run`` command; ``gpufleet whatif trace ...`` the trace group.
    ``gpufleet whatif --help`` is the comparison's help (its usage, arguments and options), then the trace group."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)

    def format_help(self, ctx, formatter):
        compare = self.commands["run"]
        compare.format_help(click.Context(compare, info_name=ctx.info_name, parent=ctx.parent), formatter)


whatif = typer.Typer(
    name=COMMAND,
    cls=DefaultRun,
    no_args_is_help=True,
    help="Replay a job trace on the real engines under two quota models: gpufleet whatif BASE NEW --trace FILE "
    "(or MODEL --git REF --trace FILE); `gpufleet whatif trace` writes traces.",
)
trace_app = typer.Typer(name="trace", no_args_is_help=True, help="Write traces: synth from a model, from-cluster.")
whatif.add_typer(trace_app)


def _models(base: Path, new: Optional[Path], git: Optional[str]):
    from gpufleet.cli.diff_cmds import _git_base
    from gpufleet.model import load_model

    if (git is None) == (new is None):
        raise loading.fail(
            [
                "needs two models or one with --git (fix: gpufleet whatif BASE NEW --trace FILE, or "
                "gpufleet whatif MODEL --git origin/main --trace FILE)"
            ],
            USAGE,
            COMMAND,
        )
    try:
        base, new = inputs.model_file(base), (inputs.model_file(new) if new is not None else None)
    except CliError as exc:
        raise loading.fail(exc.lines, exc.code, COMMAND) from None
    try:
        if git is not None:
            return (f"{base}@{git}", _git_base(base, git)), (str(base), load_model(base))
        if new is None:
            raise AssertionError("whatif: neither NEW nor --git (refused above)")
        return (str(base), load_model(base)), (str(new), load_model(new))
    except ModelError as exc:
        raise loading.fail(exc.lines(), INVALID, COMMAND) from None


def _print(doc: dict) -> None:
    from gpufleet.whatif import perjob, report

    console = table_console()
    console.print(
        f"[bold]whatif: {doc['models']['base']} -> {doc['models']['new']}[/bold] "
        f"(time scale {doc['timeScale']:g}, {doc['repeat']} replay(s) a model; times in trace seconds)"
    )
    console.print(report.horizon_line(doc), markup=False)
    console.print(table(None, report.HEADER, report.rows(doc), right=("base", "new", "change")))
    console.print(f"({report.FOLDED}; ≥ marks a lower bound: jobs still waiting)", markup=False)
    jobs, left_out = perjob.rows(doc["jobs"])
    console.print(table(None, perjob.HEADER, jobs, right=("submitted", "base wait", "new wait", "change")))
    if left_out:
        console.print(f"({left_out} more job(s) whose wait changed less: --format json lists every job)", markup=False)
    for side in ("base", "new"):
        scaled = ", ".join(
            f"{s['name'].rsplit('.', 1)[-1]} {s['traceSeconds']:g} s -> {s['wallSeconds']:g} s"
            for s in doc["scaled"][side]
        )
        console.print(f"{side}: scaled durations: {scaled or '-'}", markup=False)
    for kind, as_ in sorted(doc["replayedAs"].items()):
        console.print(f"{kind} replayed as {as_} (docs/whatif.md)", markup=False)
    for warning in doc["warnings"]:
        console.print(f"warning: {warning}", markup=False)


def run(
    base: Path = typer.Argument(..., help="The base model (or, with --git, the model to compare with its revision)."),
    new: Optional[Path] = typer.Argument(None, help="The new model (omit with --git)."),
    trace: Path = typer.Option(..., "--trace", metavar="FILE", help="The job trace (JSON Lines, docs/whatif.md)."),
    git: Optional[str] = typer.Option(None, "--git", metavar="REF", help="Compare MODEL with itself at this revision."),
    time_scale: float = typer.Option(60.0, "--time-scale", metavar="K", help="Trace seconds per wall second."),
    horizon: Optional[str] = typer.Option(
        None,
        "--horizon",
        metavar="DURATION",
        help="Stop after this much trace time (default: once every job has finished or none can ever start, "
        "capped at twice the trace's last submission plus all its run times).",
    ),
    repeat: int = typer.Option(1, "--repeat", min=1, max=10, help="Replays per model; the JSON gives the spread."),
    output: str = typer.Option("text", "--format", "-f", metavar="text|json|markdown", help="text, json or markdown."),
    plot: Optional[Path] = typer.Option(None, "--plot", metavar="FILE.png", help="Also draw the report."),
    directory: Optional[Path] = typer.Option(
        None, "--dir", metavar="DIR", help="Where the sandboxes run (default: a temporary folder)."
    ),
    controller: bool = typer.Option(False, "--controller", help="Run the gang-admission controller too."),
    volcano_without: Optional[List[str]] = typer.Option(None, "--volcano-without", help=VOLCANO_WITHOUT_HELP),
    dry_run: bool = typer.Option(False, "--dry-run", help="Check the models, trace and time scale; replay nothing."),
) -> None:
    """Replay a job trace on the real engines under BASE and NEW and compare what each team and each job gets:
    gpufleet whatif BASE NEW --trace FILE, or gpufleet whatif MODEL --git REF --trace FILE."""
    from gpufleet.sandbox.replay import ReplayOptions
    from gpufleet.whatif import jobs as jobmod
    from gpufleet.whatif import report, stop, timescale
    from gpufleet.whatif.trace import TraceError, load_trace

    if output not in FORMATS:
        raise loading.fail(
            [f"--format {output!r} is not known (fix: choose one of {', '.join(FORMATS)})"], USAGE, COMMAND
        )
    (base_name, before), (new_name, after) = _models(base, new, git)
    try:
        inputs.file_in(trace, "trace file", "pass the JSON Lines trace: gpufleet whatif trace synth MODEL -o FILE")
    except CliError as exc:
        raise loading.fail(exc.lines, exc.code, COMMAND) from None
    try:
        loaded = load_trace(trace, [before, after])
    except TraceError as exc:
        raise loading.fail(exc.lines(), INVALID, COMMAND) from None
    unsafe = timescale.check(loaded, [before, after], time_scale)
    if unsafe:
        raise loading.fail([unsafe], USAGE, COMMAND)
    try:
        until = float(parse_duration(horizon)) if horizon else stop.default_cap(loaded)
    except ValueError as exc:
        raise loading.fail([f"--horizon {horizon!r}: {exc}"], USAGE, COMMAND) from None
    replayed_as = jobmod.substitutions(job.kind for job in loaded.jobs)
    if dry_run:
        limit = (
            f"until {until:g} trace s"
            if horizon
            else f"until every job finished or none can start, at most {until:g} trace s"
        )
        typer.echo(
            f"would replay {len(loaded.jobs)} job(s) at time scale {time_scale:g} {limit} "
            f"({until / time_scale:.0f} wall s a replay at most), {repeat} time(s) on each of {base_name} and {new_name}"
        )
        return
    if plot is not None:
        try:
            import matplotlib  # noqa: F401 - checked before an hour of replay, not after
        except ImportError:
            raise loading.fail(
                ["--plot needs matplotlib (fix: pip install 'gpufleet[whatif]', or leave out --plot)"], USAGE, COMMAND
            ) from None
    options = ReplayOptions(
        time_scale=time_scale,
        horizon=until,
        controller=controller,
        until_settled=not horizon,
        volcano_without=tuple(volcano_without or ()),
    )
    logs = _replay([(base_name, before), (new_name, after)], loaded, options, repeat, directory)
    doc = report.to_json(logs[0], logs[1], replayed_as, cap=None if horizon else until)
    if plot is not None:
        from gpufleet.whatif import plot as drawing

        drawing.draw(logs[0][0], logs[1][0], plot)
    if output == "json":
        typer.echo(json.dumps(doc, indent=2))
    elif output == "markdown":
        typer.echo(report.to_markdown(doc), nl=False)
    else:
        _print(doc)


def _replay(models, loaded, options, repeat: int, directory: Optional[Path]):
    from rich.progress import Progress

    from gpufleet.sandbox.apply import Denied
    from gpufleet.sandbox.kube import WaitTimeout
    from gpufleet.sandbox.needs import SandboxUnavailable
    from gpufleet.sandbox.procs import StartError
    from gpufleet.sandbox.replay import replay

    root = directory or Path(tempfile.mkdtemp(prefix="gpufleet-whatif-"))
    out = []
    with Progress(transient=True, console=table_console(stderr=True), disable=not sys.stderr.isatty()) as bar:
        for side, (name, fleet) in zip(("base", "new"), models):
            logs = []
            for i in range(repeat):
                task = bar.add_task(f"{side} {i + 1}/{repeat}: starting a sandbox", total=len(loaded.jobs))

                def tick(now, done, total, task=task, side=side, i=i):
                    bar.update(task, completed=done, description=f"{side} {i + 1}/{repeat}: trace {now / 3600:.2f} h")

                try:
                    logs.append(replay(fleet, name, loaded, root / f"{side}-{i}", options, tick))
                except SandboxUnavailable as exc:
                    raise loading.fail([str(exc)], USAGE, COMMAND) from None
                except Denied as exc:
                    raise loading.fail(denied_lines(exc, root / f"{side}-{i}"), INVALID, COMMAND) from None
                except (StartError, WaitTimeout) as exc:
                    raise loading.fail([f"{exc} ({_kept(root / f'{side}-{i}')})"], USAGE, COMMAND) from None
            out.append(logs)
    return out


def _kept(folder: Path) -> str:
    """Remove a failed replay's sandbox data (etcd's, the PKI, the kubeconfig) and say what is left, where, how big."""
    from gpufleet.sandbox.state import keep_logs_only

    size = keep_logs_only(folder)
    return (
        f"the sandbox's data is removed; its logs are kept in {folder}/logs ({size / 2**20:.1f} MiB): "
        f"read them, then remove them with rm -r {folder}"
    )


def synth(
    model: Path = typer.Argument(..., help="The fleet model whose teams submit."),
    jobs: int = typer.Option(100, "--jobs", min=1, max=100_000, help="How many jobs."),
    hours: float = typer.Option(24.0, "--hours", min=0.01, help="Over how many trace hours (a year at most)."),
    seed: int = typer.Option(1, "--seed", help="The generator's seed: the same seed, the same trace."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", metavar="FILE", help="Write here (default: stdout)."),
) -> None:
    """Write a seeded synthetic trace whose team mix comes from MODEL (docs/whatif.md lists the distributions)."""
    from gpufleet.whatif.synth import synth as make
    from gpufleet.whatif.trace import MAX_SECONDS, dump_trace

    if hours * 3600 > MAX_SECONDS:
        raise loading.fail(
            [f"--hours {hours:g}: a trace spans a year at most (fix: --hours 8784 or less)"], USAGE, COMMAND
        )
    _, fleet = loading.model(model, COMMAND)
    made = make(fleet, jobs, hours, seed)
    if not made:
        raise loading.fail(
            [f"{model}: no team has GPU quota on a Kueue or Volcano pool (fix: give a team quota)"], INVALID, COMMAND
        )
    _write(dump_trace(made), out)


def from_cluster(
    files: List[Path] = typer.Argument(
        ...,
        help="`kubectl get workloads.kueue.x-k8s.io -A -o json` "
        "and `kubectl get jobs.batch.volcano.sh -A -o json` output.",
    ),
    time_scale: float = typer.Option(
        1.0, "--time-scale", metavar="K", help="Multiply every time by K (an export of a replay at K)."
    ),
    out: Optional[Path] = typer.Option(None, "--out", "-o", metavar="FILE", help="Write here (default: stdout)."),
) -> None:
    """Write a trace from a cluster's finished Kueue Workloads and Volcano Jobs."""
    from gpufleet.whatif.fromcluster import load_exports
    from gpufleet.whatif.trace import dump_trace

    try:
        imported = load_exports(files, time_scale)
    except (OSError, ValueError) as exc:
        raise loading.fail([str(exc)], INVALID, COMMAND) from None
    for why, count in sorted(imported.skipped.items()):
        typer.echo(f"left out {count}: {why}", err=True)
    if not imported.jobs:
        raise loading.fail(
            [
                f"{', '.join(map(str, files))}: no finished Workload or Volcano Job (fix: export a cluster's "
                "history, see docs/whatif.md)"
            ],
            INVALID,
            COMMAND,
        )
    _write(dump_trace(imported.jobs), out)


def _write(text: str, out: Optional[Path]) -> None:
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")


whatif.command(
    "run",
    hidden=True,
    epilog="Traces: gpufleet whatif trace synth MODEL -o FILE, or gpufleet whatif trace from-cluster EXPORTS -o FILE "
    "(gpufleet whatif trace --help). docs/whatif.md has the examples.",
)(guarded(run))
trace_app.command("synth")(guarded(synth))
trace_app.command("from-cluster")(guarded(from_cluster))


def register(app: typer.Typer) -> None:
    app.add_typer(whatif)
