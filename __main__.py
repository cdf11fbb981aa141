"""The gpufleet Pulumi program: stack config -> validated fleet model -> GpuFleet.

Run by the Pulumi CLI (``pulumi preview -s dev``). Thin on purpose: everything it
creates and exports comes from ``gpufleet.pulumi.program.build_gpufleet``, which the
component package (``gpufleet:index:GpuFleet``) runs too. A broken model stops the run
with a ``pulumi.RunError`` listing every issue (file, path, message, fix); the
CLI prints a RunError's message without a traceback.
"""

from pathlib import Path

import pulumi

from gpufleet.pulumi.program import build_gpufleet
from gpufleet.pulumi.stack_config import read_stack_config

PROJECT_DIR = Path(__file__).resolve().parent


def main() -> None:
    for name, value in build_gpufleet(read_stack_config(PROJECT_DIR)).items():
        pulumi.export(name, value)


main()
