"""GANG202 pod-level-restart-action: a failure restarts part of a gang instead of all of it.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

- Volcano Job policies, job-level (`spec.policies`) or task-level
  (`spec.tasks[*].policies`), whose action is `RestartPod`, `RestartTask` or
  `RestartPartition` for a failure: the events `PodFailed`, `PodEvicted`, `Unknown` or
  `"*"`, or any `exitCode` (a pod that exited with an error). `RestartTask` is allowed
  when the job has a single task with pods, since that task is the whole gang.
  Volcano's webhook accepts all of these, and does not check an exitCode policy's
  action at all.
- JobSet `spec.failurePolicy.rules[*]` with action `RestartJob` or
  `RestartJobAndIgnoreMaxRestarts` when the JobSet runs more than one child Job: it
  recreates only the failed child Job, not the JobSet.

Why it is unsafe

A synchronous gang is one program: every rank holds a slot in the same NCCL or MPI
communicator. Restarting one pod, task or child Job brings back ranks that try to join
a communicator the survivors still hold (or that no longer exists); the restarted
ranks hang in rendezvous and the survivors hang in their next collective, with all the
gang's GPUs held. Only a whole-gang restart (`RestartJob` in Volcano, `RestartJobSet`
in JobSet) lets the job resume from its last checkpoint.

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  policies:
    - event: PodFailed
      action: RestartPod
```

Preferred form

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  policies:
    - event: PodFailed
      action: RestartJob
```

The remediation replaces the action with `RestartJob` (Volcano) or `RestartJobSet`
(JobSet, keeping `...AndIgnoreMaxRestarts`).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, resources
from gpufleet.rules.remedy import set_all
from gpufleet.workloads import as_int, as_list, as_map
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.volcano import ANY_EVENT, PARTIAL_RESTART_ACTIONS, all_policies

FAILURES = ("PodFailed", "PodEvicted", "Unknown", ANY_EVENT)
JOBSET_PARTIAL = {"RestartJob": "RestartJobSet", "RestartJobAndIgnoreMaxRestarts": "RestartJobSetAndIgnoreMaxRestarts"}


def _volcano(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[tuple[FieldPath, str, str]]:
    """(path of the action, action, what triggers it) per partial restart."""
    tasks_with_pods: int | None = None  # counted on the first RestartTask only
    for policy in all_policies(obj, PARTIAL_RESTART_ACTIONS):
        if policy.action == "RestartTask":
            if tasks_with_pods is None:
                view = ctx.run.view(obj)
                tasks_with_pods = sum(1 for t in view.templates if t.replicas > 0) if view else 0
            if tasks_with_pods <= 1:
                continue
        trigger = next((e for e in FAILURES if e in policy.events), None)
        if trigger is None and policy.exit_code is not None:
            trigger = f"exitCode {policy.exit_code}"
        if trigger:
            yield policy.path.child("action"), policy.action, trigger


def _jobset(obj: Mapping[str, Any]) -> Iterator[tuple[FieldPath, str, str]]:
    spec = as_map(obj.get("spec"))
    child_jobs = sum(max(as_int(as_map(r).get("replicas"), 1) or 0, 0) for r in as_list(spec.get("replicatedJobs")))
    if child_jobs <= 1:
        return
    for i, rule in enumerate(as_list(as_map(spec.get("failurePolicy")).get("rules"))):
        action = as_map(rule).get("action")
        if action in JOBSET_PARTIAL:
            targets = as_list(as_map(rule).get("targetReplicatedJobs")) or ["any child Job"]
            yield (
                FieldPath.of("spec", "failurePolicy", "rules", i, "action"),
                str(action),
                f"a failure of {', '.join(map(str, targets))}",
            )


def _partial(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[tuple[FieldPath, str, str]]:
    return _jobset(obj) if obj.get("kind") == "JobSet" else _volcano(obj, ctx)


def _whole(action: str) -> str:
    """The action restarting the whole gang in place of the partial ``action``."""
    return JOBSET_PARTIAL.get(action, "RestartJob")


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for path, action, trigger in _partial(obj, ctx):
        yield Violation(
            path,
            f"{action} on {trigger} restarts only part of the gang; the restarted ranks and the "
            "survivors hang waiting for each other",
            f"use {_whole(action)} (or AbortJob/FailJobSet)",
        )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    return set_all(obj, ((path, _whole(action)) for path, action, _ in _partial(obj, ctx)))


_WHY = "' restarts only part of the gang; the restarted ranks and the survivors hang waiting for each other'"
_FAILURES = repr(list(FAILURES))
_EVENTS = "((has(p.event) ? [p.event] : []) + (has(p.events) ? p.events : []))"
_TRIGGERED = f"({_EVENTS}.exists(e, e in {_FAILURES}) || has(p.exitCode))"
_PARTIAL = (
    f"(has(p.action) && (p.action in {sorted(PARTIAL_RESTART_ACTIONS - {'RestartTask'})} "
    f"|| (p.action == 'RestartTask' && variables.tasksWithPods > 1)) && {_TRIGGERED})"
)
_TRIGGER = f"[{_FAILURES}.filter(e, e in {_EVENTS})].map(f, size(f) > 0 ? f[0] : 'exitCode ' + string(p.exitCode))[0]"
_TASK_PARTIAL = f"(has(t.policies) && t.policies.exists(p, {_PARTIAL}))"
_TASK = "variables.tasks.map(t, " + _TASK_PARTIAL + ").indexOf(true)"
_TASK_POLICY = f"variables.tasks[{_TASK}].policies.map(p, {_PARTIAL}).indexOf(true)"


def _volcano_message(policy: str) -> str:
    """CEL: the message for ``policy``, the first partial-restart policy of a list."""
    return f"[{policy}].map(p, p.action + ' on ' + {_TRIGGER} + {_WHY})[0]"


_RULE = f"variables.rules[variables.rules.map(r, has(r.action) && r.action in {sorted(JOBSET_PARTIAL)}).indexOf(true)]"
_TARGETS = "(has(r.targetReplicatedJobs) ? r.targetReplicatedJobs : [])"
CEL = CelForm(
    resources=resources(("batch.volcano.sh", "jobs"), ("jobset.x-k8s.io", "jobsets")),
    variables=(
        ("volcano", "object.kind == 'Job'"),
        ("jobPolicies", "variables.volcano && has(object.spec.policies) ? object.spec.policies : []"),
        ("tasks", "variables.volcano && has(object.spec.tasks) ? object.spec.tasks : []"),
        ("tasksWithPods", "size(variables.tasks.filter(t, has(t.replicas) && t.replicas > 0))"),
        (
            "childJobs",
            "object.kind == 'JobSet' && has(object.spec.replicatedJobs) ? object.spec.replicatedJobs.map(r, "
            "has(r.replicas) ? (r.replicas > 0 ? r.replicas : 0) : 1).sum() : 0",
        ),
        (
            "rules",
            "variables.childJobs > 1 && has(object.spec.failurePolicy) && has(object.spec.failurePolicy.rules) "
            "? object.spec.failurePolicy.rules : []",
        ),
    ),
    checks=(
        CelCheck(
            f"!variables.jobPolicies.exists(p, {_PARTIAL})",
            f"'spec.policies[' + string(variables.jobPolicies.map(p, {_PARTIAL}).indexOf(true)) + '].action'",
            _volcano_message(f"variables.jobPolicies[variables.jobPolicies.map(p, {_PARTIAL}).indexOf(true)]"),
            "'use RestartJob (or AbortJob/FailJobSet)'",
        ),
        CelCheck(
            f"!variables.tasks.exists(t, {_TASK_PARTIAL})",
            f"'spec.tasks[' + string({_TASK}) + '].policies[' + string({_TASK_POLICY}) + '].action'",
            _volcano_message(f"variables.tasks[{_TASK}].policies[{_TASK_POLICY}]"),
            "'use RestartJob (or AbortJob/FailJobSet)'",
        ),
        CelCheck(
            f"!variables.rules.exists(r, has(r.action) && r.action in {sorted(JOBSET_PARTIAL)})",
            f"'spec.failurePolicy.rules[' + string(variables.rules.map(r, has(r.action) && r.action in "
            f"{sorted(JOBSET_PARTIAL)}).indexOf(true)) + '].action'",
            f"[{_RULE}].map(r, r.action + ' on a failure of ' + (size({_TARGETS}) == 0 ? 'any child Job' "
            f": size({_TARGETS}) == 1 ? {_TARGETS}[0] : 'its target child Jobs') + {_WHY})[0]",
            f"[{_RULE}].map(r, 'use ' + (r.action == 'RestartJob' ? 'RestartJobSet' : 'RestartJobSetAndIgnoreMaxRestarts') "
            "+ ' (or AbortJob/FailJobSet)')[0]",
        ),
    ),
)


RULE = Rule(
    code="GANG202",
    name="pod-level-restart-action",
    family="restarts",
    severity=Severity.ERROR,
    summary="A failure policy restarts a pod, task or child Job instead of the whole gang.",
    fix="map failures to RestartJob/AbortJob (Volcano) or RestartJobSet/FailJobSet (JobSet)",
    kinds=(("batch.volcano.sh", "Job"), ("jobset.x-k8s.io", "JobSet")),
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.BROKEN_GANG_RUNS_ON,  # a pod- or task-level restart replaces the failed rank alone
)
