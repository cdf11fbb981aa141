"""GANG107 double-routing: Kueue admits a gang whose pods Volcano places without a gang-sized PodGroup.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; runs with and without a fleet context.

What it checks

A gang (a multi-pod job, or plain pods of a Kueue pod group) that carries the
`kueue.x-k8s.io/queue-name` label, so Kueue admits it, while its pods reach the Volcano
scheduler (`schedulerName: volcano`, or the names of option `volcanoSchedulers`), and
the pods do not join a Volcano PodGroup of the gang's size:

- no `scheduling.k8s.io/group-name` (or `scheduling.volcano.sh/group-name`) annotation
  on the pods: Volcano then makes a one-pod PodGroup per pod;
- the annotation names a `scheduling.volcano.sh` PodGroup of the same run whose
  `minMember` is below the gang's pod count.

A group annotation naming a PodGroup that is not in the run is not judged (its size is
unknown here). Volcano Jobs are not checked: Kueue has no integration for them, so
their queue label does nothing. Upstream neither Kueue nor Volcano checks this: Kueue
only suspends and unsuspends, Volcano only sees pods.

Why it is unsafe

Two engines each do half of the gang's work. Kueue counts the quota and admits the
whole gang at once, but placement is Volcano's, which, without a PodGroup of the gang's
size, binds the pods one by one as they fit: an admitted gang starts partially and
holds its GPUs waiting for the rest. Volcano's queue capacity, meanwhile, never saw
the admission, so the two engines' accounts of the same GPUs disagree.

Example

```yaml
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  labels: {kueue.x-k8s.io/queue-name: research}
spec:
  parallelism: 8
  template:
    spec:
      schedulerName: volcano     # placed by Volcano, pod by pod
```

Preferred form

```yaml
  template:
    spec:
      schedulerName: default-scheduler   # or leave it empty: Kueue's admission is the gang
```

or drop the queue label and run it as a Volcano Job in the team's Volcano queue.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation, rule_options
from gpufleet.rules.gangs import GANG_KINDS
from gpufleet.rules.placement import VOLCANO_KINDS
from gpufleet.rules.routing._helpers import VolcanoSchedulerOptions, volcano_names
from gpufleet.workloads import PodTemplate, WorkloadView, as_int, as_map, effective_scheduler
from gpufleet.workloads import outcomes as O

CODE = "GANG107"
VOLCANO_GROUP = "scheduling.volcano.sh"


def _group_name(template: PodTemplate) -> str | None:
    ann = template.annotations
    name = ann.get(vocab.VOLCANO_GROUP) or ann.get(vocab.VOLCANO_GROUP_ALT)
    return str(name) if name else None


def _pod_group_size(ctx: CheckContext, namespace: str | None, name: str) -> int | None:
    """``minMember`` of the Volcano PodGroup ``name`` in the run (one look-up: ``run.names``); None when it is not in the run."""
    found = ctx.run.names.named(VOLCANO_GROUP, "PodGroup", name, namespace)
    return None if found is None else as_int(as_map(found.get("spec")).get("minMember"), 1) or 0


def gang_size(view: WorkloadView) -> int:
    return max(view.total_pods, view.gang_min or 0)


def _problem(view: WorkloadView, template: PodTemplate, ctx: CheckContext) -> str | None:
    group = _group_name(template)
    if group is None:
        return "its pods join no Volcano PodGroup, so Volcano makes a one-pod group per pod"
    size = _pod_group_size(ctx, view.namespace, group)
    if size is not None and size < gang_size(view):
        return f"their PodGroup {group!r} has minMember {size}, below the gang's {gang_size(view)} pods"
    return None


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is None or (view.group, view.kind) in VOLCANO_KINDS or not gangs.is_gang(view, ctx) or gang_size(view) < 2:
        return
    label = ctx.fleet.queue_label if ctx.fleet is not None else vocab.QUEUE_LABEL
    queue = view.labels.get(label)
    if not queue:
        return
    names = volcano_names(ctx, CODE)
    for template in view.templates:
        scheduler = effective_scheduler(view, template)
        problem = _problem(view, template, ctx) if scheduler in names else None
        if problem:
            yield Violation(
                template.spec_path.child("schedulerName"),
                f"Kueue admits this gang (queue {queue!r}) but its pods go to {scheduler!r} and {problem}: "
                "quota is counted by Kueue while placement is not atomic in Volcano, so an admitted gang "
                "can start partially",
                "leave schedulerName empty (Kueue's admission is the gang), or drop the queue label and "
                "run it through Volcano (a Volcano Job, or a PodGroup with minMember = the gang's pods)",
            )


@rule_options
class Gang107Options(VolcanoSchedulerOptions):
    """GANG107's options (`--config`: `options: {GANG107: {volcanoSchedulers: [volcano, volcano-gpu]}}`)."""


RULE = Rule(
    code=CODE,
    name="double-routing",
    family="routing",
    severity=Severity.ERROR,
    summary="Kueue admits a gang (queue label) whose pods Volcano places without a PodGroup of the gang's size.",
    fix="route the gang through one system: Kueue with the default scheduler, or Volcano with a gang-sized PodGroup",
    kinds=GANG_KINDS,
    check=check,
    needs_objects=True,
    doc=__doc__ or "",
    options=Gang107Options,
    predicts=O.NEVER_WHOLE,  # Kueue admits, Volcano places pod by pod
)
