"""GANG701 gang-without-identity: a gang whose pods will carry no gang identity label.

Called by the rule engine (linter, policy pack, admission controller) through the
registry. Shares the notion of identity with the mutator (``gpufleet.workloads.identity``).

What it checks

A gang workload (Volcano Job, JobSet, Kubeflow job, parallel batch Job, TrainJob, gang
Deployment/StatefulSet) with a pod template that has no `gpufleet.dev/gang` label, where
the admission controller will not add one either:

- the object has only `metadata.generateName`: its name, the identity the controller
  would stamp, does not exist yet when the mutating webhook sees it;
- with a fleet model whose observability is enabled (its context names `gangLabel`):
  the namespace belongs to no team (the controller leaves it alone), or the kind is one
  the controller's webhook is not sent (a gang Deployment or StatefulSet, a TFJob, ...:
  only the kinds in `gpufleet.kubetypes.admission_kinds.WORKLOAD_RESOURCES` are).

With a fleet model whose observability is disabled there are no gang alerts to feed,
and the rule stays quiet.

Objects a controller owns (a JobSet's Jobs) and pods of a pod group (the group's name
is their identity) are not checked.

Why it is unsafe

The gang alerts (GangNoFirstStep, GangPartiallyRunning, GangStepStalled) group pods by
this label, through kube-state-metrics' `kube_pod_labels`. A gang without it is
invisible to them: when it runs but never trains, or runs 400 of 512 pods for hours,
nobody is paged while it holds its GPUs.

Example

```yaml
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  generateName: llm-          # no name at admission: nothing to stamp
  namespace: research
spec:
  replicatedJobs:
  - name: workers
    template:
      spec:
        parallelism: 64
        template:
          spec: {containers: [{name: w, image: trainer:1}]}
```

Preferred form

```yaml
spec:
  replicatedJobs:
  - name: workers
    template:
      spec:
        parallelism: 64
        template:
          metadata:
            labels: {gpufleet.dev/gang: llm-7b-run-42}   # the same value on every template of the gang
          spec: {containers: [{name: w, image: trainer:1}]}
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet import workloads
from gpufleet.kubetypes.admission_kinds import KIND_OF, WORKLOAD_RESOURCES
from gpufleet.kubetypes.vocab import GANG_LABEL
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, CelPath, dotted, fact, first_of, present
from gpufleet.rules.celpods import TEMPLATE_RESOURCES
from gpufleet.rules.gangs import GANG_KINDS
from gpufleet.workloads import label_path
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.identity import gang_identity, stampable, unlabelled_templates

MUTATED_KINDS = frozenset((group, KIND_OF[resource]) for group, _, resource in WORKLOAD_RESOURCES)
"""(apiGroup, kind) of the workloads the admission controller's mutating webhook is sent."""
FIX = f"label every pod template of the gang with {GANG_LABEL}: <unique name of the gang>"


def _why_not_stamped(view: workloads.WorkloadView, ctx: CheckContext) -> str | None:
    if ctx.fleet is not None and not ctx.fleet.gang_label:
        return None  # observability disabled: no alerts read the label
    if gang_identity(view) is None:
        return "the object has only generateName, so the admission controller has no name to stamp"
    if ctx.fleet is None:
        return None
    if view.namespace and ctx.fleet.team_for_namespace(view.namespace) is None:
        return f"namespace {view.namespace!r} belongs to no team, so the admission controller does not mutate it"
    if (view.group, view.kind) not in MUTATED_KINDS:
        return f"the admission controller is not sent {view.kind} objects"
    return None


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is None or view.kind == "Pod" or not stampable(view):
        return
    missing = unlabelled_templates(view)
    why = _why_not_stamped(view, ctx) if missing else None
    if why is None:
        return
    by_path = {t.path: t for t in view.templates}
    for path in missing:
        yield Violation(
            label_path(GANG_LABEL, by_path[path].metadata_path),
            f"the gang's pods will carry no {GANG_LABEL} label ({why}): the gang alerts cannot see them",
            FIX,
        )


def _labelled(template: CelPath) -> str:
    """CEL: the pod template at ``template`` carries a non-empty gang identity label."""
    path = (*template, "metadata", "labels")
    labels = dotted(path)
    return f"({present(path)} && '{GANG_LABEL}' in {labels} && {labels}['{GANG_LABEL}'] != '')"


def _unlabelled(
    name: str,
    items: str,
    var: str,
    template: CelPath,
    at: str,
    *,
    keyed: bool = False,
    gang: str = "true",
    rank: str = "true",
) -> tuple[str, str, str]:
    """(variable ``name``, its CEL: some template ``var`` of ``items`` (a list; a map's keys when ``keyed``) that is a
    rank (``rank``) lacks the label in a gang (``gang``), and the path of the first). ``at`` is the template's path,
    a CEL string reading ``var`` (and ``i``, a list item's index)."""
    bad = f"({rank} && !{_labelled(template)})"
    if keyed:
        path = f"[{items}.filter({var}, {bad})[0]].map({var}, {at})[0]"
    else:
        path = f"[{items}.map({var}, {bad}).indexOf(true)].map(i, [{items}[i]].map({var}, {at})[0])[0]"
    return name, f"{gang} ? {items}.exists({var}, {bad}) : false", f"{path} + '.metadata.labels[{GANG_LABEL}]'"


