"""GANG201 missing-job-level-failure-policy: a Volcano Job that lets a gang run short-handed.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A Volcano Job in which `PodFailed` or `PodEvicted` has no lifecycle policy for some
task: neither the task's `policies` nor the job's `spec.policies` map the event (by
name, in `events`, or through `event: "*"`). Any action counts as "mapped" here; a
mapping to a pod-level action (`RestartPod`, `RestartTask`, ...) is GANG202's finding.
The job-level actions that keep a gang whole are `RestartJob`, `AbortJob` and
`TerminateJob`. Volcano's webhook accepts a Job without policies.

Why it is unsafe

Without a policy, a failed or evicted pod only triggers a sync (volcano.md §3): the
rest of the gang keeps running short-handed. A data-parallel job's surviving ranks then
hang in their next collective until the NCCL timeout, holding every GPU of the gang,
and nothing restarts it. `RestartJob` tears the whole gang down and brings it back from
the last checkpoint; `AbortJob` stops it and frees the GPUs.

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  policies:
    - event: PodEvicted
      action: RestartJob        # PodFailed is not handled
```

Preferred form

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  policies:
    - event: PodEvicted
      action: RestartJob
    - event: PodFailed
      action: RestartJob
```

The remediation adds the missing events to `spec.policies` with `RestartJob`.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, resources
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.volcano import FAILURE_EVENTS, uncovered_events


def missing_events(obj: Mapping[str, Any]) -> list[str]:
    """The failure events that some task of ``obj`` has no policy for."""
    return uncovered_events(obj, FAILURE_EVENTS)


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    missing = missing_events(obj)
    if missing:
        listed = " and ".join(missing)
        yield Violation(
            FieldPath.of("spec", "policies"),
            f"no policy handles {listed}: a failed or evicted pod leaves the rest of the gang running "
            "short-handed until the collective times out",
            "add to spec.policies: " + ", ".join(f"{{event: {e}, action: RestartJob}}" for e in missing),
        )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    missing = missing_events(obj)
    if missing:
        spec = obj.setdefault("spec", {})
        policies = spec.get("policies") if isinstance(spec.get("policies"), list) else []
        spec["policies"] = [*policies, *({"event": e, "action": "RestartJob"} for e in missing)]
    return obj


def _covers(policies: str, event: str) -> str:
    """CEL: some policy of ``policies`` maps ``event`` or ``*`` (:func:`gpufleet.workloads.volcano._covered`)."""
    return (
        f"{policies}.exists(p, (has(p.event) && (p.event == '{event}' || p.event == '*')) "
        f"|| (has(p.events) && p.events.exists(e, e == '{event}' || e == '*')))"
    )


def _missing(event: str) -> str:
    return (
        f"(!{_covers('variables.jobPolicies', event)} "
        f"&& variables.tasks.exists(t, !{_covers('(has(t.policies) ? t.policies : [])', event)}))"
    )


CEL = CelForm(
    resources=resources(("batch.volcano.sh", "jobs")),
    variables=(
        ("jobPolicies", "has(object.spec.policies) ? object.spec.policies : []"),
        ("tasks", "has(object.spec.tasks) ? object.spec.tasks : []"),
        ("missingFailed", _missing("PodFailed")),
        ("missingEvicted", _missing("PodEvicted")),
    ),
    checks=(
        CelCheck(
            "!variables.missingFailed && !variables.missingEvicted",
            "'spec.policies'",
            "'no policy handles ' + (variables.missingFailed && variables.missingEvicted ? 'PodFailed and PodEvicted' "
            ": variables.missingFailed ? 'PodFailed' : 'PodEvicted') + ': a failed or evicted pod leaves the rest "
            "of the gang running short-handed until the collective times out'",
            "'add to spec.policies: ' + (variables.missingFailed ? '{event: PodFailed, action: RestartJob}' : '') "
            "+ (variables.missingFailed && variables.missingEvicted ? ', ' : '') "
            "+ (variables.missingEvicted ? '{event: PodEvicted, action: RestartJob}' : '')",
        ),
    ),
)


RULE = Rule(
    code="GANG201",
    name="missing-job-level-failure-policy",
    family="restarts",
    severity=Severity.ERROR,
    summary="A Volcano Job does not map PodFailed and PodEvicted to a job-level action, so a broken gang runs on.",
    fix="add spec.policies mapping PodFailed and PodEvicted to RestartJob (or AbortJob)",
    kinds=(("batch.volcano.sh", "Job"),),
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.BROKEN_GANG_RUNS_ON,  # no job-level action: the others run on after a rank fails
)
