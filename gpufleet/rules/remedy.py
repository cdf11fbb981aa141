"""How a rule's ``remediate`` writes the fixes its findings name, for the rules that fix a field in place.

Called by the ``remediate`` functions of GANG202, GANG203 and GANG205: each reads its findings
(``(path, value)`` to write) from the object it is about to change, so every finding is read
before the first write.
"""

from __future__ import annotations

from typing import Any, Iterable

from gpufleet.kubetypes.fieldpath import FieldPath, set_value


def set_all(obj: dict[str, Any], fixes: Iterable[tuple[FieldPath, Any]]) -> dict[str, Any]:
    """``obj`` with each ``(path, value)`` of ``fixes`` written, all read before the first write."""
    for path, value in list(fixes):
        set_value(obj, path, value)
    return obj