_LWT = "object.spec.leaderWorkerTemplate"
_ALERTS = fact("observability", "'gangLabel'")
"""CEL: the fleet has gang alerts (observability enabled: the params carry ``observability.gangLabel``)."""
_INITIALIZER = (
    "variables.rjobs.exists(o, has(o.dependsOn) && o.dependsOn.exists(d, has(d.name) && d.name == "
    "(has(r.name) ? r.name : '') && has(d.status) && d.status == 'Complete'))"
)
_RAY_GANG = (
    "!(has(variables.cluster.enableInTreeAutoscaling) && variables.cluster.enableInTreeAutoscaling == true) "
    "&& 1 + variables.workerGroups.map(w, (has(w.replicas) && w.replicas > 0 ? w.replicas : 0) "
    "* (has(w.numOfHosts) && w.numOfHosts > 1 ? w.numOfHosts : 1)).sum() > 1"
)


def _kubeflow(field: str) -> tuple[str, str, str]:
    specs = f"object.spec.{field}"
    return _unlabelled(
        f"{field.removesuffix('ReplicaSpecs')}Unlabelled",
        f"(has({specs}) ? {specs} : {{}})",
        "r",
        (f"{specs}[r]", "template"),
        f"'spec.{field}.' + r + '.template'",
        keyed=True,
    )


_UNLABELLED = (
    _unlabelled(
        "taskUnlabelled", "variables.tasks", "t", ("t", "template"), "'spec.tasks[' + string(i) + '].template'"
    ),
    _unlabelled("jobUnlabelled", "variables.job", "t", ("t",), "'spec.template'"),
    _unlabelled(
        "jobSetUnlabelled",
        "variables.rjobs",
        "r",
        ("r", "template", "spec", "template"),
        "'spec.replicatedJobs[' + string(i) + '].template.spec.template'",
        rank=f"!{_INITIALIZER}",
    ),
    _kubeflow("pytorchReplicaSpecs"),
    _kubeflow("mpiReplicaSpecs"),
    _unlabelled(
        "leaderUnlabelled",
        f"(variables.lws && has({_LWT}.leaderTemplate) ? [{_LWT}.leaderTemplate] : [])",
        "l",
        ("l",),
        "'spec.leaderWorkerTemplate.leaderTemplate'",
    ),
    _unlabelled(
        "workerUnlabelled",
        f"(variables.lws ? [has({_LWT}.workerTemplate) ? {_LWT}.workerTemplate : {{}}] : [])",
        "w",
        ("w",),
        "'spec.leaderWorkerTemplate.workerTemplate'",
    ),
    _unlabelled(
        "headUnlabelled",
        "(variables.ray ? [has(variables.cluster.headGroupSpec) ? variables.cluster.headGroupSpec : {}] : [])",
        "h",
        ("h", "template"),
        "variables.rayAt + '.headGroupSpec.template'",
        gang=_RAY_GANG,
    ),
    _unlabelled(
        "rayWorkerUnlabelled",
        "variables.workerGroups",
        "w",
        ("w", "template"),
        "variables.rayAt + '.workerGroupSpecs[' + string(i) + '].template'",
        gang=_RAY_GANG,
    ),
)

CEL = CelForm(
    resources=TEMPLATE_RESOURCES,
    facts=("observability",),
    variables=(
        (
            "judged",
            f"{_ALERTS} && !(has(object.metadata.name) && object.metadata.name != '') "
            "&& !(has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(o, "
            "has(o.controller) && o.controller == true))",
        ),
        (
            "tasks",
            "object.apiVersion.startsWith('batch.volcano.sh/') && has(object.spec.tasks) ? object.spec.tasks : []",
        ),
        (
            "job",
            "object.apiVersion == 'batch/v1' && has(object.spec) && has(object.spec.parallelism) "
            "&& object.spec.parallelism > 1 ? [has(object.spec.template) ? object.spec.template : {}] : []",
        ),
        ("rjobs", "object.kind == 'JobSet' && has(object.spec.replicatedJobs) ? object.spec.replicatedJobs : []"),
        (
            "lws",
            "object.kind == 'LeaderWorkerSet' && has(object.spec) && has(object.spec.leaderWorkerTemplate) "
            f"&& has({_LWT}.size) && {_LWT}.size > 1",
        ),
        ("ray", "object.apiVersion.startsWith('ray.io/')"),
        (
            "cluster",
            "!variables.ray || !has(object.spec) ? {} : object.kind == 'RayCluster' "
            "? object.spec : has(object.spec.rayClusterSpec) ? object.spec.rayClusterSpec : {}",
        ),
        ("workerGroups", "has(variables.cluster.workerGroupSpecs) ? variables.cluster.workerGroupSpecs : []"),
        ("rayAt", "object.kind == 'RayCluster' ? 'spec' : 'spec.rayClusterSpec'"),
        *((name, expression) for name, expression, _ in _UNLABELLED),
    ),
    # a conditional, not ||: every CEL evaluator skips its other branch (cel-python evaluates both sides of ||)
    checks=(
        CelCheck(
            "!variables.judged ? true : " + " && ".join(f"!variables.{name}" for name, _, _ in _UNLABELLED),
            first_of((f"variables.{name}", path) for name, _, path in _UNLABELLED),
            f"'the gang\\'s pods will carry no {GANG_LABEL} label (the object has only generateName, so the "
            "admission controller has no name to stamp): the gang alerts cannot see them'",
        ),
    ),
    note="Kueue pod-group Pods (the policies match team namespaces and stamped kinds only, where a gang lacks an "
    "identity only when it has a generateName alone)",
)


RULE = Rule(
    code="GANG701",
    name="gang-without-identity",
    family="observability",
    severity=Severity.WARNING,
    summary="A gang's pods will carry no gpufleet.dev/gang label, so the gang alerts cannot see it.",
    fix=FIX,
    kinds=tuple(k for k in GANG_KINDS if k != ("", "Pod")),
    check=check,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.NOT_JUDGED,  # observability: the engines do not read the label
)
