"""``gpufleet lint --fix`` and ``gpufleet lint --diff``: the work after the options are checked.

Called by :func:`gpufleet.cli.lint_run.run` when either flag is given; the fixing itself is
:mod:`gpufleet.lint.fix` (the admission controller's own mutator applied to each file).

- ``--fix`` rewrites every file a default changes, then lints the files as they now are
  and reports that (in the chosen ``--format``); one summary line on standard error when
  a file changed.
  Exit code: the report's (0 nothing blocking remains, 1 an unwaived error remains).
- ``--diff`` writes no file: it prints a unified diff of the fixes (``git apply`` takes
  it) and exits 0 only when there is nothing to fix and nothing blocking remains after
  the fixes, else 1 (so CI can run it as a check); the summary line on standard error
  says which.

Both need the fleet context the controller runs with (``--fleet MODEL``, ``--fleet-context``
or the config's ``fleet``): without it no namespace belongs to a team and the controller
changes nothing, so the run stops with a usage error (exit 2) instead of pretending.
With both flags, ``--diff`` wins (nothing is written). ``--select``/``--ignore`` choose the findings
reported, not the fixes: the controller applies every default it has. Standard input cannot
be fixed (usage error). A file that cannot be parsed is never
touched: a line on standard error names it, and the report shows its GANG000 (exit 1).
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Sequence

from gpufleet.cli.exits import CliError
from gpufleet.fleetctx.context import FleetContext
from gpufleet.lint import fix as fixing
from gpufleet.lint.helm import is_chart_source
from gpufleet.lint.runner import Report
from gpufleet.lint.sources import STDIN, Source, entries, read
from gpufleet.rules.api import CheckContext

NO_FLEET = (
    "--fix and --diff apply the admission controller's defaults, which depend on the fleet (which team "
    "owns a namespace, its queue, its pools): without a fleet context the controller changes nothing "
    "(fix: pass --fleet MODEL, e.g. --fleet stacks/prod.fleet.yaml, or --fleet-context FILE)"
)


def check(paths: Sequence[str], fleet: FleetContext | None) -> None:
    if STDIN in paths:
        raise CliError(
            [
                "--fix and --diff rewrite files, and standard input is not one (fix: pass the manifest "
                "files or folders instead of -)"
            ]
        )
    if fleet is None:
        raise CliError([NO_FLEET])


def fixes(paths: Sequence[str], fleet: FleetContext, namespace: str) -> list[fixing.FileFix]:
    """One FileFix per file the linter reads (Helm chart sources and unreadable files are left out)."""
    out = []
    for entry in entries(paths):
        source = read(entry) if isinstance(entry, str) else entry
        if source.text is None or is_chart_source(source.name, source.text):
            continue
        out.append(fixing.fix_text(source.name, source.text, fleet, namespace))
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _notes(done: list[fixing.FileFix]) -> None:
    for item in done:
        if item.error:
            fix = "" if "(fix:" in item.error else " (fix: correct it, then run --fix again)"
            print(f"gpufleet lint: {item.name}: not fixed, left as it is: {item.error}{fix}", file=sys.stderr)


def _summary(done: list[fixing.FileFix], verb: str) -> str:
    changed = [f for f in done if f.changed]
    return (
        f"gpufleet lint: {verb} {_plural(sum(f.objects for f in changed), 'object')} in {_plural(len(changed), 'file')}"
    )


def run_diff(
    paths: Sequence[str],
    ctx: CheckContext,
    namespace: str,
    lint_again: Callable[[list[Source]], Report],
    emit: Callable[[str], None],
) -> int:
    assert ctx.fleet is not None
    done = fixes(paths, ctx.fleet, namespace)
    _notes(done)
    emit("".join(fixing.unified_diff(f) for f in done))
    after = lint_again([Source(f.name, f.after) for f in done])
    remaining = after.summary()["errors"]
    print(
        f"{_summary(done, 'would fix')}; {_plural(remaining, 'blocking finding')} would remain"
        + (" (run without --diff to see them)" if remaining else ""),
        file=sys.stderr,
    )
    return 1 if any(f.changed for f in done) or after.exit_code else 0


def run_fix(paths: Sequence[str], ctx: CheckContext, namespace: str) -> list[fixing.FileFix]:
    """Write the fixes; the FileFixes (the caller lints the files again and reports)."""
    assert ctx.fleet is not None
    done = fixes(paths, ctx.fleet, namespace)
    for item in done:  # every folder checked before any file is written
        folder = os.path.dirname(item.name) or "."
        if item.changed and not os.access(folder, os.W_OK):
            raise CliError(
                [
                    f"{item.name}: cannot be rewritten: its folder is not writable; no file was changed "
                    "(fix: check the folder's permissions, or use --diff)"
                ]
            )
    for item in done:
        if item.changed:
            fixing.write(item)
    _notes(done)
    if any(f.changed for f in done):
        print(_summary(done, "fixed"), file=sys.stderr)
    return done
