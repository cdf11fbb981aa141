"""The rules' CEL forms as ValidatingAdmissionPolicies and bindings (admissionregistration.k8s.io/v1).

Pure: a fleet model and the rules in, plain dicts out. Called by the Pulumi controller
component (which applies them beside the webhook), by ``tests/rules/test_cel_equality.py``
(which evaluates them with cel-python against the engine) and by the e2e tier. It lives
in the rules layer, not in :mod:`gpufleet.render`, because it reads the rule registry,
which the renderers may not import (pyproject's layers contract).

One policy and one binding per rule with a CEL form (``Rule.cel``), named
``gpufleet-<code>`` (one per part, ``gpufleet-<code>-<plural>``, for a form in parts: ``CelForm.parts``), scoped like the webhook: the same resources and operations
(:func:`gpufleet.render.controller.webhooks.operations`), the same namespace selector
(team namespaces, never the system ones, nor a namespace labelled ``<optOutLabel>: disabled``)
and the same JobSet-children skip. Error rules bind with ``validationActions: [Deny]``,
warnings with ``[Warn]``; a warning's blank waiver is an error for the engine
(:func:`gpufleet.rules.waivers.apply`), so a warning rule also gets a ``-blank-waiver``
policy bound with ``[Deny]``. Every check is skipped when the object waives the rule
with a reason, and on UPDATE when the old object failed it already (the webhook blocks
only findings an update introduces). Messages are the webhook's denial line:
``<CODE> <name> at <path>: <message> Fix: <fix>``. Rule options a form reads reach CEL
as ``params`` from the ConfigMap :func:`params_config_map` (``paramKind``), with the
options' defaults, as the webhook runs the rules, and so do the fleet facts a form reads
(:data:`FACTS`), taken from the fleet context the webhook reads: one owner per fact.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, Callable, Iterable, Iterator

from gpufleet.fleetctx.context import FleetContext, PoolContext
from gpufleet.kubetypes import quantity
from gpufleet.kubetypes.admission_match import admission_object, match_constraints, on_pods_only, resource_rule
from gpufleet.model.fleet import Fleet
from gpufleet.render.context import render_context
from gpufleet.render.controller.common import meta
from gpufleet.render.controller.webhooks import ONLY_POD_GROUPS, SKIP_JOBSET_CHILDREN, namespace_selector, operations
from gpufleet.render.params_configmap import param_ref
from gpufleet.render.params_configmap import params_config_map as named_params
from gpufleet.rules.api import Rule, Severity
from gpufleet.rules.celform import UNKNOWN, CelCheck, CelForm, Resource, blank_waiver, key_part, waived
from gpufleet.rules.gpus.gang404_min_resources_exceed_pools import FLEET_SCOPE, capacity, pool_set
from gpufleet.util.camel import camel

PARAMS = "gpufleet-rule-params"
"""The base name of the ConfigMap (controller namespace) holding the rule options and facts the policies read:
named ``<PARAMS>-<digest of its data>`` (:func:`gpufleet.render.params_configmap.params_name`)."""


def policy_name(code: str, suffix: str = "") -> str:
    return f"gpufleet-{code.lower()}{suffix}"


def _cel_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


_OBJECT, _VARIABLE = re.compile(r"\bobject\b"), re.compile(r"\bvariables\.(\w+)")


def _on_old(expression: str) -> str:
    """``expression`` read on ``oldObject`` (its variables as the ``old_`` ones)."""
    return _VARIABLE.sub(r"variables.old_\1", _OBJECT.sub("oldObject", expression))


def _validation(rule: Rule, check: CelCheck, guard: str, updates: bool) -> dict[str, Any]:
    fix = check.fix or _cel_string(rule.fix)
    old_failed = (
        (
            f" || (request.operation == 'UPDATE' ? !{waived(rule.code, 'oldObject')} "
            f"&& !({_on_old(check.expression)}) : false)"
        )
        if updates
        else ""
    )
    return {
        "expression": f"{guard}{old_failed} || ({check.expression})",
        "messageExpression": f"'{rule.code} {rule.name} at ' + {check.path} + ': ' + {check.message} + ' Fix: ' + {fix}",
        "reason": "Forbidden",
    }


def _resource_rules(form: CelForm) -> list[dict[str, Any]]:
    return [
        resource_rule(group, versions, plural, operations("validate", group, plural))
        for group, versions, plural, _ in form.resources
    ]


def _conditions(matched: Iterable[Resource]) -> list[dict[str, Any]]:
    """The webhook's conditions: JobSet children skipped; Pods only as Kueue pod-group members (its pod hook's)."""
    out = [dict(SKIP_JOBSET_CHILDREN)]
    if any(plural == "pods" for _, _, plural, _ in matched):
        out.append(on_pods_only(ONLY_POD_GROUPS))
    return out


def _policy(fleet: Fleet, rule: Rule, form: CelForm, name: str, guard: str) -> dict[str, Any]:
    variables = [{"name": n, "expression": e} for n, e in form.variables]
    updates = any(op == "UPDATE" for r in _resource_rules(form) for op in r["operations"])
    if updates:
        # variables are evaluated only when read: the old ones, only on UPDATE (the validations' guard)
        variables += [{"name": f"old_{n}", "expression": _on_old(e)} for n, e in form.variables]
    spec: dict[str, Any] = {
        "failurePolicy": "Fail",
        "matchConstraints": match_constraints(_resource_rules(form), namespace_selector(fleet)),
        "matchConditions": _conditions(form.resources),
        "variables": variables,
        "validations": [_validation(rule, check, guard, updates) for check in form.checks],
    }
    if rule.cel is not None and (rule.cel.params or rule.cel.facts):
        spec["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
    return admission_object("ValidatingAdmissionPolicy", meta(fleet, name, namespaced=False), spec)


def _reads_params(rule: Rule) -> bool:
    return rule.cel is not None and bool(rule.cel.params or rule.cel.facts)


def _binding(fleet: Fleet, rule: Rule, name: str, actions: list[str], params: dict[str, Any] | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"policyName": name, "validationActions": actions}
    if _reads_params(rule):
        assert params is not None, f"{rule.code} reads params: render it with its params ConfigMap"
        spec["paramRef"] = param_ref(params)
    return admission_object("ValidatingAdmissionPolicyBinding", meta(fleet, name, namespaced=False), spec)


def policy_forms(form: CelForm) -> list[tuple[str, CelForm]]:
    """``(name suffix, form)`` of each policy a rule's form renders: one per part (``-<plural>``, ``CelForm.parts``),
    else the form itself (no suffix)."""
    return [(f"-{part.resources[0][2]}", part) for part in form.parts] or [("", form)]


def rule_policies(fleet: Fleet, rule: Rule, params: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The policies and bindings of one rule with a CEL form, keyed ``<kind lowercase>-<name>``; a binding reading
    params names ``params`` (the ConfigMap of :func:`params_config_map`)."""
    out: dict[str, dict[str, Any]] = {}
    warns = rule.severity is Severity.WARNING
    guard = waived(rule.code) if rule.waivable else "false"
    if warns:  # a blank waiver turns the warning into an error: denied by the second policy, not warned
        guard = f"{guard} || {blank_waiver(rule.code)}"
    shapes = [("", guard, ["Warn"] if warns else ["Deny"])]
    if warns:
        shapes.append(("-blank-waiver", f"!{blank_waiver(rule.code)}", ["Deny"]))
    assert rule.cel is not None
    for shape, guard, actions in shapes:
        for part, form in policy_forms(rule.cel):
            name = policy_name(rule.code, part + shape)
            out[f"validatingadmissionpolicy-{name}"] = _policy(fleet, rule, form, name, guard)
            out[f"validatingadmissionpolicybinding-{name}"] = _binding(fleet, rule, name, actions, params)
    return out


