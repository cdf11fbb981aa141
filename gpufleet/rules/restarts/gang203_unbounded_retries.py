"""GANG203 unbounded-retries: a gang that retries (almost) forever.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

Retry budgets above the limit (rule option `maxRetries`, default 10), or retries that
ignore their budget:

- Volcano Job `spec.maxRetry` and task `maxRetry` (unset is fine: the webhook sets 3;
  negative values are rejected by the CRD);
- JobSet `spec.failurePolicy.maxRestarts`, child Job `backoffLimitPerIndex`, and
  failure-policy rules whose action ends in `AndIgnoreMaxRestarts` (those restarts are
  never counted). An absent `maxRestarts` is *not* flagged: it defaults to 0, i.e. no
  restart at all. Under `restartStrategy: InPlaceRestart` the child Jobs' budgets are not
  judged: JobSet's webhook accepts only `backoffLimit: 2147483647` there, and
  `maxRestarts` bounds the in-place restarts;
- batch Job gangs (`gpufleet.rules.gangs`: parallel and asking for GPUs or a gang scheduler): `spec.backoffLimitPerIndex`;
- Kubeflow jobs: `spec.runPolicy.backoffLimit` and PyTorch `elasticPolicy.maxRestarts`.

Not judged here: the `backoffLimit` of a batch Job gang and of a JobSet's child Jobs. It
is no budget of whole-gang restarts (the Job controller replaces failed pods one by one
until it is spent); whether it lets a rank be replaced alone is GANG204's, which owns
that field and asks for 0. One field, one rule, one fix.

Severity: **warning**. A large budget is not wrong in itself (a flaky fleet may need
it), but for gangs each retry costs the whole gang's GPUs for a full cold start.

Why it is unsafe

A gang that fails deterministically (bad image, OOM at step 1, a shape that no node
group can hold) is restarted again and again. Every attempt re-acquires every GPU of the
gang, waits out a cold start and may preempt other work, so one broken job can hold a
large share of a pool for hours while looking "Running" or "Restarting".

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  maxRetry: 1000
```

Preferred form

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  maxRetry: 3
```

The remediation lowers each budget to the limit and drops `AndIgnoreMaxRestarts`.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet import workloads
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import KUBEFLOW_JOBS
from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation, rule_options
from gpufleet.rules.celform import CelCheck, CelForm, option, resources
from gpufleet.rules.remedy import set_all
from gpufleet.workloads import as_int, as_list, as_map, stages
from gpufleet.workloads import outcomes as O

CODE = "GANG203"


@rule_options
class Gang203Options:
    """GANG203's options (`--config`: `options: {GANG203: {maxRetries: 4}}`)."""

    max_retries: int = 10
    """The most retries (maxRetry, maxRestarts, runPolicy.backoffLimit, backoffLimitPerIndex) a gang may have; also what the fix sets."""


Budget = tuple[FieldPath, Any]  # (path, value)
SPEC = FieldPath.of("spec")
TASKS, REPLICATED_JOBS = SPEC.child("tasks"), SPEC.child("replicatedJobs")


def _fields(base: Mapping[str, Any], path: FieldPath, names: tuple[str, ...]) -> Iterator[Budget]:
    for name in names:
        if name in base:
            yield path.child(name), base[name]


