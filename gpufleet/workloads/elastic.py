"""The elastic opt-in, read one way by the rules and the mutator.

``gpufleet.dev/elastic`` on a workload's ``metadata.annotations`` says its gang minimum
may be below its pod count on purpose. Called by the workload views
(:mod:`gpufleet.workloads.kinds`, hence every rule reading ``WorkloadView.elastic``)
and by the admission controller's defaulting (:mod:`gpufleet.mutate.volcano`), so a
job the rules treat as elastic is never forced to a full-gang minimum by the mutator,
and the reverse.

Decided once: the opt-in holds when the value, as text and without surrounding blanks,
is ``true`` in any letter case (``"true"``, ``"True"``, ``"TRUE"``; a YAML boolean
``true``, which the API server would reject as an annotation, reads the same). Every
other value, including ``"yes"`` and ``"1"``, is no opt-in.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes.vocab import ELASTIC


def opted_in(value: Any) -> bool:
    """Whether one annotation value opts in (see the module docstring)."""
    return value is not None and str(value).strip().lower() == "true"


def is_elastic(annotations: Any) -> bool:
    """Whether an object's annotations (any value; non-mappings count as none) opt into elasticity."""
    return (type(annotations) is dict or isinstance(annotations, Mapping)) and opted_in(annotations.get(ELASTIC))