Fact = Callable[[FleetContext], Iterable["str | tuple[str, str]"]]

FACTS: dict[str, Fact] = {
    "priorityClass": lambda context: (pc.name for pc in context.priority_classes),
    # a ConfigMap key holds only [-._a-zA-Z0-9]: the label's name itself (a '/') cannot be a value here
    "observability": lambda context: ("gangLabel",) if context.gang_label else (),
}
"""The fleet facts a CEL form may read (``CelForm.facts``), each from the fleet context the webhook reads
(:func:`gpufleet.render.context.render_context`): the params hold a key ``<fact>.<value>`` per value, its data
``true``, or the data a fact gives with its value (``(value, data)``)."""


# --- GPU and partition facts (GANG401, GANG404, GANG807) ---------------------------------------------------------
def _scopes(context: FleetContext) -> Iterator[tuple[str, str, list[PoolContext]]]:
    """(system, scope, pools): each system's pools, and each team's own pools of it (:func:`gang404.pool_set`)."""
    for system in sorted({p.system for p in context.pools}):
        yield system, FLEET_SCOPE, pool_set(context, system, None)
        for team in context.teams:
            own = [p for p in pool_set(context, system, team) if p.name in team.pools]
            if own:
                yield system, team.name, own


def _pool_totals(context: FleetContext) -> Iterator[tuple[str, str]]:
    """``<system>.<scope>.<resource>``: nodeCount × allocatable summed over the scope's pools (:func:`gang404.capacity`)."""
    gpus = context.index.gpu_resources
    for system, scope, pools in _scopes(context):
        for resource in sorted({r for p in pools for r in p.allocatable} | gpus):
            total = capacity(pools, resource, gpus)
            if total is not None:
                yield f"{system}.{scope}.{resource}", quantity.fmt(total)


