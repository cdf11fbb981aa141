"""Run the whole Pulumi program (``__main__.py``) of one stack under recording mocks.

``capture_program(stack)`` reads ``stacks/Pulumi.<stack>.yaml``, feeds its config to
the mock runtime, runs ``__main__.py`` as the Pulumi CLI would (``runpy``) inside
``@pulumi.runtime.test`` and returns every registered resource as a JSON-friendly
dict: ``type``, ``name``, ``urn``, ``parent``, ``dependencies``, ``protect``,
``custom``, ``remote`` and ``inputs`` (the properties the engine and a policy pack's
``Analyze`` would see; integers arrive as floats). Used by tests/program and by the
policy pack's tests to analyze the stack's own resources. Preview is off, so every
input is known.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

import pulumi
import yaml

from tests.components.mocking import RecordingMonitor, install_mocks, run_program

REPO = Path(__file__).resolve().parents[2]
PROGRAM = REPO / "__main__.py"


def stack_names() -> list[str]:
    """The stacks with a settings file in stacks/ (``Pulumi.<stack>.yaml``)."""
    return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in (REPO / "stacks").glob("Pulumi.*.yaml"))


def stack_config(stack: str) -> dict[str, Any]:
    """The ``config:`` map of ``stacks/Pulumi.<stack>.yaml`` (keys like ``gpufleet:model``)."""
    data = yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text(encoding="utf-8")) or {}
    return dict(data.get("config") or {})


def run_stack(stack: str, config: dict[str, Any] | None = None) -> RecordingMonitor:
    """Run ``__main__.py`` for ``stack`` (config from its file unless given); return the monitor.

    The monitor's ``registered`` holds the resources, ``exports`` the stack outputs.
    """
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    monitor = install_mocks(stack, stack_config(stack) if config is None else config)

    def program() -> pulumi.Output:
        runpy.run_path(str(PROGRAM), run_name="__main__")
        exports = pulumi.runtime.get_root_resource().outputs  # what pulumi.export() set
        return pulumi.Output.all(**exports).apply(monitor.exports.update)

    run_program(monitor, program)
    return monitor


def capture_program(stack: str) -> list[dict[str, Any]]:
    """Every resource the stack's program registers, as plain dicts (see the module docstring)."""
    return [r.to_dict() for r in run_stack(stack).registered]


if __name__ == "__main__":  # python -m tests.program.capture prod > prod.resources.json
    import json

    print(json.dumps(capture_program(sys.argv[1] if len(sys.argv) > 1 else "dev"), indent=2, sort_keys=True))
