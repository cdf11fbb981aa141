"""GANG806 coscheduling-gang-without-pod-group: a gang in a coscheduling pool's namespace joins no pod group.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; only with a fleet context.

What it checks

A multi-pod workload (Job, JobSet, Kubeflow job) in a namespace of the team that holds
a `system: coscheduling` pool, one of whose pod templates has no
`scheduling.x-k8s.io/pod-group` label. The admission controller adds the label (the
workload's name) on CREATE; this catches manifests linted before they are applied
and objects the controller skipped.

Why it is unsafe

Without the label the coscheduling plugin treats every pod as a group of one: the
pods are bound as space appears and a partial gang holds its GPUs waiting for the rest.

Example

```yaml
kind: Job
metadata: {name: train, namespace: robotics}
spec:
  parallelism: 4
  template:
    spec: {schedulerName: scheduler-plugins-scheduler}
```

Preferred form

```yaml
  template:
    metadata:
      labels: {scheduling.x-k8s.io/pod-group: train}
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.vocab import KUBEFLOW_JOBS
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, fact, resources
from gpufleet.rules.celkinds import TOTAL_PODS, failing_templates, map_value
from gpufleet.rules.placement import in_coscheduling_namespace
from gpufleet.workloads import label_path
from gpufleet.workloads import outcomes as O

KINDS = (
    ("batch", "Job"),
    ("jobset.x-k8s.io", "JobSet"),
    *KUBEFLOW_JOBS,
)


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is None or view.total_pods < 2 or not in_coscheduling_namespace(ctx, view.namespace):
        return
    for template in view.templates:
        if not template.labels.get(vocab.COSCHEDULING_GROUP):
            yield Violation(
                label_path(vocab.COSCHEDULING_GROUP, template.metadata_path),
                f"a gang of {view.total_pods} pods in coscheduling namespace {view.namespace!r} joins no pod group: "
                "its pods are scheduled one by one",
                f"label the template {vocab.COSCHEDULING_GROUP}: {view.name or '<job name>'}",
            )


_GROUP = vocab.COSCHEDULING_GROUP
CEL = CelForm(
    resources=resources(
        ("batch", "jobs"), ("jobset.x-k8s.io", "jobsets"), ("kubeflow.org", "pytorchjobs"), ("kubeflow.org", "mpijobs")
    ),
    facts=("coschedulingNamespace",),
    variables=(
        ("pods", TOTAL_PODS),
        (
            "unlabelled",
            failing_templates(
                lambda t: f"{map_value(f'{t}.metadata.labels', _GROUP)} == ''", True, str(label_path(_GROUP))
            ),
        ),
    ),
    checks=(
        CelCheck(
            f"variables.pods < 2 || !{fact('coschedulingNamespace', 'request.namespace')} "
            "|| size(variables.unlabelled) == 0",
            "variables.unlabelled[0]",
            "'a gang of ' + string(variables.pods) + ' pods in coscheduling namespace ' + request.namespace "
            "+ ' joins no pod group: its pods are scheduled one by one'",
            f"'label the template {_GROUP}: ' + (has(object.metadata.name) ? object.metadata.name : '<job name>')",
        ),
    ),
)


RULE = Rule(
    code="GANG806",
    name="coscheduling-gang-without-pod-group",
    family="coscheduling",
    severity=Severity.ERROR,
    summary="A multi-pod workload in a coscheduling pool's namespace joins no pod group.",
    fix="label every pod template scheduling.x-k8s.io/pod-group: <workload name>",
    kinds=KINDS,
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.NEVER_WHOLE,  # no pod group: pods bind one by one
)
