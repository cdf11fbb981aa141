"""JSON Schema of the fleet model file, for editors and ``gpufleet schema``.

Generated from the pydantic classes (camelCase keys, descriptions from the attribute
docstrings), so it can never drift from what the loader accepts field by field; the
cross-field rules of :mod:`gpufleet.model.checks` are not expressible in it. Called
by the CLI (``gpufleet schema``); ``docs/fleet.schema.json`` holds its output
(regenerate with ``python -m gpufleet.model.schema > docs/fleet.schema.json``), and
the stack models point at it with a ``yaml-language-server: $schema`` comment.
"""

from __future__ import annotations

import json
from typing import Any

from gpufleet.model.fleet import API_VERSION, Fleet

SCHEMA_ID = "https://gpufleet.dev/schemas/v1alpha1/fleet.schema.json"


def drop_property_titles(node: Any) -> Any:
    """pydantic titles each property after its Python name ("Coldstartfloor"); keep only the class titles."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                out[key] = {
                    name: {k: drop_property_titles(v) for k, v in prop.items() if k != "title"}
                    for name, prop in value.items()
                }
            else:
                out[key] = drop_property_titles(value)
        return out
    if isinstance(node, list):
        return [drop_property_titles(v) for v in node]
    return node


def fleet_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a fleet model file, keyed by the YAML field names."""
    body: dict[str, Any] = drop_property_titles(Fleet.model_json_schema(by_alias=True, mode="validation"))
    head = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"gpufleet fleet model ({API_VERSION})",
        "description": "One environment's GPU fleet: pools, cohorts, teams and their quota, priority classes, "
        "gang admission and scheduler settings. Rendered to Kueue v1beta2 and Volcano v1beta1 objects. "
        "Cross-field rules (references, sums, engine webhooks) are checked by `gpufleet validate`; see docs/model.md.",
    }
    body.pop("title", None)
    return head | body


def dumps() -> str:
    """The schema as written to docs/fleet.schema.json."""
    return json.dumps(fleet_json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m gpufleet.model.schema > docs/fleet.schema.json
    print(dumps(), end="")