FACTS.update(
    {
        "gpuResource": lambda context: context.index.sorted_gpu_resources,
        "namespaceTeam": lambda context: {
            ns: context.team_for_namespace(ns).name  # type: ignore[union-attr]  # a namespace of the context's list belongs to a team
            for team in context.teams
            for ns in team.namespaces
        }.items(),
        "volcanoQueueTeam": lambda context: (
            (queue, context.team_for_volcano_queue(queue).name)  # type: ignore[union-attr]  # a Volcano queue of the context's list belongs to a team
            for queue in sorted(context.volcano_queues())
        ),
        "poolSet": lambda context: (
            (f"{system}.{scope}", ", ".join(p.name for p in pools)) for system, scope, pools in _scopes(context)
        ),
        "poolTotal": _pool_totals,
        "dedicatedTeam": lambda context: sorted({p.dedicated_to for p in context.pools if p.dedicated_to}),
        "partitionExempt": lambda context: context.partition_exempt_namespaces,
    }
)
# --- end of the GPU and partition facts ---------------------------------------------------------------------------


# Routing and coscheduling facts (GANG104-GANG109, GANG805, GANG806): who owns a namespace, its queues and how
# Kueue treats it. Each is computed by the function the rule itself calls, over the fleet's team namespaces; a
# value ``<namespace>.<name>`` pairs a namespace (no dot in it) with a queue; UNKNOWN: the context does not say.


def _team_namespaces(context: FleetContext) -> list[str]:
    return [ns for team in context.teams for ns in team.namespaces]


def _namespace_volcano_queues(context: FleetContext) -> Iterable[str]:
    teams = ((ns, context.team_for_namespace(ns)) for ns in _team_namespaces(context))
    return (f"{ns}.{team.volcano_queue}" for ns, team in teams if team is not None and team.volcano_queue)


def _team_volcano_queues(context: FleetContext) -> Iterable[str]:
    from gpufleet.rules.routing.gang104_undeclared_queue import own_queue

    teams = ((ns, context.team_for_namespace(ns)) for ns in _team_namespaces(context))
    return (f"{ns}.{queue}" for ns, team in teams if team is not None and (queue := own_queue(context, team.name)))


def _volcano_only_namespaces(context: FleetContext) -> Iterable[str]:
    from gpufleet.rules.placement import volcano_only

    return (ns for ns in _team_namespaces(context) if volcano_only(context.team_for_namespace(ns)))


def _coscheduling_namespaces(context: FleetContext) -> Iterable[str]:
    from gpufleet.rules.api import CheckContext
    from gpufleet.rules.placement import in_coscheduling_namespace

    ctx = CheckContext(fleet=context)
    return (ns for ns in _team_namespaces(context) if in_coscheduling_namespace(ctx, ns))


