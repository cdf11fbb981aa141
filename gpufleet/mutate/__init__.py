"""Admission-time defaulting: ``mutate(obj, fleet, namespace)`` -> RFC 6902 JSON Patch operations.

See :mod:`gpufleet.mutate.core`. The admission webhook calls it on CREATE.
"""

from gpufleet.mutate.core import mutate
from gpufleet.mutate.patch import PatchBuilder, escape, pointer

__all__ = ["PatchBuilder", "escape", "mutate", "pointer"]
