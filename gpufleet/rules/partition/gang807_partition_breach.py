"""GANG807 partition-breach: pods that could land on a pool dedicated to another team.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; only with a fleet context whose model dedicates a pool (`dedicatedTo`).
Not waivable: an annotation on the object itself does not waive it (`Rule.waivable`).
Silent in the namespaces static partitioning exempts (``kube-system`` and the model's
``partitionExemptNamespaces``, read from the fleet context): the rendered
ValidatingAdmissionPolicy exempts the same list, so lint, the admission controller and the
API server judge a node agent's DaemonSet the same way.

What it checks

A pod template of any kind (Pod, Job, CronJob, Deployment, ReplicaSet, StatefulSet,
DaemonSet, JobSet, Kubeflow jobs, Volcano Jobs, LeaderWorkerSet, Ray, training runtimes)
in a namespace whose team is not the pool's owner (or in no team's namespace) that

- tolerates the NoExecute taint `gpufleet.dev/dedicated` of another team: a toleration with
  that key and another team's value, with that key and `operator: Exists`, or a key-less
  `operator: Exists` toleration (it tolerates every taint), whose `effect` is `NoExecute`
  or unset (a NoSchedule-only toleration does not reach a NoExecute taint);
- selects another team's dedicated nodes (`nodeSelector` `gpufleet.dev/dedicated: <other team>`,
  or a required node affinity term on that key with `In` another team or `Exists`);
- sets `spec.nodeName`: it skips the scheduler and its taint check, and gpufleet cannot tell
  from a node's name whether it is in a dedicated pool.

Why it is unsafe

Static partitioning is chosen when isolation is a compliance requirement: the taint is
what keeps every other team off the owner's nodes (gpufleet's validation keeps their
quota off). A pod that tolerates it can be scheduled there by any scheduler, sharing
nodes and GPUs with the team the partition isolates; a pod with `nodeName` is bound by
the kubelet, which checks only NoExecute taints (so the model requires NoExecute). The
cluster-wide guarantee is the rendered ValidatingAdmissionPolicy
(`gpufleet.render.partition`), which refuses such pods from every namespace and
controller; this rule reports the same tolerations earlier, at lint and preview.

Example

```yaml
metadata: {namespace: research}
spec:
  template:
    spec:
      tolerations: [{operator: Exists}]
```

Preferred form

```yaml
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import DEDICATED_KEY
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, fact, fact_value
from gpufleet.rules.celpods import TEMPLATE_RESOURCES, TEMPLATES, any_spec, spec_path
from gpufleet.workloads import PodTemplate, as_list, as_map
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.kinds import WORKLOAD_KINDS
from gpufleet.workloads.types import is_map

KINDS = tuple(sorted(WORKLOAD_KINDS))
_REQUIRED = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")


def _breach(toleration: Any, others: set[str]) -> str | None:
    if not is_map(toleration) or toleration.get("effect") not in (None, "", "NoExecute"):
        return None
    key, operator = toleration.get("key"), toleration.get("operator", "Equal")
    if not key and operator == "Exists":
        return "tolerates every taint, including the dedicated pools'"
    if key == DEDICATED_KEY and (operator == "Exists" or toleration.get("value") in others):
        whose = "any team" if operator == "Exists" else f"team {toleration.get('value')!r}"
        return f"tolerates the dedicated-pool taint of {whose}"
    return None


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    fleet = ctx.fleet
    if view is None or fleet is None or fleet.partition_exempt(view.namespace):
        return
    team = fleet.team_for_namespace(view.namespace)
    others = {p.dedicated_to for p in fleet.pools if p.dedicated_to and (team is None or p.dedicated_to != team.name)}
    if not others:
        return
    for template in view.templates:
        yield from _template_breaches(template, others)


def _template_breaches(template: PodTemplate, others: set[str]) -> Iterator[Violation]:
    fix, owners = (
        "tolerate only your own pools' taints; dedicated pools are their team's alone",
        ", ".join(sorted(others)),
    )
    spec, at = template.spec, template.spec_path
    for i, toleration in enumerate(as_list(spec.get("tolerations"))):
        why = _breach(toleration, others)
        if why:
            yield Violation(
                at.child("tolerations").index(i), f"the pods {why}: they may land on {owners}'s dedicated nodes", fix
            )
    selected = as_map(spec.get("nodeSelector")).get(DEDICATED_KEY)
    if selected in others:
        yield Violation(
            at.child("nodeSelector").key(DEDICATED_KEY),
            f"the pods select team {selected!r}'s dedicated nodes",
            "remove the selector; run on your own team's pools",
        )
    yield from _affinity(spec, at, others)
    if spec.get("nodeName"):
        yield Violation(
            at.child("nodeName"),
            f"nodeName {spec.get('nodeName')!r} binds the pods without the scheduler's taint "
            f"check, and nothing here says the node is outside {owners}'s dedicated pools",
            "remove nodeName; select your own pool's nodes by label (nodeSelector)",
        )


def _affinity(spec: Any, at: FieldPath, others: set[str]) -> Iterator[Violation]:
    required = as_map(as_map(as_map(spec.get("affinity")).get("nodeAffinity")).get(_REQUIRED[2]))
    terms_at = at.child(*_REQUIRED, "nodeSelectorTerms")
    for t, term in enumerate(as_list(required.get("nodeSelectorTerms"))):
        for e, expr in enumerate(as_list(as_map(term).get("matchExpressions"))):
            expr = as_map(expr)
            values = {str(v) for v in as_list(expr.get("values"))}
            if expr.get("key") == DEDICATED_KEY and (
                expr.get("operator") == "Exists" or (expr.get("operator") == "In" and values & others)
            ):
                yield Violation(
                    terms_at.index(t).child("matchExpressions").index(e),
                    "the pods' required node affinity selects another team's dedicated nodes",
                    "remove the term; run on your own team's pools",
                )


def _other(team: str) -> str:
    """CEL: the CEL string ``team`` is a team with a dedicated pool other than the namespace's own."""
    return f"({fact('dedicatedTeam', team)} && {team} != variables.team)"


