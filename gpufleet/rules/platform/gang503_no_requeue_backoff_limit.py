"""GANG503 no-requeue-backoff-limit: a gang that can never start is requeued forever.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A Kueue manager Configuration (the `Configuration` document or a ConfigMap with the key
`controller_manager_config.yaml`) with waitForPodsReady on but no
`waitForPodsReady.requeuingStrategy.backoffLimitCount` (absent or `null`, Kueue's
default, meaning "requeue forever"). In `v1beta2` this includes a configuration
without the block at all, since the block is on by default.

Severity: **warning**. Unbounded requeueing does not break a gang by itself, and
Kueue's backoff (base 60s, doubling, capped at `backoffMaxSeconds`, 1h by default)
bounds how often it happens; the cost is waste, not deadlock. It matters most for a gang
that can never become ready (a bad image, a pod no node can hold), which then cycles
forever: each readmission holds quota for the whole timeout and may preempt running
work. The rules that catch unrunnable gangs (GANG402, GANG403) are errors.

Why it is unsafe

Without a limit, Kueue never gives up on a workload that keeps failing waitForPodsReady.
It is admitted, holds its quota (and possibly preempts lower-priority gangs) for the full
timeout, is evicted, waits out its backoff and starts over, forever. With
`backoffLimitCount`, Kueue deactivates it (`spec.active: false`) after that many
attempts, and its owner sees why.

Example

```yaml
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: 15m
```

Preferred form

```yaml
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: 15m
  requeuingStrategy:
    backoffLimitCount: 5
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.platform._kueue_config import KINDS, kueue_configs
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for config in kueue_configs(obj):
        if config.error is not None or not config.wait_enabled:
            continue  # GANG501 reports both
        block = config.wait_block or {}
        strategy = block.get("requeuingStrategy")
        limit = strategy.get("backoffLimitCount") if isinstance(strategy, Mapping) else None
        if limit is not None:
            continue
        if block and isinstance(strategy, Mapping):
            path = (
                config.path("waitForPodsReady", "requeuingStrategy", "backoffLimitCount")
                if "backoffLimitCount" in strategy
                else config.path("waitForPodsReady", "requeuingStrategy")
            )
        else:
            path = config.path("waitForPodsReady")
        yield Violation(
            path,
            "waitForPodsReady has no requeuingStrategy.backoffLimitCount: a gang that can never become ready is requeued forever",
            "set waitForPodsReady.requeuingStrategy.backoffLimitCount (for example 5)",
        )


RULE = Rule(
    code="GANG503",
    name="no-requeue-backoff-limit",
    family="platform",
    severity=Severity.WARNING,
    summary="Kueue requeues a gang that keeps failing waitForPodsReady forever, holding quota on every attempt.",
    fix="set waitForPodsReady.requeuingStrategy.backoffLimitCount",
    kinds=KINDS,
    check=check,
    doc=__doc__ or "",
    predicts=O.NOT_JUDGED,  # platform configuration, not a workload
)
