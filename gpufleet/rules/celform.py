"""A rule's CEL form: what the API server evaluates in place of the webhook (issue 35).

Declared beside the rule in its module (``Rule.cel``), read by the renderer of the
ValidatingAdmissionPolicies (:mod:`gpufleet.rules.admission_policies`) and by the
equality test that runs the rendered CEL with cel-python against the engine
(``tests/rules/test_cel_equality.py``). A rule whose verdict needs other objects than the
one admitted (pod counts of a run, a PodGroup another object names) has no CEL form and
stays webhook-only: ``Rule.cel`` is None.

Each :class:`CelCheck` is one ``validations[]`` entry: ``expression`` is true when the
object passes, ``path`` and ``message`` are CEL string expressions evaluated only on
failure (``messageExpression``: the renderer writes ``<CODE> <name> at <path>: <message>
Fix: <fix>``, the webhook's denial line). Expressions read ``object`` (the admitted object,
after mutation, as the webhook sees it), ``variables.<name>`` (``CelForm.variables``, in
order) and ``params.data['<CODE>.<option>']`` for the options listed in ``CelForm.params``
(the ConfigMap :func:`gpufleet.rules.admission_policies.params_config_map` renders).

The snippets below are the one CEL spelling of facts the engine reads in Python
(waivers, the elastic opt-in), so every form and the renderer agree with
:mod:`gpufleet.rules.waivers` and :mod:`gpufleet.workloads.elastic`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from gpufleet.kubetypes.admission_kinds import KIND_OF, WORKLOAD_RESOURCES
from gpufleet.kubetypes.vocab import WAIVER_PREFIX
from gpufleet.workloads.cel import annotation_map

Resource = tuple[str, tuple[str, ...], str, str]
"""``(apiGroup, apiVersions, plural resource, kind)``: the webhook's rule for the resource, and the kind it holds."""


def resources(*wanted: tuple[str, str]) -> tuple[Resource, ...]:
    """The webhook's resources (:data:`WORKLOAD_RESOURCES`) for ``(group, plural)`` pairs, each with its kind."""
    return tuple(
        (group, versions, plural, KIND_OF[plural])
        for group, versions, plural in WORKLOAD_RESOURCES
        if (group, plural) in wanted
    )


def without(chosen: tuple[Resource, ...], *unwanted: tuple[str, str]) -> tuple[Resource, ...]:
    """``chosen`` but the ``(group, plural)`` pairs ``unwanted``."""
    return tuple(r for r in chosen if (r[0], r[2]) not in unwanted)


JOB_KINDS: tuple[tuple[str, str], ...] = tuple(
    (group, plural) for group, _, plural in WORKLOAD_RESOURCES if KIND_OF[plural] not in ("PodGroup", "Workload")
)
"""``(group, plural)`` of every workload resource of the webhook that runs pods of its own: neither a PodGroup nor a
Workload (each groups pods of other objects)."""
POD_GROUPS = (("scheduling.volcano.sh", "podgroups"), ("scheduling.x-k8s.io", "podgroups"))
"""``(group, plural)`` of Volcano's and the coscheduling plugin's PodGroups."""
LWS_AND_RAY = (("leaderworkerset.x-k8s.io", "leaderworkersets"), ("ray.io", "rayjobs"), ("ray.io", "rayclusters"))
"""``(group, plural)`` of the LeaderWorkerSets and Ray kinds, which some forms leave to the webhook (their notes say why)."""


POD_GROUP_PODS: Resource = ("", ("v1",), "pods", "Pod")
"""Pods, as the webhook's second hook is sent them: only Kueue pod-group members (the renderer adds its condition)."""


@dataclass(frozen=True)
class CelCheck:
    """One validation: ``expression`` holds for a passing object; ``path``, ``message`` and ``fix`` are CEL strings."""

    expression: str
    path: str
    message: str
    fix: str = ""
    """A CEL string naming the specific fix; empty: the rule's ``fix``, quoted."""


@dataclass(frozen=True)
class CelForm:
    """What the API server evaluates for one rule: the resources it matches and its validations."""

    resources: tuple[Resource, ...]
    checks: tuple[CelCheck, ...]
    variables: tuple[tuple[str, str], ...] = ()
    """``(name, expression)`` pairs, read as ``variables.<name>``; each may read the ones before it."""
    params: tuple[str, ...] = ()
    """The rule options (camelCase keys of ``Rule.options``) the checks read as ``params.data['<CODE>.<key>']``."""
    facts: tuple[str, ...] = ()
    """The fleet facts (:data:`gpufleet.rules.admission_policies.FACTS`) the checks read with :func:`fact`."""
    note: str = ""
    """What the form leaves to the webhook (kinds it does not match), for docs/rules.md."""
    parts: tuple[CelForm, ...] = ()
    """When set, the form's policies: one per part (``-<plural>`` of its first resource), each with its own
    resources, variables and checks; ``resources`` is then their union and ``checks`` empty. The API server
    type-checks every expression of a policy against each kind it matches, compiling all its variables each time:
    a part per kind keeps each check to its kind's variables (GANG101, GANG102)."""


