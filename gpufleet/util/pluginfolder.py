"""The folder of a Python plugin Pulumi runs gpufleet from: its settings file and writing the files.

Called by :mod:`gpufleet.util.policyfolder` (the policy pack: ``PulumiPolicy.yaml``) and by
:mod:`gpufleet.cli.pack_cmds` (the component package: ``PulumiPlugin.yaml``), which hold their own
templates. The settings are dumped with ``yaml.safe_dump``, so a virtual environment path holding
``: `` or `` #`` reads back as written. Standard library and PyYAML only: the CLI imports it, and
neither Pulumi SDK may be needed to write a folder (import-linter's core contract).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml


def current_virtualenv() -> str | None:
    """The virtual environment this Python runs in (the one gpufleet is installed in), or None outside one."""
    return sys.prefix if sys.prefix != sys.base_prefix else None


def settings_text(header: str, fields: dict[str, Any], virtualenv: str | None) -> str:
    """``header`` (comment lines), then ``fields`` and the python ``runtime`` block naming ``virtualenv``
    (absolute or relative to the folder; None: no ``options``, Pulumi's default)."""
    runtime: dict[str, Any] = {"name": "python"}
    if virtualenv:
        runtime["options"] = {"virtualenv": virtualenv}
    return header + yaml.safe_dump({**fields, "runtime": runtime}, sort_keys=False, width=1_000_000)


def write_files(folder: Path, texts: dict[str, str]) -> list[Path]:
    """Write file name -> text into ``folder`` (created if missing; these files replaced); the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in texts.items():
        (folder / name).write_text(text)
        written.append(folder / name)
    return written