def _cel_breach(spec: str) -> str:
    """CEL: pod spec ``spec`` tolerates, selects or bypasses another team's dedicated nodes (:func:`_template_breaches`)."""
    required = f"{spec}.affinity.nodeAffinity.{_REQUIRED[2]}"
    tolerates = (
        f"(has({spec}.tolerations) && {spec}.tolerations.exists(t, (!has(t.effect) || t.effect == '' "
        "|| t.effect == 'NoExecute') && (((!has(t.key) || t.key == '') && has(t.operator) && t.operator == 'Exists') "
        f"|| (has(t.key) && t.key == '{DEDICATED_KEY}' && ((has(t.operator) && t.operator == 'Exists') "
        f"|| ((!has(t.operator) || t.operator != 'Exists') && has(t.value) && {_other('t.value')}))))))"
    )
    selects = f"(has({spec}.nodeSelector) && '{DEDICATED_KEY}' in {spec}.nodeSelector && {_other(f'{spec}.nodeSelector[{DEDICATED_KEY!r}]')})"
    affinity = (
        f"(has({spec}.affinity) && has({spec}.affinity.nodeAffinity) && has({required}) "
        f"&& has({required}.nodeSelectorTerms) && {required}.nodeSelectorTerms.exists(term, has(term.matchExpressions) "
        f"&& term.matchExpressions.exists(e, has(e.key) && e.key == '{DEDICATED_KEY}' && has(e.operator) && (e.operator == 'Exists' "
        f"|| (e.operator == 'In' && has(e.values) && e.values.exists(v, {_other('v')}))))))"
    )
    return f"({tolerates} || {selects} || {affinity} || (has({spec}.nodeName) && {spec}.nodeName != ''))"


CEL = CelForm(
    resources=TEMPLATE_RESOURCES,
    facts=("namespaceTeam", "dedicatedTeam", "partitionExempt"),
    variables=(
        TEMPLATES,
        ("ns", "has(object.metadata.namespace) ? object.metadata.namespace : request.namespace"),
        ("team", f"{fact('namespaceTeam', 'variables.ns')} ? {fact_value('namespaceTeam', 'variables.ns')} : ''"),
        ("others", "params.data.exists(k, k.startsWith('dedicatedTeam.') && k != 'dedicatedTeam.' + variables.team)"),
    ),
    checks=(
        CelCheck(
            f"!variables.others || {fact('partitionExempt', 'variables.ns')} || !{any_spec(_cel_breach)}",
            spec_path(_cel_breach),
            "'the pods tolerate or select the nodes of a pool dedicated to another team, or set nodeName: they may "
            "land on its dedicated nodes'",
        ),
    ),
    note="TrainJob (its pod templates are its runtime's, another object) and the Kueue pod-group Pods the webhook is also "
    "sent (every Pod's toleration is refused cluster-wide by the partition policy, gpufleet.render.partition)",
)

RULE = Rule(
    code="GANG807",
    name="partition-breach",
    family="partition",
    severity=Severity.ERROR,
    summary="Pods tolerate or select the nodes of a pool dedicated to another team.",
    fix="tolerate and select only your own team's pools",
    kinds=KINDS,
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    waivable=False,
    cel=CEL,
    predicts=O.NOT_JUDGED,  # policy: the engines run pods on another team's nodes
)
