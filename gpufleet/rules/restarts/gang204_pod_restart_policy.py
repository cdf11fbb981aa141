"""GANG204 pod-restart-policy: gang members whose containers restart in place.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A pod `restartPolicy` other than `Never` on gang members: Volcano Job task templates,
JobSet templates, batch Job gangs (parallelism > 1 and GPUs or a gang scheduler: `gpufleet.rules.gangs`; an
Indexed Job of CPU shards is not one), and plain pods of a pod group.
An unset `restartPolicy` is flagged too: a Pod defaults to `Always`, and JobSet's
webhook fills in `OnFailure`. Also flagged: a JobSet child Job whose `backoffLimit` is
not 0 (unset means 6), since the Job controller then replaces a failed pod on its own
before the JobSet's failure policy ever sees a failure. Kubeflow jobs set the pod
restart policy from `replicaSpecs[*].restartPolicy`, which is GANG205's. A Kubeflow
Trainer (Cluster)TrainingRuntime is checked like the JobSet it becomes, on its `node`
replicatedJob (the training ranks; single-pod initializers and launchers are left
alone), at `spec.template.spec.replicatedJobs[i]...`. A plain batch Job gang (not elastic)
is held to the same as a JobSet child Job: `backoffLimit` not 0 (unset means 6) lets the
Job controller replace a failed rank alone.

Not judged (`gpufleet.workloads.stages`): a batch Job or replicatedJob with `completions`
above `parallelism` (a sweep: no index waits for the others); a JobSet replicatedJob
that others `dependsOn` with `status: Complete` (an initializer that finishes before
the ranks exist); and a JobSet with `failurePolicy.restartStrategy: InPlaceRestart`,
whose controller restarts every pod together behind a barrier bounded by `maxRestarts`
and whose webhook accepts only `backoffLimit: 2147483647` on the child Jobs, so this
rule's fix would make the object invalid.

Why it is unsafe

With `OnFailure` or `Always` the kubelet restarts a crashed container inside its pod:
the pod never fails, so no job-level policy (Volcano `PodFailed` -> `RestartJob`,
JobSet `failurePolicy`) fires. The restarted rank tries to rejoin a communicator the
other ranks still hold; they hang in their next collective and the gang stalls with all
its GPUs held. With `Never` a crash fails the pod, and the job-level policy acts on
the whole gang: a Volcano Job's `PodFailed` -> `RestartJob` or a JobSet `failurePolicy`
rule with `RestartJobSet` restarts every rank (from its checkpoint, if the training
code resumes from one). A plain batch Job has no such policy: with `backoffLimit: 0` and
`restartPolicy: Never` one failed rank fails the whole Job (`BackoffLimitExceeded`, every
pod stopped, the GPUs freed) and **nothing restarts it** (`gpufleet try --fail-rank 0`
reports `stoppedWhole`). That is safe (no broken gang holds GPUs) but it is a stop, not a
restart: to have the gang restarted, run it as a JobSet with a `RestartJobSet` failure
policy or as a Volcano Job with a `RestartJob` policy, or have a controller resubmit it.

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  tasks:
    - name: worker
      replicas: 8
      template:
        spec:
          restartPolicy: OnFailure
```

Preferred form

```yaml
      template:
        spec:
          restartPolicy: Never
```

The remediation sets `restartPolicy: Never` (and `backoffLimit: 0` on JobSet child Jobs and
batch Job gangs).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet import workloads
from gpufleet.kubetypes.fieldpath import FieldPath, get_value, set_value
from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, CelPath, dotted, present, resources
from gpufleet.workloads import WorkloadView, as_int, as_list, as_map, stages
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.runtimes import NODE_JOB
from gpufleet.workloads.types import SPEC

Problem = tuple[FieldPath, Any, str]  # (path, value to set, message)
UNSET = {
    ("jobset.x-k8s.io", "JobSet"): "JobSet's webhook sets OnFailure",
    ("batch", "Job"): "the API server rejects a Job without one",
    **{
        ("trainer.kubeflow.org", k): "the JobSet made from this runtime gets OnFailure from JobSet's webhook"
        for k in workloads.RUNTIME_KINDS
    },
}
# Where a JobSet spec sits: in a JobSet, and in a (Cluster)TrainingRuntime's JobSet template.
JOBSET_SPECS: dict[str, FieldPath] = {
    "JobSet": FieldPath.of("spec"),
    **{k: FieldPath.of("spec", "template", "spec") for k in workloads.RUNTIME_KINDS},
}


def _judged(obj: Mapping[str, Any], ctx: CheckContext) -> WorkloadView | None:
    """The view of a gang whose pod restarts this rule judges: not a sweep, not restarted in place by JobSet."""
    view = ctx.run.view(obj)
    if view is None or not gangs.is_gang(view, ctx) or stages.restarts_in_place(view):
        return None
    return view


def _restart_policies(view: WorkloadView) -> Iterator[Problem]:
    runtime = view.kind in workloads.RUNTIME_KINDS
    for template in stages.rank_templates(view):
        if runtime and template.role != NODE_JOB:
            continue  # initializers and launchers are single pods, not ranks of the gang
        policy = template.spec.get("restartPolicy")
        if policy != "Never":
            shown = (
                repr(policy) if policy else f"unset ({UNSET.get((view.group, view.kind), 'pods default to Always')})"
            )
            yield (
                template.spec_path.child("restartPolicy"),
                "Never",
                f"restartPolicy is {shown}: a crashed rank restarts inside its pod, so the pod never fails and no "
                "job-level restart fires while the other ranks hang",
            )


def _job_backoff(view: WorkloadView) -> Iterator[Problem]:
    """A plain batch Job gang: the Job controller replaces a failed pod alone unless ``backoffLimit`` is 0."""
    if view.group != "batch" or view.kind != "Job" or view.elastic:
        return
    spec = as_map(view.obj.get("spec"))
    limit = as_int(spec.get("backoffLimit"), 6)
    if limit != 0:
        yield (
            SPEC.child("backoffLimit"),
            0,
            f"backoffLimit is {limit}{' (the default)' if 'backoffLimit' not in spec else ''}: the Job controller "
            "replaces a failed rank on its own, so one rank restarts while the rest of the gang waits for it in "
            "the rendezvous. With 0 a failed rank fails the whole Job and its GPUs are freed, but "
            f"{O.NOTHING_RESTARTS}",
        )


def _child_backoff(view: WorkloadView) -> Iterator[Problem]:
    obj = view.obj
    base = JOBSET_SPECS.get(str(obj.get("kind", "")))
    if base is None:
        return
    spec = as_map(get_value(obj, base))
    ranks = {t.role for t in stages.rank_templates(view)}
    for i, rjob in enumerate(as_list(spec.get("replicatedJobs"))):
        if base != JOBSET_SPECS["JobSet"] and as_map(rjob).get("name") != NODE_JOB:
            continue
        if str(as_map(rjob).get("name") or "") not in ranks:
            continue  # an initializer that completes before the ranks exist, or a sweep
        job_spec = as_map(as_map(as_map(rjob).get("template")).get("spec"))
        limit = as_int(job_spec.get("backoffLimit"), 6)
        if limit != 0:
            yield (
                base.child("replicatedJobs").index(i).child("template", "spec", "backoffLimit"),
                0,
                f"backoffLimit is {limit}: the Job controller replaces a failed pod on its own, so one rank "
                "restarts while the rest of the gang waits",
            )


def _problems(obj: Mapping[str, Any], ctx: CheckContext) -> list[Problem]:
    view = _judged(obj, ctx)
    if view is None:
        return []
    return [*_restart_policies(view), *_job_backoff(view), *_child_backoff(view)]


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for path, value, message in _problems(obj, ctx):
        yield Violation(path, message, f"set {path} to {value}")


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    for path, value, _ in _problems(obj, ctx):
        set_value(obj, path, value)
    return obj


_WHY = (
    "': a crashed rank restarts inside its pod, so the pod never fails and no job-level restart fires while the "
    "other ranks hang'"
)


def _never(path: CelPath) -> str:
    """CEL: the pod spec at ``path`` (``<x>.template.spec``, its parts maybe absent) sets ``restartPolicy: Never``."""
    spec = dotted(path)
    return f"({present(path)} && has({spec}.restartPolicy) && {spec}.restartPolicy == 'Never')"


def _shown(path: CelPath, unset: str) -> str:
    """CEL: the restartPolicy of the pod spec at ``path`` as the message shows it (quoted, or unset and why)."""
    spec = dotted(path)
    why = unset.replace("'", "\\'")
    return (
        f"({present(path)} && has({spec}.restartPolicy) && {spec}.restartPolicy != '' ? '\\'' + {spec}.restartPolicy "
        f"+ '\\'' : 'unset ({why})')"
    )


def _first(items: str, bad: str, var: str) -> str:
    return f"{items}.map({var}, {bad}).indexOf(true)"


_TASK_SPEC, _JOB_SPEC = ("t", "template", "spec"), ("r", "template", "spec", "template", "spec")
_TASK_BAD = f"!{_never(_TASK_SPEC)}"
_INITIALIZER = (
    "variables.rjobs.exists(o, has(o.dependsOn) && o.dependsOn.exists(d, has(d.status) && d.status == 'Complete' "
    "&& d.name == (has(r.name) ? r.name : '')))"
)
_SWEEP = (
    "(has(r.template) && has(r.template.spec) && has(r.template.spec.completions) && r.template.spec.completions > "
    "(has(r.template.spec.parallelism) && r.template.spec.parallelism > 1 ? r.template.spec.parallelism : 1))"
)
_RANK = f"(!{_INITIALIZER} && !{_SWEEP})"
_JOB_BAD = f"({_RANK} && !{_never(_JOB_SPEC)})"
_BACKOFF = (
    "(has(r.template) && has(r.template.spec) && has(r.template.spec.backoffLimit) ? r.template.spec.backoffLimit : 6)"
)
_BACKOFF_BAD = f"({_RANK} && {_BACKOFF} != 0)"
_TASK = f"variables.tasks[{_first('variables.tasks', _TASK_BAD, 't')}]"
_RJOB_POLICY = f"variables.rjobs[{_first('variables.rjobs', _JOB_BAD, 'r')}]"
_RJOB_BACKOFF = f"variables.rjobs[{_first('variables.rjobs', _BACKOFF_BAD, 'r')}]"
_JOB_POLICY_PATH = (
    "'spec.replicatedJobs[' + string("
    + _first("variables.rjobs", _JOB_BAD, "r")
    + ") + '].template.spec.template.spec.restartPolicy'"
)
_BACKOFF_PATH = (
    "'spec.replicatedJobs[' + string("
    + _first("variables.rjobs", _BACKOFF_BAD, "r")
    + ") + '].template.spec.backoffLimit'"
)
_TASK_PATH = (
    "'spec.tasks[' + string(" + _first("variables.tasks", _TASK_BAD, "t") + ") + '].template.spec.restartPolicy'"
)

CEL = CelForm(
    resources=resources(("batch.volcano.sh", "jobs"), ("jobset.x-k8s.io", "jobsets")),
    variables=(
        ("tasks", "object.kind == 'Job' && has(object.spec.tasks) ? object.spec.tasks : []"),
        (
            "inPlace",
            "object.kind == 'JobSet' && has(object.spec.failurePolicy) && has(object.spec.failurePolicy.restartStrategy) "
            f"&& object.spec.failurePolicy.restartStrategy == '{stages.IN_PLACE_RESTART}'",
        ),
        (
            "rjobs",
            "object.kind == 'JobSet' && !variables.inPlace && has(object.spec.replicatedJobs) "
            "? object.spec.replicatedJobs : []",
        ),
    ),
    checks=(
        CelCheck(
            f"!variables.tasks.exists(t, {_TASK_BAD})",
            _TASK_PATH,
            f"[{_TASK}].map(t, 'restartPolicy is ' + {_shown(_TASK_SPEC, 'pods default to Always')} + {_WHY})[0]",
            f"'set ' + {_TASK_PATH} + ' to Never'",
        ),
        CelCheck(
            f"!variables.rjobs.exists(r, {_JOB_BAD})",
            _JOB_POLICY_PATH,
            f"[{_RJOB_POLICY}].map(r, 'restartPolicy is ' + {_shown(_JOB_SPEC, UNSET[('jobset.x-k8s.io', 'JobSet')])} "
            f"+ {_WHY})[0]",
            f"'set ' + {_JOB_POLICY_PATH} + ' to Never'",
        ),
        CelCheck(
            f"!variables.rjobs.exists(r, {_BACKOFF_BAD})",
            _BACKOFF_PATH,
            f"[{_RJOB_BACKOFF}].map(r, 'backoffLimit is ' + string({_BACKOFF}) + ': the Job controller replaces a "
            "failed pod on its own, so one rank restarts while the rest of the gang waits')[0]",
            f"'set ' + {_BACKOFF_PATH} + ' to 0'",
        ),
    ),
    note="batch Jobs (a gang only by its GPUs, gang placement or the cluster's Job controller: fleet facts) and "
    "Kueue pod-group Pods; Trainer runtimes are not sent to the webhook either (lint and policy pack only)",
)


RULE = Rule(
    code="GANG204",
    name="pod-restart-policy",
    family="restarts",
    severity=Severity.ERROR,
    summary="Gang pods restart in place (restartPolicy not Never), so a crash never triggers a gang restart.",
    fix="set restartPolicy: Never on every gang pod template (and backoffLimit: 0 on JobSet child Jobs and Job gangs)",
    kinds=(
        ("batch.volcano.sh", "Job"),
        ("jobset.x-k8s.io", "JobSet"),
        ("batch", "Job"),
        ("", "Pod"),
        *(("trainer.kubeflow.org", k) for k in workloads.RUNTIME_KINDS),
    ),
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.BROKEN_GANG_RUNS_ON,  # the failed rank restarts in place or alone
)
