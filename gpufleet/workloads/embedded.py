"""Manifests embedded in other manifests: each is checked as its own object, at a path inside the outer one.

Called by :class:`gpufleet.rules.engine.Engine` for every object it checks (so the linter,
the policy pack and the admission controller alike). An Argo Workflow's ``resource``
template (argoproj.io ``Workflow``, ``WorkflowTemplate``, ``ClusterWorkflowTemplate``, and a
``CronWorkflow``'s ``spec.workflowSpec``) creates its ``resource.manifest`` exactly as written
when ``action`` is ``create``, ``apply`` or ``replace`` (Argo Workflows v3
``workflow/executor/resource.go``); a ``patch``, ``get`` or ``delete`` names no whole object.
A manifest without a namespace is created in the workflow's, so it inherits it here. The
manifest string is parsed within :func:`gpufleet.yamlin.yamllimits.load_embedded`'s limits;
one that does not parse, or is not an object, is left to Argo (it fails there, visibly).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

import yaml

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads.types import SPEC, as_list, as_map, group_of
from gpufleet.yamlin.yamllimits import load_embedded

ARGO_GROUP = "argoproj.io"
WORKFLOW_KINDS = frozenset({"Workflow", "WorkflowTemplate", "ClusterWorkflowTemplate"})
CREATING_ACTIONS = frozenset({"create", "apply", "replace"})


def _templates(obj: Mapping[str, Any]) -> tuple[list[Any], FieldPath] | None:
    kind, spec = obj.get("kind"), as_map(obj.get("spec"))
    if kind in WORKFLOW_KINDS:
        return as_list(spec.get("templates")), SPEC.child("templates")
    if kind == "CronWorkflow":
        return as_list(as_map(spec.get("workflowSpec")).get("templates")), SPEC.child("workflowSpec", "templates")
    return None


def _parsed(text: Any) -> dict[str, Any] | None:
    if not isinstance(text, str):
        return None
    try:
        value = load_embedded(text)
    except yaml.YAMLError:
        return None
    return value if isinstance(value, dict) and value.get("kind") else None  # freshly parsed: a plain dict


def embedded_manifests(obj: Mapping[str, Any]) -> Iterator[tuple[FieldPath, dict[str, Any]]]:
    """``(path of the manifest string, the manifest as an object)`` for each object ``obj`` creates as written."""
    if group_of(obj) != ARGO_GROUP:
        return
    found = _templates(obj)
    if found is None:
        return
    templates, at = found
    namespace = as_map(obj.get("metadata")).get("namespace")
    for i, template in enumerate(templates):
        resource = as_map(as_map(template).get("resource"))
        inner = _parsed(resource.get("manifest")) if resource.get("action") in CREATING_ACTIONS else None
        if inner is None:
            continue
        meta = inner.setdefault("metadata", {})
        if namespace and isinstance(meta, dict) and not meta.get("namespace"):
            meta["namespace"] = namespace
        yield at.index(i).child("resource", "manifest"), inner
