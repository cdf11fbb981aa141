"""The one test for a JSON object: ``is_map``, a type guard the workload views, the mutator and the webhook share,
and ``as_map``, a field read as a mapping (an empty one when it is not one).

Plain dicts (what the JSON and YAML parsers make) answer without an ABC check, which is ten
times slower on the admission hot path; any other mapping still counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

EMPTY: Mapping[str, Any] = {}


def is_map(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """A mapping (a JSON object): plain dicts are checked first."""
    return type(value) is dict or isinstance(value, Mapping)


def as_map(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a mapping, else an empty one."""
    if type(value) is dict:
        return value
    return EMPTY if value is None or not isinstance(value, Mapping) else value
