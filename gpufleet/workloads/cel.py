"""The CEL spelling of workload facts both admission-policy renderers read: annotations and the elastic opt-in.

One spelling for the rules' CEL forms (:mod:`gpufleet.rules.celform`, the ValidatingAdmissionPolicies)
and the mutator's policies (:mod:`gpufleet.mutate.policies`, the MutatingAdmissionPolicies), so both
read the elastic opt-in as :mod:`gpufleet.workloads.elastic` does. Pure string builders.
"""

from __future__ import annotations

from gpufleet.kubetypes.vocab import ELASTIC


def annotation_map(root: str = "object") -> str:
    """``root``'s annotations, or an empty map."""
    return f"(has({root}.metadata.annotations) ? {root}.metadata.annotations : {{}})"


def elastic(root: str = "object") -> str:
    """The elastic opt-in (:func:`gpufleet.workloads.elastic.opted_in`): the annotation, trimmed, is ``true`` in any case."""
    notes = annotation_map(root)
    return f"('{ELASTIC}' in {notes} && {notes}['{ELASTIC}'].trim().lowerAscii() == 'true')"
