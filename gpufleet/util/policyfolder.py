"""A policy pack folder a user points ``pulumi preview --policy-pack DIR`` at, written from the installed package.

Called by ``gpufleet policy-pack DIR`` (:mod:`gpufleet.cli.pack_cmds`); the repository's
own ``policies/`` is this function's output with ``virtualenv="venv"`` (tests/policies
checks it). The folder holds what Pulumi needs to run a Python pack: ``PulumiPolicy.yaml``
(runtime python, the virtual environment that has ``gpufleet[pulumi]`` installed) and the
entry point ``__main__.py``, which calls :func:`gpufleet.policypack.pack.serve`, plus the
pack's README. No policy code is copied: the policies come from the installed gpufleet.

Standard library and PyYAML only, in the bottom layer so that the CLI writes the folder without
importing the pack's adapter (``pulumi_policy`` is imported by the pack process alone); the settings
file and the writing are :mod:`gpufleet.util.pluginfolder`'s, shared with the component package.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from gpufleet import __version__
from gpufleet.util.pluginfolder import settings_text, write_files

ENTRY = '''"""The gpufleet policy pack (docs/policy-pack.md), written by ``gpufleet policy-pack``.

Run by the Pulumi CLI (``pulumi preview --policy-pack DIR``) through ``python -m pulumi.policy``.
Every policy comes from the installed gpufleet (``gpufleet.policypack``). Nothing here may print to
stdout: the CLI reads the gRPC port from the first stdout line.
"""

import importlib.util
import sys
from pathlib import Path

PACK_DIR = Path(__file__).resolve().parent
if importlib.util.find_spec("gpufleet") is None:  # a pack folder inside a checkout: the checkout's gpufleet
    sys.path.append(str(PACK_DIR.parent))

from gpufleet.policypack.pack import serve  # noqa: E402

serve(PACK_DIR)
'''

HEADER = """\
# The gpufleet policy pack (docs/policy-pack.md), written by `gpufleet policy-pack`.
# `version` is authoritative for Python packs. Pulumi runs the pack with the Python of
# the virtual environment below, which must have gpufleet[pulumi] installed.
"""
DESCRIPTION = "Gang-safety rules for GPU training on Kubernetes (Kueue, Volcano), from gpufleet's rule engine."

FILES = ("PulumiPolicy.yaml", "__main__.py", "README.md")
"""What :func:`write` puts in the folder (and nothing else)."""


def contents(virtualenv: str | None) -> dict[str, str]:
    """File name -> text of the pack folder; ``virtualenv`` absolute or relative to the folder (None: Python on PATH)."""
    return {
        "PulumiPolicy.yaml": settings_text(HEADER, {"description": DESCRIPTION, "version": __version__}, virtualenv),
        "__main__.py": ENTRY,
        "README.md": files("gpufleet.policypack").joinpath("README.md").read_text(),
    }


def write(folder: Path, virtualenv: str | None) -> list[Path]:
    """Write the pack folder (created if missing; these files replaced); the paths written."""
    return write_files(folder, contents(virtualenv))
