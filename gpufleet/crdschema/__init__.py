"""Validate Kubernetes objects against real CustomResourceDefinitions, CEL rules included.

Used by the linter (GANG601 crd-schema-violation, GANG602 pruned-field: against the
schemas gpufleet carries, ``gpufleet.crdschema.bundle``, and ``gpufleet lint --crds DIR``'s)
and by tests of everything gpufleet renders or patches::

    crds = CrdSet.load("crds/")          # directory (recursive) or one file
    crds.knows(obj)                      # apiVersion/kind served by a loaded CRD
    crds.validate(obj)                   # metadata + openAPIV3Schema + x-kubernetes-validations
    crds.pruned_fields(obj)              # fields the API server would silently drop

See docs/crd-validation.md for what is checked and the limits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpufleet.crdschema.cel import CelRule, Unsupported
    from gpufleet.crdschema.crdset import CrdSet

__all__ = ["CrdSet", "CelRule", "Unsupported"]


def __getattr__(name: str) -> Any:
    """The names above, imported on first use: cel-python and jsonschema load only when a CRD serves an object."""
    if name == "CrdSet":
        from gpufleet.crdschema.crdset import CrdSet

        return CrdSet
    if name in ("CelRule", "Unsupported"):
        from gpufleet.crdschema import cel

        return getattr(cel, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