FACTS.update(
    {
        "teamNamespace": _team_namespaces,
        "localQueue": lambda context: (f"{ns}.{queue}" for ns, queue in context.local_queues()),
        "volcanoQueue": lambda context: context.volcano_queues(),
        "namespaceVolcanoQueue": _namespace_volcano_queues,
        "teamVolcanoQueue": _team_volcano_queues,
        "kueueManaged": lambda context: (
            (UNKNOWN,) if context.kueue_managed_namespaces is None else context.kueue_managed_namespaces
        ),
        "kueueHoldsUnlabelled": lambda context: (
            ns for ns in context.kueue_managed_namespaces or () if context.kueue_holds_unlabelled(ns) is True
        ),
        "kueueLeavesUnlabelled": lambda context: (
            ns for ns in _team_namespaces(context) if context.kueue_holds_unlabelled(ns) is False
        ),
        "kueueNamespace": lambda context: (
            ns
            for ns in _team_namespaces(context)
            if (team := context.team_for_namespace(ns)) is not None and team.local_queue
        ),
        "kueueTeamNamespace": lambda context: (
            ns
            for ns in _team_namespaces(context)
            if (team := context.team_for_namespace(ns)) is not None and team.local_queue and not team.volcano_queue
        ),
        "volcanoOnlyNamespace": _volcano_only_namespaces,
        "kueueIntegrates": lambda context: (UNKNOWN,) if context.kueue_frameworks is None else context.kueue_frameworks,
        "coschedulingNamespace": _coscheduling_namespaces,
        "coschedulingScheduler": lambda context: (context.coscheduling_scheduler or UNKNOWN,),
    }
)


def params_data(rules: Iterable[Rule], context: FleetContext | None = None) -> dict[str, str]:
    """``{'<CODE>.<option>': value}`` for every option a CEL form reads (the options' defaults, as the webhook runs),
    and ``{'<fact>.<value>': 'true'}`` for every fleet fact one reads (from ``context``)."""
    data: dict[str, str] = {}
    rules = list(rules)
    wanted = sorted({name for rule in rules if rule.cel is not None for name in rule.cel.facts})
    if wanted and context is not None:
        for name in wanted:
            for value in FACTS[name](context):
                key, text = value if isinstance(value, tuple) else (value, "true")
                data[f"{name}.{key_part(key)}"] = text  # a '/' as every params key writes it
    for rule in rules:
        if rule.cel is None or not rule.cel.params or rule.options is None:
            continue
        defaults = {camel(f.name): getattr(rule.options(), f.name) for f in dataclasses.fields(rule.options)}
        for key in rule.cel.params:
            value = defaults[key]
            if isinstance(value, (tuple, list)):  # a list option: one key per item, and its first (celform.listed)
                data.update({f"{rule.code}.{key}.{item}": "true" for item in value})
                data[f"{rule.code}.{key}"] = sorted(value)[0] if value else ""
            else:
                data[f"{rule.code}.{key}"] = value if isinstance(value, str) else json.dumps(value)
    return dict(sorted(data.items()))  # one order whatever the hash seed (the facts come from sets)


def params_config_map(fleet: Fleet, rules: Iterable[Rule]) -> dict[str, Any]:
    """The params ConfigMap of ``rules``, named by its data (:mod:`gpufleet.render.params_configmap`)."""
    return named_params(fleet, PARAMS, params_data(rules, FleetContext.from_dict(render_context(fleet))))


def render_policies(fleet: Fleet, rules: Iterable[Rule]) -> dict[str, dict[str, Any]]:
    """Every rule's policies and bindings, and the params ConfigMap when a form reads options; keyed, in code order."""
    rules = sorted((r for r in rules if r.cel is not None), key=lambda r: r.code)
    out: dict[str, dict[str, Any]] = {}
    params = params_config_map(fleet, rules) if any(_reads_params(rule) for rule in rules) else None
    if params is not None:
        out["configmap-rule-params"] = params
    for rule in rules:
        out.update(rule_policies(fleet, rule, params))
    return out


def stack_policies(fleet: Fleet) -> dict[str, dict[str, Any]]:
    """What the stack applies for ``controller.enforcement``: every rule's policies with ``apiServer`` or ``both``
    (and an enabled controller), none with ``webhook``. Read by the Pulumi controller component, ``gpufleet plan``
    and ``gpufleet diff``, so the three list the same objects."""
    if not fleet.controller.enabled or fleet.controller.enforcement == "webhook":
        return {}
    from gpufleet.rules.registry import (
        all_rules,  # the registry imports every rule module: only when policies are wanted
    )

    return render_policies(fleet, all_rules())