def waived(code: str, root: str = "object") -> str:
    """True when ``root`` waives ``code`` with a non-blank reason (:func:`gpufleet.rules.waivers.waiver_reasons`)."""
    full = f"{WAIVER_PREFIX}{code}".upper()
    notes = annotation_map(root)
    return (
        f"{notes}.exists(k, k.startsWith('{WAIVER_PREFIX}') && k.upperAscii() == '{full}' && {notes}[k].trim() != '')"
    )


def blank_waiver(code: str, root: str = "object") -> str:
    """True when ``root`` carries a waiver of ``code`` with a blank reason (:func:`gpufleet.rules.waivers.blank_waivers`)."""
    full = f"{WAIVER_PREFIX}{code}".upper()
    notes = annotation_map(root)
    return (
        f"{notes}.exists(k, k.startsWith('{WAIVER_PREFIX}') && k.upperAscii() == '{full}' && {notes}[k].trim() == '')"
    )


CelPath = tuple[str, ...]
"""A CEL field path built from its parts: a root (``t``, ``object.spec.x[r]``), then field names."""


def dotted(path: CelPath) -> str:
    """The CEL selection of ``path``: ``t.template.spec``."""
    return ".".join(path)


def present(path: CelPath) -> str:
    """CEL: every field of ``path`` after its root is present (``has`` of each, outermost first)."""
    return " && ".join(f"has({dotted(path[: i + 1])})" for i in range(1, len(path)))


def first_of(cases: Iterable[tuple[str, str]], default: str = "''") -> str:
    """CEL: the value of the first ``(condition, value)`` case whose condition holds, else ``default``.

    One validation for several shapes (a rule's templates of each kind): the per-validation work (the waiver
    guard the renderer adds) is done once, and the message names the first shape that fails."""
    out = default
    for condition, value in reversed(list(cases)):
        out = f"{condition} ? {value} : {out}"
    return f"({out})"


def option(code: str, key: str) -> str:
    """The CEL reading of rule option ``key`` of ``code`` from the params ConfigMap (an integer option)."""
    return f"int(params.data['{code}.{key}'])"


def fact(name: str, value: str) -> str:
    """CEL: the CEL string ``value`` is one of the fleet's ``name`` facts (a key ``<name>.<value>`` of the params)."""
    return f"(('{name}.' + {value}) in params.data)"


UNKNOWN = "_unknown"
"""A fact's one value when the fleet context does not say (no namespace, queue, scheduler or framework name holds a
``_``, and :func:`key_part` adds none)."""


def unknown(name: str) -> str:
    """CEL: the fleet context does not say what fact ``name`` is (:data:`UNKNOWN`)."""
    return fact(name, f"'{UNKNOWN}'")


def listed(code: str, key: str, value: str) -> str:
    """CEL: the CEL string ``value`` is an item of the list option ``key`` of ``code`` (a key ``<CODE>.<key>.<item>``;
    ``<CODE>.<key>`` itself holds the first item in sorted order, the one a fix names)."""
    return f"(('{code}.{key}.' + {value}) in params.data)"


SLASH = ".."
"""How a ``/`` is written in a params key, the one spelling (ConfigMap keys allow only ``[-._a-zA-Z0-9]``).

The values with a ``/`` are resource names (``nvidia.com/gpu``) and Kueue framework names
(``kubeflow.org/pytorchjob``): ``<prefix>/<name>``, the prefix a DNS subdomain. Written ``..`` rather than ``_``
because ``..`` cannot be part of a legal such name: a DNS subdomain never holds ``..`` (an empty label), nor does a
built-in resource or framework name, while ``_`` is legal after the ``/`` of a resource name (a qualified name:
device plugins name resources ``xilinx.com/fpga-xilinx_u200_...``) and marks :data:`UNKNOWN`. So an encoded value
reads back unambiguously (the ``..`` is the ``/``) and never meets a name spelled with ``_`` or the marker."""


def key_part(text: str) -> str:
    """``text`` as a params key writes it (:data:`SLASH` for ``/``): the one encoding, used for every fact value
    (:func:`gpufleet.rules.admission_policies.params_data`) and every literal a form compares with a key; the
    Python side of :func:`param_key`."""
    return text.replace("/", SLASH)


def param_key(value: str) -> str:
    """CEL: the CEL string ``value`` as a params key writes it (:func:`key_part`)."""
    return f"{value}.replace('/', '{SLASH}')"


def fact_value(name: str, value: str) -> str:
    """CEL: the params' value of fact ``name`` for the CEL string ``value`` (a key ``<name>.<value>``)."""
    return f"params.data['{name}.' + {value}]"
