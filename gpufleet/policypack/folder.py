"""A policy pack folder a user points ``pulumi preview --policy-pack DIR`` at, written from the installed package.

Called by ``gpufleet policy-pack DIR`` (:mod:`gpufleet.cli.pack_cmds`); the repository's
own ``policies/`` is this function's output with ``virtualenv="venv"`` (tests/policies
checks it). The folder holds what Pulumi needs to run a Python pack: ``PulumiPolicy.yaml``
(runtime python, the virtual environment that has ``gpufleet[pulumi]`` installed) and the
entry point ``__main__.py``, which calls :func:`gpufleet.policypack.pack.serve`, plus the
pack's README. No policy code is copied: the policies come from the installed gpufleet.

Standard library only (the CLI imports it; ``pulumi_policy`` is imported by the pack process).
"""

from __future__ import annotations

import sys
from importlib.resources import files
from pathlib import Path

from gpufleet import __version__

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

SETTINGS = """\
# The gpufleet policy pack (docs/policy-pack.md), written by `gpufleet policy-pack`.
# `version` is authoritative for Python packs. Pulumi runs the pack with the Python of
# the virtual environment below, which must have gpufleet[pulumi] installed.
description: Gang-safety rules for GPU training on Kubernetes (Kueue, Volcano), from gpufleet's rule engine.
version: {version}
runtime:
  name: python
{options}"""

FILES = ("PulumiPolicy.yaml", "__main__.py", "README.md")
"""What :func:`write` puts in the folder (and nothing else)."""


def current_virtualenv() -> str | None:
    """The virtual environment this Python runs in (the one gpufleet is installed in), or None outside one."""
    return sys.prefix if sys.prefix != sys.base_prefix else None


def contents(virtualenv: str | None) -> dict[str, str]:
    """File name -> text of the pack folder; ``virtualenv`` absolute or relative to the folder (None: Python on PATH)."""
    options = f"  options:\n    virtualenv: {virtualenv}\n" if virtualenv else ""
    return {
        "PulumiPolicy.yaml": SETTINGS.format(version=__version__, options=options),
        "__main__.py": ENTRY,
        "README.md": files("gpufleet.policypack").joinpath("README.md").read_text(),
    }


def write(folder: Path, virtualenv: str | None) -> list[Path]:
    """Write the pack folder (created if missing; these files replaced); the paths written."""
    return write_files(folder, contents(virtualenv))


def write_files(folder: Path, texts: dict[str, str]) -> list[Path]:
    """Write file name -> text into ``folder`` (created if missing; these files replaced); the paths written.

    Also writes the component package folder of ``gpufleet pulumi-package`` (:mod:`gpufleet.cli.pack_cmds`).
    """
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in texts.items():
        (folder / name).write_text(text)
        written.append(folder / name)
    return written
