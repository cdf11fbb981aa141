"""GANG502 wait-for-pods-ready-timeout-below-floor: Kueue evicts gangs that are still starting.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A Kueue manager Configuration (the `Configuration` document or a ConfigMap with the key
`controller_manager_config.yaml`) with waitForPodsReady on whose effective
`waitForPodsReady.timeout` is shorter than the fleet's cold-start floor. The floor is the
rule option `floorSeconds` (`--config`: `options: {GANG502: {floorSeconds: 900}}`), else
the fleet context's `coldStartFloorSeconds`, else 600 seconds; with a fleet, every pool's
`coldStartBudget` too (the same requirement the model check of
`admission.waitForPodsReady.timeout` applies, through `gpufleet.kubetypes.durations.timeout_shortfalls`).
The effective timeout is
Kueue's: an absent block or timeout (or `0s`) means 30m in `v1beta2`, 5m in `v1beta1`.
Durations are Go durations (`10m`, `1h30m`, `90s`); a `timeout` or `recoveryTimeout`
that does not parse is reported too, since the manager will not start with it.

`recoveryTimeout` is not held to the floor: it applies to a workload that was ready and
lost a pod, whose replacement usually lands on a warm node with the image cached. Kueue's
own sample sets it below the timeout (5m/3m).

Why it is unsafe

A GPU gang's cold start (node scale-up, pulling a 20 GB image, NCCL rendezvous across
hundreds of pods) routinely takes minutes. If the timeout is shorter, Kueue evicts and
requeues every large gang before its last pod becomes ready, so it never runs, and each
attempt burns the quota and preempts whatever it displaced.

Example

```yaml
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: 2m
```

Preferred form

```yaml
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: 15m   # at least the fleet's coldStartFloorSeconds
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.durations import COLD_START_FLOOR_SECONDS, format_seconds, seconds_or_none, timeout_shortfalls
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation, rule_options
from gpufleet.rules.platform._kueue_config import KINDS, KueueConfig, kueue_configs
from gpufleet.workloads import outcomes as O

CODE = "GANG502"


@rule_options
class Gang502Options:
    """GANG502's options (`--config`: `options: {GANG502: {floorSeconds: 900}}`)."""

    floor_seconds: int | None = None
    """The cold-start floor in seconds; overrides the fleet context's `coldStartFloorSeconds` (default 600)."""


def floor_seconds(ctx: CheckContext) -> int:
    """The cold-start floor: rule option, else the fleet context, else 600 s."""
    option = ctx.options_for(CODE, Gang502Options).floor_seconds
    if option is not None:
        return option
    if ctx.fleet is not None:
        return ctx.fleet.cold_start_floor_seconds
    return COLD_START_FLOOR_SECONDS


def _budgets(ctx: CheckContext) -> list[tuple[int, str, int | None]]:
    pools = ctx.fleet.pools if ctx.fleet is not None else ()
    return [(i, pool.name, pool.cold_start_budget_seconds) for i, pool in enumerate(pools)]


def _unparsable(config: KueueConfig) -> Iterator[Violation]:
    block = config.wait_block or {}
    for field in ("timeout", "recoveryTimeout"):
        raw = block.get(field)
        if raw is not None and seconds_or_none(raw) is None:
            yield Violation(
                config.path("waitForPodsReady", field),
                f"waitForPodsReady.{field} {raw!r} is not a Go duration; the manager will not start",
                "write a duration such as 15m or 1h30m",
            )


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    floor = floor_seconds(ctx)
    for config in kueue_configs(obj):
        if config.error is not None or not config.wait_enabled:
            continue  # GANG501 reports both
        yield from _unparsable(config)
        block = config.wait_block or {}
        raw = block.get("timeout")
        seconds = seconds_or_none(raw) if raw is not None else None
        if seconds is None and raw is not None:
            continue
        shown = raw if seconds else f"{format_seconds(config.default_timeout_seconds)} (the default)"
        seconds = seconds or config.default_timeout_seconds
        shortfalls = timeout_shortfalls(seconds, floor, _budgets(ctx))
        if shortfalls:
            worst = max(shortfalls, key=lambda s: s.seconds)
            needed = format_seconds(worst.seconds)
            below = (
                f"the cold-start floor of {needed}"
                if worst.pool is None
                else f"pools[{worst.pool[0]}] ({worst.pool[1]!r}) coldStartBudget {needed}"
            )
            path = config.path("waitForPodsReady", "timeout") if "timeout" in block else config.path("waitForPodsReady")
            yield Violation(
                path,
                f"waitForPodsReady.timeout {shown} is below {below}: gangs are evicted before their last pod is ready",
                f"set waitForPodsReady.timeout to at least {needed}",
            )


RULE = Rule(
    code=CODE,
    name="wait-for-pods-ready-timeout-below-floor",
    family="platform",
    severity=Severity.ERROR,
    summary="Kueue's waitForPodsReady timeout is shorter than a gang's cold start, so large gangs are evicted before they start.",
    fix="raise waitForPodsReady.timeout to at least the fleet's cold-start floor",
    kinds=KINDS,
    check=check,
    doc=__doc__ or "",
    options=Gang502Options,
    predicts=O.NOT_JUDGED,  # platform configuration, not a workload
)
