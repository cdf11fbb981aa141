"""GANG206 jobset-without-failure-policy: a JobSet that gives up on the first failure.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A JobSet without `spec.failurePolicy`. JobSet's default is then to fail the whole
JobSet as soon as any child Job fails, with no restart. Restart actions that recreate
only part of the gang (`RestartJob` rules in a JobSet of several child Jobs) are
GANG202's finding; unbounded restarts are GANG203's.

Severity: **warning**. The default is gang-*safe*: the whole JobSet stops and its
resources are freed, so nothing hangs or deadlocks. What it costs is resilience: one
preempted pod or one bad node ends a multi-day run that a bounded JobSet-level restart
would have resumed from its checkpoint, and the job must be resubmitted by hand.

Why it is unsafe

GPU fleets lose nodes routinely (Xid errors, maintenance, preemption by higher
priority gangs). Without a failure policy every such event turns into a failed
training run and a manual resubmission, which invites per-pod "fixes" (container
restarts, high backoffLimits) that do break gangs. A bounded `RestartJobSet` keeps the
restart whole-gang and automatic.

Example

```yaml
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
spec:
  replicatedJobs: [...]
```

Preferred form

```yaml
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
spec:
  failurePolicy:
    maxRestarts: 3
  replicatedJobs: [...]
```

The remediation adds `failurePolicy: {maxRestarts: N}` (rule option `maxRestarts`, default 3).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation, rule_options
from gpufleet.rules.celform import CelCheck, CelForm, resources
from gpufleet.workloads import as_map
from gpufleet.workloads import outcomes as O

CODE = "GANG206"


@rule_options
class Gang206Options:
    """GANG206's options (`--config`: `options: {GANG206: {maxRestarts: 5}}`)."""

    max_restarts: int = 3
    """The `failurePolicy.maxRestarts` the fix suggests (and the remediation sets)."""


def _missing(obj: Mapping[str, Any]) -> bool:
    return not isinstance(as_map(obj.get("spec")).get("failurePolicy"), Mapping)


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    if _missing(obj):
        restarts = ctx.options_for(CODE, Gang206Options).max_restarts
        yield Violation(
            FieldPath.of("spec", "failurePolicy"),
            "no failurePolicy: the first failed child Job fails the whole JobSet "
            "with no restart, so every lost node ends the run",
            f"add spec.failurePolicy: {{maxRestarts: {restarts}}}",
        )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    if _missing(obj):
        obj.setdefault("spec", {})["failurePolicy"] = {
            "maxRestarts": ctx.options_for(CODE, Gang206Options).max_restarts
        }
    return obj


CEL = CelForm(
    resources=resources(("jobset.x-k8s.io", "jobsets")),
    params=("maxRestarts",),
    checks=(
        CelCheck(
            "has(object.spec) && has(object.spec.failurePolicy)",
            "'spec.failurePolicy'",
            "'no failurePolicy: the first failed child Job fails the whole JobSet with no restart, "
            "so every lost node ends the run'",
            f"'add spec.failurePolicy: {{maxRestarts: ' + params.data['{CODE}.maxRestarts'] + '}}'",
        ),
    ),
)


RULE = Rule(
    code=CODE,
    name="jobset-without-failure-policy",
    family="restarts",
    severity=Severity.WARNING,
    summary="A JobSet has no failurePolicy, so any failure ends the run instead of restarting the gang.",
    fix="add spec.failurePolicy with a bounded maxRestarts (JobSet-level restarts)",
    kinds=(("jobset.x-k8s.io", "JobSet"),),
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    options=Gang206Options,
    cel=CEL,
    predicts=frozenset({O.STOPPED_WHOLE}),  # any failure ends the run instead of restarting the gang
)
