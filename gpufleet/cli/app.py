"""The ``gpufleet`` command's entry point (also ``python -m gpufleet``).

Called by users, CI and pre-commit. Exit codes: 0 fine, 1 invalid input or blocking
findings, 2 usage error. Bad input never prints a traceback.

Start-up time matters (the pre-commit hook runs ``gpufleet lint`` on every commit,
docs/performance.md), so this module imports nothing heavy: ``gpufleet lint ...``
goes to the argparse fast path (:mod:`gpufleet.cli.lint_fast`), everything else to
the typer application (:mod:`gpufleet.cli.commands`), which imports only the
command group it runs.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv == ["--version"]:
        from gpufleet import __version__

        print(f"gpufleet {__version__}")
        return
    from gpufleet.cli import lint_fast

    if lint_fast.takes(argv):
        sys.exit(lint_fast.main(argv[1:]))
    from gpufleet.cli.commands import register

    register(argv)()
