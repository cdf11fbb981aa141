"""The one test for a JSON object: ``is_map``, a type guard the workload views, the mutator and the webhook share.

Plain dicts (what the JSON and YAML parsers make) answer without an ABC check, which is ten
times slower on the admission hot path; any other mapping still counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard


def is_map(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """A mapping (a JSON object): plain dicts are checked first."""
    return type(value) is dict or isinstance(value, Mapping)
