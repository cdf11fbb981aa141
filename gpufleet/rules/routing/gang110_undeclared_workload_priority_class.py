"""GANG110 undeclared-workload-priority-class: a job names a Kueue WorkloadPriorityClass the fleet does not render.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; only with a fleet context (`--fleet`), whose priority classes are the
WorkloadPriorityClasses the stack renders (one per model priority class, same name).

What it checks

A workload whose `kueue.x-k8s.io/priority-class` label (on its own metadata; for a
CronJob, on `spec.jobTemplate.metadata`, what its Jobs carry) names a
WorkloadPriorityClass that is not one of the fleet model's `priorityClasses`.

Why it is unsafe

Kueue resolves the label when it creates the job's Workload; a WorkloadPriorityClass
that does not exist makes that fail (the job reconciler reports the lookup error and
retries), so no Workload is created, nothing is admitted, and the job stays suspended
with its queue label set, the same silent wait as a LocalQueue that does not exist
(GANG104). The sandbox's Kueue v0.19.2 showed it (`tests/e2e/test_kueue_labels_e2e.py`):
the Job stayed suspended with no Workload and no pod, Kueue's log saying
`WorkloadPriorityClass.kueue.x-k8s.io "gang-hihg" not found`, while the same Job naming a
rendered class was admitted at the class's value.

Example

```yaml
metadata:
  labels:
    kueue.x-k8s.io/queue-name: research
    kueue.x-k8s.io/priority-class: gang-hihg
```

Preferred form

```yaml
metadata:
  labels:
    kueue.x-k8s.io/queue-name: research
    kueue.x-k8s.io/priority-class: gang-high   # a priority class of the fleet model
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import JOB_KINDS, CelCheck, CelForm, fact, resources
from gpufleet.rules.gangs import GANG_KINDS
from gpufleet.workloads import as_map, label_path
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.types import METADATA, SPEC

CRON_METADATA = SPEC.child("jobTemplate", "metadata")


def _labelled(obj: Mapping[str, Any]) -> tuple[Any, Any]:
    """(the priority-class label's value, the metadata path it is read at) of ``obj`` (a CronJob: its job template)."""
    meta, base = as_map(obj.get("metadata")), METADATA
    if obj.get("kind") == "CronJob":
        meta, base = as_map(as_map(as_map(obj.get("spec")).get("jobTemplate")).get("metadata")), CRON_METADATA
    return as_map(meta.get("labels")).get(vocab.KUEUE_PRIORITY_CLASS), base


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    fleet = ctx.fleet
    name, base = _labelled(obj)
    if fleet is None or not name:
        return
    known = sorted(pc.name for pc in fleet.priority_classes)
    if str(name) not in known:
        yield Violation(
            label_path(vocab.KUEUE_PRIORITY_CLASS, base),
            f"WorkloadPriorityClass {str(name)!r} is not rendered by the fleet model (its priority classes: "
            f"{', '.join(known) or 'none'}): Kueue creates no Workload for the job, which stays suspended",
            f"name one of the model's priority classes ({', '.join(known) or 'declare one in priorityClasses'})"
            " or add it to the model",
        )


_LABEL = vocab.KUEUE_PRIORITY_CLASS
CEL = CelForm(
    resources=resources(*JOB_KINDS),
    facts=("priorityClass",),
    variables=(
        (
            "label",
            f"has(object.metadata.labels) && '{_LABEL}' in object.metadata.labels "
            f"? object.metadata.labels['{_LABEL}'] : ''",
        ),
    ),
    checks=(
        CelCheck(
            f"variables.label == '' || {fact('priorityClass', 'variables.label')}",
            f"'metadata.labels[{_LABEL}]'",
            "'WorkloadPriorityClass ' + variables.label + ' is not rendered by the fleet model: Kueue creates no "
            "Workload for the job, which stays suspended'",
            "'name one of the model\\'s priority classes or add it to the model'",
        ),
    ),
    note="Kueue pod-group Pods (CronJobs reach neither: the linter and the policy pack judge them)",
)


RULE = Rule(
    code="GANG110",
    name="undeclared-workload-priority-class",
    family="routing",
    severity=Severity.ERROR,
    summary="A job names a Kueue WorkloadPriorityClass the fleet model does not render: it stays suspended.",
    fix="name a priority class of the fleet model in kueue.x-k8s.io/priority-class",
    kinds=(*GANG_KINDS, ("batch", "CronJob")),
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.NEVER_WHOLE,  # Kueue keeps the job suspended
)
