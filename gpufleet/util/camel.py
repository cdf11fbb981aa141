"""camelCase keys: the one spelling rule of every gpufleet JSON (CLI output, traces, rule options)."""

from __future__ import annotations

from dataclasses import asdict, is_dataclass
from typing import Any


def camel(name: str) -> str:
    """``wait_p50_seconds`` -> ``waitP50Seconds``."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def camel_dict(obj: Any) -> dict[str, Any]:
    """A dataclass's fields as a dict with camelCase keys (values unchanged)."""
    assert is_dataclass(obj) and not isinstance(obj, type)
    return {camel(k): v for k, v in asdict(obj).items()}