def _budgets(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Budget]:
    spec, kind, group = as_map(obj.get("spec")), obj.get("kind"), workloads.group_of(obj)
    if group == "batch.volcano.sh":
        yield from _fields(spec, SPEC, ("maxRetry",))
        for i, task in enumerate(as_list(spec.get("tasks"))):
            if "maxRetry" in as_map(task):
                yield from _fields(as_map(task), TASKS.index(i), ("maxRetry",))
    elif kind == "JobSet":
        yield from _fields(as_map(spec.get("failurePolicy")), SPEC.child("failurePolicy"), ("maxRestarts",))
        view = ctx.run.view(obj)
        in_place = view is not None and stages.restarts_in_place(view)
        for i, rjob in enumerate(as_list(spec.get("replicatedJobs"))):
            job_spec = as_map(as_map(as_map(rjob).get("template")).get("spec"))
            if in_place:
                continue  # the webhook requires backoffLimit 2147483647; maxRestarts bounds the restarts
            # backoffLimit is GANG204's (it asks for 0): never judged here, so the two never disagree
            yield from _fields(job_spec, REPLICATED_JOBS.index(i).child("template", "spec"), ("backoffLimitPerIndex",))
    elif group == "batch":
        view = ctx.run.view(obj)
        if gangs.is_gang(view, ctx):
            yield from _fields(spec, SPEC, ("backoffLimitPerIndex",))  # backoffLimit: GANG204's
    elif group == "kubeflow.org":
        yield from _fields(as_map(spec.get("runPolicy")), SPEC.child("runPolicy"), ("backoffLimit",))
        yield from _fields(as_map(spec.get("elasticPolicy")), SPEC.child("elasticPolicy"), ("maxRestarts",))


_IGNORE = "AndIgnoreMaxRestarts"


def _counted(action: str) -> str:
    """The action that counts against maxRestarts in place of ``action`` (``<action>AndIgnoreMaxRestarts``)."""
    return action.removesuffix(_IGNORE)


def _ignoring(obj: Mapping[str, Any]) -> Iterator[tuple[FieldPath, str]]:
    if obj.get("kind") != "JobSet":
        return
    rules = as_list(as_map(as_map(obj.get("spec")).get("failurePolicy")).get("rules"))
    for i, rule in enumerate(rules):
        action = str(as_map(rule).get("action", ""))
        if action.endswith(_IGNORE):
            yield SPEC.child("failurePolicy", "rules").index(i).child("action"), action


def _excess(obj: Mapping[str, Any], ctx: CheckContext, limit: int) -> Iterator[tuple[FieldPath, int]]:
    for path, value in _budgets(obj, ctx):
        number = as_int(value)
        if number is not None and number > limit:
            yield path, number


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    limit = ctx.options_for(CODE, Gang203Options).max_retries
    for path, number in _excess(obj, ctx, limit):
        yield Violation(
            path,
            f"{number} retries exceed the limit of {limit}: a gang that fails deterministically "
            "re-acquires all its GPUs that many times",
            f"set {path} to at most {limit}",
        )
    for path, action in _ignoring(obj):
        yield Violation(
            path,
            f"{action} restarts without counting against maxRestarts, so the gang can restart forever",
            f"use {_counted(action)}",
        )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    limit = ctx.options_for(CODE, Gang203Options).max_retries
    set_all(obj, ((path, limit) for path, _ in _excess(obj, ctx, limit)))
    return set_all(obj, ((path, _counted(action)) for path, action in _ignoring(obj)))


_LIMIT = option(CODE, "maxRetries")
_WHY = "' retries exceed the limit of ' + string(variables.limit) + ': a gang that fails deterministically re-acquires all its GPUs that many times'"


def _bounded(*parts: str) -> CelCheck:
    """The field at ``parts`` (``object.spec.x``) absent or at most the limit, named as the linter prints its path."""
    path = at = ".".join(parts)
    present = " && ".join(f"has(object.{'.'.join(parts[: i + 1])})" for i in range(len(parts)))
    return CelCheck(
        f"!({present}) || object.{path} <= variables.limit",
        f"'{at}'",
        f"string(object.{path}) + {_WHY}",
        f"'set {at} to at most ' + string(variables.limit)",
    )


_TASK_OVER = "(has(t.maxRetry) && t.maxRetry > variables.limit)"
_JOB_OVER = (
    "(has(r.template) && has(r.template.spec) && has(r.template.spec.backoffLimitPerIndex) "
    "&& r.template.spec.backoffLimitPerIndex > variables.limit)"
)
_IGNORING = f"(has(r.action) && r.action.endsWith('{_IGNORE}'))"

