"""GANG109 pod-group-without-total-count: a Kueue plain-pod group member that Kueue's webhook refuses.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A Pod that Kueue manages (it carries `kueue.x-k8s.io/queue-name`, or the fleet model
says Kueue manages unlabelled jobs in its namespace; never in a namespace outside Kueue's
`managedJobsNamespaceSelector`, where its pod webhook is not called) and names a Kueue plain-pod group
(`kueue.x-k8s.io/pod-group-name`, a label, or an annotation since Kueue 0.18), but whose
`kueue.x-k8s.io/pod-group-total-count` annotation is missing or not a whole number of
at least 1.

Why it is unsafe

Kueue's pod webhook (`validatePodGroupMetadata`, `pkg/controller/jobs/pod/pod_webhook.go`)
refuses such a pod at CREATE: the total count is how Kueue knows when the group is
complete and can be admitted as one workload. The pod is never created; a controller
that makes the pods (an operator, a script looping over ranks) retries or gives up, and
the group never starts. With a fleet context, a pod in a namespace outside the ones the
fleet's Kueue manages is left alone: Kueue's chart gives its pod webhook the manager's
`managedJobsNamespaceSelector`, so the webhook is never called there (the pod is created
and Kueue does not hold it). The sandbox's Kueue v0.19.2 showed both: the refusal in a
team namespace, labelled or not (with `manageJobsWithoutQueueName`), and the queue-labelled
member created in a namespace of no team (`tests/e2e/test_kueue_labels_e2e.py`).

Example

```yaml
apiVersion: v1
kind: Pod
metadata:
  labels:
    kueue.x-k8s.io/queue-name: research
    kueue.x-k8s.io/pod-group-name: trio
```

Preferred form

```yaml
metadata:
  labels: {kueue.x-k8s.io/queue-name: research, kueue.x-k8s.io/pod-group-name: trio}
  annotations: {kueue.x-k8s.io/pod-group-total-count: "3"}   # the same on every member
```

There is no automatic fix: the admission controller and the policy pack's per-resource
check see one pod at a time, and a count of 1 would admit each pod as a gang of its
own. The message names the number of the group's pods when the run (the linter's
files, the stack) shows them.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import POD_GROUP_PODS, CelCheck, CelForm, fact, unknown
from gpufleet.rules.celkinds import map_value
from gpufleet.workloads import WorkloadView, annotation_path, as_int
from gpufleet.workloads import outcomes as O

TOTAL = annotation_path(vocab.KUEUE_POD_GROUP_TOTAL)


def _group(view: WorkloadView) -> str | None:
    """The Kueue pod-group name the pod carries (label, or annotation since Kueue 0.18)."""
    name = view.labels.get(vocab.KUEUE_POD_GROUP) or view.annotations.get(vocab.KUEUE_POD_GROUP)
    return str(name) if name else None


def _kueue_managed(view: WorkloadView, ctx: CheckContext) -> bool:
    """Whether Kueue's pod webhook judges the pod: never outside the namespaces the fleet's Kueue manages (the chart
    gives the webhook ``managedJobsNamespaceSelector``), there for a queue label or where Kueue holds unlabelled work."""
    fleet = ctx.fleet
    managed = fleet.kueue_managed_namespaces if fleet is not None else None
    if managed is not None and view.namespace is not None and view.namespace not in managed:
        return False
    if view.queue_label:
        return True
    return fleet is not None and fleet.kueue_holds_unlabelled(view.namespace) is True


def _problem(obj: Mapping[str, Any], ctx: CheckContext) -> tuple[str, str] | None:
    """(the group's name, what is wrong with its total count) for a refused member, else None."""
    view = ctx.run.view(obj)
    if view is None or view.kind != "Pod" or view.group != "":
        return None
    group = _group(view)
    if group is None or not _kueue_managed(view, ctx):
        return None
    if vocab.KUEUE_POD_GROUP_TOTAL not in view.annotations:
        return group, "has no"
    count = as_int(view.annotations.get(vocab.KUEUE_POD_GROUP_TOTAL))
    return (
        (group, f"has an invalid ({view.annotations.get(vocab.KUEUE_POD_GROUP_TOTAL)!r})")
        if not count or count < 1
        else None
    )


def _members(obj: Mapping[str, Any], ctx: CheckContext, group: str) -> int:
    view = ctx.run.view(obj)
    return ctx.run.member_pods(view.namespace if view else None, group) if ctx.objects else 0


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    found = _problem(obj, ctx)
    if found is None:
        return
    group, what = found
    members = _members(obj, ctx, group)
    value = f'"{members}"' if members else '"<pods in the group>"'
    yield Violation(
        TOTAL,
        f"pod of Kueue pod group {group!r} {what} {vocab.KUEUE_POD_GROUP_TOTAL} annotation: "
        "Kueue's pod webhook refuses to create it, so the group never starts",
        f"annotate {vocab.KUEUE_POD_GROUP_TOTAL}: {value} on every pod of the group",
    )


_GROUP_LABEL, _GROUP_NOTE = (
    map_value("object.metadata.labels", vocab.KUEUE_POD_GROUP),
    map_value("object.metadata.annotations", vocab.KUEUE_POD_GROUP),
)
_NOTES = "object.metadata.annotations"
_COUNT = f"{_NOTES}['{vocab.KUEUE_POD_GROUP_TOTAL}']"
CEL = CelForm(
    resources=(POD_GROUP_PODS,),
    facts=("kueueManaged", "kueueHoldsUnlabelled"),
    variables=(
        ("group", f"{_GROUP_LABEL} != '' ? {_GROUP_LABEL} : {_GROUP_NOTE}"),
        (
            "judged",
            f"variables.group != '' && ({unknown('kueueManaged')} || {fact('kueueManaged', 'request.namespace')}) "
            f"&& ({map_value('object.metadata.labels', vocab.QUEUE_LABEL)} != '' "
            f"|| {fact('kueueHoldsUnlabelled', 'request.namespace')})",
        ),
        ("counted", f"has({_NOTES}) && '{vocab.KUEUE_POD_GROUP_TOTAL}' in {_NOTES}"),
    ),
    checks=(
        CelCheck(
            f"!variables.judged || (variables.counted && {_COUNT}.trim().matches('^[0-9]*[1-9][0-9]*$'))",
            f"'{TOTAL}'",
            f"'pod of Kueue pod group ' + variables.group + (variables.counted ? ' has an invalid (' + {_COUNT} + ')' "
            f": ' has no') + ' {vocab.KUEUE_POD_GROUP_TOTAL} annotation: Kueue\\'s pod webhook refuses to create it, "
            "so the group never starts'",
        ),
    ),
)


RULE = Rule(
    code="GANG109",
    name="pod-group-without-total-count",
    family="routing",
    severity=Severity.ERROR,
    summary="A Kueue plain-pod group member lacks a valid pod-group-total-count annotation; Kueue's webhook refuses it.",
    fix="annotate kueue.x-k8s.io/pod-group-total-count with the group's pod count on every member",
    kinds=(("", "Pod"),),
    check=check,
    needs_objects=True,
    doc=__doc__ or "",
    cel=CEL,
    predicts=frozenset({O.REFUSED}),  # Kueue's webhook refuses the pod
)
