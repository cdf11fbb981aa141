"""Reader of Argo Workflows' embedding kinds: the objects a Workflow's ``resource`` templates create as written.

Follows ``argo-workflows v3 workflow/executor/resource.go`` as
:func:`gpufleet.workloads.embedded.embedded_manifests` reads it (``action`` ``create``, ``apply`` or
``replace``; the workflow's namespace when the manifest names none). The Workflow's own pods (its
container steps) are not a gang; each embedded manifest is read by its own kind's reader, with every
path under the manifest's path in the Workflow (``spec.templates[2].resource.manifest``), as the rule
engine reports an embedded object's findings: :func:`embedded_contracts`.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads.contract import common
from gpufleet.workloads.contract.paths import prefixed
from gpufleet.workloads.contract.registry import Run, read, reader
from gpufleet.workloads.contract.types import Contract, Success
from gpufleet.workloads.embedded import ARGO_GROUP, WORKFLOW_KINDS, embedded_manifests

SOURCE = "argo-workflows v3 workflow/executor/resource.go"
MAX_DEPTH = 4
"""As the rule engine's ``MAX_EMBEDDING``: a manifest embedding a Workflow embedding a manifest ... stops here."""


def embedded_contracts(obj: Mapping[str, Any], run: Run, depth: int = 0) -> list[tuple[FieldPath, Contract]]:
    """``(path of the manifest in obj, its contract with paths under it)`` for each object ``obj`` creates as written."""
    out: list[tuple[FieldPath, Contract]] = []
    if depth >= MAX_DEPTH:
        return out
    for at, inner in embedded_manifests(obj):
        out.append((at, prefixed(read(inner, run), at)))
        out.extend((at + path, prefixed(c, at)) for path, c in embedded_contracts(inner, run, depth + 1))
    return out


@reader(ARGO_GROUP, *sorted(WORKFLOW_KINDS), "CronWorkflow", source=SOURCE)
def workflow(obj: Mapping[str, Any], run: Run) -> Contract:
    inner = embedded_contracts(obj, run)
    made = [f"{c.kind}/{c.name} at {at}" for at, c in inner]
    notes = [f"creates {', '.join(made)}: each read on its own" if made else "creates no object as written"]
    return common.header(obj, SOURCE, success=Success("every step succeeds"), notes=tuple(notes))
