"""Shared bits of the schema rules GANG601 and GANG602.

Called by ``gang601_*`` and ``gang602_*``. Both rules run on every kind
(``kinds=EVERY_KIND``, the wildcard of ``gpufleet.rules.api``) and ask ``ctx.crds`` (a ``gpufleet.crdschema.CrdSet``) whether
it knows the object. A pruned field can also surface from ``validate`` (a schema that
forbids additional properties); :func:`pruned_paths` lets GANG601 leave those to GANG602.
"""

from __future__ import annotations

from typing import Any, Mapping

def pruned_paths(crds: Any, obj: Mapping[str, Any]) -> frozenset[str]:
    """Paths ``crds.pruned_fields(obj)`` reports (empty when the CrdSet has no such method)."""
    pruned = getattr(crds, "pruned_fields", None)
    return frozenset(issue.path for issue in pruned(obj)) if pruned else frozenset()