CEL = CelForm(
    resources=resources(
        ("batch.volcano.sh", "jobs"),
        ("kubeflow.org", "pytorchjobs"),
        ("kubeflow.org", "mpijobs"),
        ("jobset.x-k8s.io", "jobsets"),
    ),
    params=("maxRetries",),
    variables=(
        ("limit", _LIMIT),
        (
            "tasks",
            "object.apiVersion.startsWith('batch.volcano.sh/') && has(object.spec.tasks) ? object.spec.tasks : []",
        ),
        ("failurePolicy", "object.kind == 'JobSet' && has(object.spec.failurePolicy) ? object.spec.failurePolicy : {}"),
        (
            "inPlace",
            "has(variables.failurePolicy.restartStrategy) && variables.failurePolicy.restartStrategy == 'InPlaceRestart'",
        ),
        (
            "replicatedJobs",
            "object.kind == 'JobSet' && has(object.spec.replicatedJobs) ? object.spec.replicatedJobs : []",
        ),
        ("rules", "has(variables.failurePolicy.rules) ? variables.failurePolicy.rules : []"),
    ),
    checks=(
        CelCheck(
            "!object.apiVersion.startsWith('batch.volcano.sh/') || !has(object.spec.maxRetry) "
            "|| object.spec.maxRetry <= variables.limit",
            "'spec.maxRetry'",
            f"string(object.spec.maxRetry) + {_WHY}",
            "'set spec.maxRetry to at most ' + string(variables.limit)",
        ),
        CelCheck(
            f"!variables.tasks.exists(t, {_TASK_OVER})",
            f"'spec.tasks[' + string(variables.tasks.map(t, {_TASK_OVER}).indexOf(true)) + '].maxRetry'",
            f"'a task maxRetry' + {_WHY}",
            "'set the task maxRetry to at most ' + string(variables.limit)",
        ),
        _bounded("spec", "runPolicy", "backoffLimit"),
        _bounded("spec", "elasticPolicy", "maxRestarts"),
        CelCheck(
            "!has(variables.failurePolicy.maxRestarts) || variables.failurePolicy.maxRestarts <= variables.limit",
            "'spec.failurePolicy.maxRestarts'",
            f"string(variables.failurePolicy.maxRestarts) + {_WHY}",
            "'set spec.failurePolicy.maxRestarts to at most ' + string(variables.limit)",
        ),
        CelCheck(
            f"variables.inPlace || !variables.replicatedJobs.exists(r, {_JOB_OVER})",
            f"'spec.replicatedJobs[' + string(variables.replicatedJobs.map(r, {_JOB_OVER}).indexOf(true)) "
            "+ '].template.spec.backoffLimitPerIndex'",
            f"'a replicated Job backoffLimitPerIndex' + {_WHY}",
            "'set it to at most ' + string(variables.limit)",
        ),
        CelCheck(
            f"!variables.rules.exists(r, {_IGNORING})",
            f"'spec.failurePolicy.rules[' + string(variables.rules.map(r, {_IGNORING}).indexOf(true)) + '].action'",
            "'an action restarts without counting against maxRestarts, so the gang can restart forever'",
            "'use the action without AndIgnoreMaxRestarts'",
        ),
    ),
    note="a batch Job is a gang only by its GPUs or gang placement (gpufleet.rules.gangs)",
)


RULE = Rule(
    code=CODE,
    name="unbounded-retries",
    family="restarts",
    severity=Severity.WARNING,
    summary="A gang's retry budget is unbounded or above the limit, so a broken gang keeps re-acquiring its GPUs.",
    fix="bound the gang's restarts (maxRetry, maxRestarts, runPolicy.backoffLimit) to at most the limit (default 10)",
    kinds=(
        ("batch.volcano.sh", "Job"),
        ("jobset.x-k8s.io", "JobSet"),
        ("batch", "Job"),
        *KUBEFLOW_JOBS,
    ),
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    options=Gang203Options,
    cel=CEL,
    predicts=O.NOT_JUDGED,  # the retry budget shows only after many failures; a trial fails one rank once
)
