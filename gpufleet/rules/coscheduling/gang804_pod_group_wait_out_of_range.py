"""GANG804 pod-group-wait-out-of-range: a coscheduling PodGroup's permit wait is unset, too short or too long.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A `scheduling.x-k8s.io/v1alpha1` PodGroup whose `spec.scheduleTimeoutSeconds` is unset, or
outside the window of options `minSeconds` (default 30) to `maxSeconds` (default 300).
gpufleet renders `engines.coscheduling.permitWait` (default 60s) both as the plugin's
`permitWaitingTimeSeconds` and as the PodGroups' `scheduleTimeoutSeconds`.

The floor is not the pool's cold-start budget: the Permit
extension point runs before binding (scheduler-plugins v0.34.7 `pkg/coscheduling/coscheduling.go`),
so the wait covers only placing the gang's pods, never pulling images or starting them; the
cold start is Kueue's `waitForPodsReady` business.

Why it is unsafe

Placed pods of a group wait `scheduleTimeoutSeconds`, else the plugin's
`permitWaitingTimeSeconds` (10s in the chart's values), else 60s, for their siblings
(`pkg/util/podgroup.go` `GetWaitTimeDuration`). Too short, and a large gang is rejected
before the scheduler has placed every pod, then backs off and cycles. Too long, and a
partly placed gang holds the nodes it reserved for the whole wait while other gangs
starve (scheduler-plugins #117, #114); with the plugin's default
`podGroupRejectPercentage` of 10, a gang missing up to 10% of its pods is not even
rejected early (gpufleet renders 0).

Example

```yaml
kind: PodGroup
spec: {minMember: 4, scheduleTimeoutSeconds: 480}   # the pool's cold start: reservations held 8 minutes
```

Preferred form

```yaml
spec: {minMember: 4, scheduleTimeoutSeconds: 60}    # engines.coscheduling.permitWait
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation, rule_options
from gpufleet.rules.celform import CelCheck, CelForm, option, resources
from gpufleet.rules.coscheduling._helpers import PODGROUP
from gpufleet.workloads import as_int, as_map
from gpufleet.workloads import outcomes as O

CODE = "GANG804"
PATH = FieldPath.of("spec", "scheduleTimeoutSeconds")


@rule_options
class Gang804Options:
    """GANG804's options (`--config`: `options: {GANG804: {minSeconds: 30, maxSeconds: 300}}`)."""

    min_seconds: int = 30
    """The shortest permit wait that lets the scheduler place every pod of a large gang."""
    max_seconds: int = 300
    """The longest permit wait a partly placed gang may hold its reservations."""


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    if ctx.run.view(obj) is None:
        return
    window = ctx.options_for(CODE, Gang804Options)
    timeout = as_int(as_map(obj.get("spec")).get("scheduleTimeoutSeconds"))
    want = f"set scheduleTimeoutSeconds between {window.min_seconds} and {window.max_seconds} (gpufleet renders 60)"
    if timeout is None:
        yield Violation(
            PATH,
            "no scheduleTimeoutSeconds: placed pods wait only the plugin's permitWaitingTimeSeconds "
            "(10s in the chart) for the rest of the gang",
            want,
        )
    elif timeout < window.min_seconds:
        yield Violation(
            PATH,
            f"scheduleTimeoutSeconds {timeout} is below {window.min_seconds}s: the group can be rejected "
            "before the scheduler has placed every pod, and cycles",
            want,
        )
    elif timeout > window.max_seconds:
        yield Violation(
            PATH,
            f"scheduleTimeoutSeconds {timeout} is above {window.max_seconds}s: Permit runs before binding, "
            "so a partly placed gang holds its reserved nodes that long while other gangs wait "
            "(the cold start is not part of this wait)",
            want,
        )


_WANT = (
    "'set scheduleTimeoutSeconds between ' + string(variables.low) + ' and ' + string(variables.high) "
    "+ ' (gpufleet renders 60)'"
)
CEL = CelForm(
    resources=resources(("scheduling.x-k8s.io", "podgroups")),
    params=("minSeconds", "maxSeconds"),
    variables=(
        ("low", option(CODE, "minSeconds")),
        ("high", option(CODE, "maxSeconds")),
        (
            "timeout",
            "has(object.spec) && has(object.spec.scheduleTimeoutSeconds) ? object.spec.scheduleTimeoutSeconds : -1",
        ),
    ),
    checks=(
        CelCheck(
            "variables.timeout >= 0",
            "'spec.scheduleTimeoutSeconds'",
            "'no scheduleTimeoutSeconds: placed pods wait only the plugin\\'s permitWaitingTimeSeconds (10s in the "
            "chart) for the rest of the gang'",
            _WANT,
        ),
        CelCheck(
            "variables.timeout < 0 || variables.timeout >= variables.low",
            "'spec.scheduleTimeoutSeconds'",
            "'scheduleTimeoutSeconds ' + string(variables.timeout) + ' is below ' + string(variables.low) + 's: the "
            "group can be rejected before the scheduler has placed every pod, and cycles'",
            _WANT,
        ),
        CelCheck(
            "variables.timeout <= variables.high",
            "'spec.scheduleTimeoutSeconds'",
            "'scheduleTimeoutSeconds ' + string(variables.timeout) + ' is above ' + string(variables.high) + 's: "
            "Permit runs before binding, so a partly placed gang holds its reserved nodes that long while other gangs "
            "wait'",
            _WANT,
        ),
    ),
)


RULE = Rule(
    code=CODE,
    name="pod-group-wait-out-of-range",
    family="coscheduling",
    severity=Severity.ERROR,
    summary="A coscheduling PodGroup's scheduleTimeoutSeconds (its permit wait) is unset, too short or too long.",
    fix="set scheduleTimeoutSeconds to the fleet's permit wait (engines.coscheduling.permitWait, default 60)",
    kinds=(PODGROUP,),
    check=check,
    doc=__doc__ or "",
    options=Gang804Options,
    cel=CEL,
    predicts=O.NOT_JUDGED,  # a permit wait is timing, which a trial alone does not measure
)
