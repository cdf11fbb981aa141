"""Validate Kubernetes objects against real CustomResourceDefinitions, CEL rules included.

Used by the linter (GANG601 crd-schema-violation, GANG602 pruned-field with
``gpufleet lint --crds DIR``) and by tests of everything gpufleet renders or
patches::

    crds = CrdSet.load("crds/")          # directory (recursive) or one file
    crds.knows(obj)                      # apiVersion/kind served by a loaded CRD
    crds.validate(obj)                   # metadata + openAPIV3Schema + x-kubernetes-validations
    crds.pruned_fields(obj)              # fields the API server would silently drop

See docs/crd-validation.md for what is checked and the limits.
"""

from gpufleet.crdschema.cel import CelRule, Unsupported
from gpufleet.crdschema.crdset import CrdSet

__all__ = ["CrdSet", "CelRule", "Unsupported"]
