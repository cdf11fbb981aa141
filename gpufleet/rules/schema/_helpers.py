"""Shared bits of the schema rules GANG601 and GANG602.

Called by ``gang601_*`` and ``gang602_*``. Both rules run on every kind
(``kinds=EVERY_KIND``, the wildcard of ``gpufleet.rules.api``) and ask ``ctx.crds`` (a ``gpufleet.crdschema.CrdSet``) whether
it knows the object (:func:`schemas_for`), and report each CRD issue with :func:`violation`. A pruned field can also surface from ``validate`` (a schema that
forbids additional properties); :func:`pruned_paths` lets GANG601 leave those to GANG602.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, CrdSchemas, Violation
from gpufleet.yamlin.errors import Issue


def pruned_paths(crds: CrdSchemas, obj: Mapping[str, Any]) -> frozenset[FieldPath | str]:
    """Paths ``crds.pruned_fields(obj)`` reports."""
    return frozenset(issue.path for issue in crds.pruned_fields(obj))


def at(issue: Issue) -> FieldPath:
    """Where a CRD issue is: its FieldPath, or, for a label such as ``(root)``, a path printing that label."""
    return issue.path if isinstance(issue.path, FieldPath) else FieldPath((issue.path,))


def schemas_for(obj: Mapping[str, Any], ctx: CheckContext) -> CrdSchemas | None:
    """``ctx.crds`` when it knows ``obj``'s kind, else None (the schema rules stay quiet)."""
    crds = ctx.crds
    return crds if crds is not None and crds.knows(obj) else None


def violation(issue: Issue, fix: str) -> Violation:
    """The finding of a CRD ``issue`` where it is (:func:`at`): its message, its own fix, else ``fix``."""
    return Violation(at(issue), issue.message, issue.fix or fix)
