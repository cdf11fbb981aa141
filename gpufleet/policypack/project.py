"""Where the Pulumi project being previewed lives, seen from the policy pack process.

Called by :func:`gpufleet.policypack.settings.resolve`: the stack config's ``gpufleet:model`` (and a policy's
``fleetModel``) are relative to the project, as the program reads them, but Pulumi starts the pack in the pack's
own folder (which may sit beside the project: ``pulumi preview --policy-pack ../pack``) and tells it the project's
name (``PULUMI_PROJECT``), not its folder. The CLI passes its own environment on, so the folder is found from:

1. ``GPUFLEET_PROJECT_DIR``, when set (an explicit answer for unusual set-ups);
2. the working directory of each ancestor process (Linux ``/proc``: the Pulumi CLI's own, into which
   ``--cwd`` moved it), and their parents: what the CLI really ran in, even when a program started it;
3. ``PWD``, the folder the shell ran ``pulumi`` in, and its parents (where there is no ``/proc``);

keeping only folders whose ``Pulumi.yaml`` names the project ``PULUMI_PROJECT`` names (any ``Pulumi.yaml``
when it is unset). Standard library and PyYAML only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import yaml

PROJECT_DIR_ENV = "GPUFLEET_PROJECT_DIR"
MAX_ANCESTORS = 8


def _ancestor_cwds() -> Iterator[Path]:
    pid = os.getppid()
    for _ in range(MAX_ANCESTORS):
        if pid <= 1:
            return
        try:
            yield Path(os.readlink(f"/proc/{pid}/cwd"))
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the command name: ppid
        except (OSError, ValueError, IndexError):
            return


def _names(folder: Path) -> str | None:
    """The project name ``folder/Pulumi.yaml`` declares (None: no such file or no name)."""
    try:
        data = yaml.safe_load((folder / "Pulumi.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def project_roots(environ: dict[str, str] | None = None, ancestors: bool = True) -> list[Path]:
    """Folders that hold the previewed project's ``Pulumi.yaml``, most likely first (none found: [])."""
    env = dict(os.environ if environ is None else environ)
    if env.get(PROJECT_DIR_ENV):
        return [Path(env[PROJECT_DIR_ENV]).expanduser()]
    wanted = env.get("PULUMI_PROJECT")
    starts = list(_ancestor_cwds()) if ancestors else []
    if env.get("PWD"):
        starts.append(Path(env["PWD"]))
    out: list[Path] = []
    for start in starts:
        for folder in (start, *start.parents):
            name = _names(folder)
            if name is not None and (wanted is None or name == wanted):
                if folder not in out:
                    out.append(folder)
                break
    return out
