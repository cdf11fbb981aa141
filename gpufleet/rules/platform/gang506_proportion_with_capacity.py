"""GANG506 proportion-with-capacity: two Volcano queue-share plugins fighting over one cluster.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A Volcano scheduler conf (ConfigMap key `volcano-scheduler.conf`) that loads both the
`proportion` and the `capacity` plugin, in the same tier or in different tiers. The
finding points at the second of the two.

Why it is unsafe

The two plugins compute each queue's share from different fields: `proportion` from
`weight` (it ignores `deserved` and `parent`), `capacity` from `deserved` (it ignores
`weight`). Loaded together, both vote at enqueue and at allocate with different answers,
and Volcano's docs say they must not be combined
(`docs/user-guide/how_to_use_capacity_plugin.md`). A gang can then be admitted by one
share computation and starved or reclaimed by the other, which is the partial-gang state
gang scheduling exists to prevent.

Example

```yaml
tiers:
- plugins:
  - name: gang
- plugins:
  - name: proportion
  - name: capacity
```

Preferred form

```yaml
tiers:
- plugins:
  - name: gang
- plugins:
  - name: capacity   # the queue model is rendered for exactly one of the two
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.platform._volcano_conf import KINDS, volcano_confs
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for conf in volcano_confs(obj):
        both = [p for p in conf.plugins if p.name in ("proportion", "capacity")]
        names = {p.name for p in both}
        if names == {"proportion", "capacity"}:
            first = both[0]
            second = next(p for p in both if p.name != first.name)
            yield Violation(
                second.path,
                f"plugin {second.name} is loaded together with {first.name} (at {first.path}): "
                "the two compute queue shares from different fields and must not be combined",
                "keep only the plugin the queues are written for (weight: proportion; deserved: capacity)",
            )


RULE = Rule(
    code="GANG506",
    name="proportion-with-capacity",
    family="platform",
    severity=Severity.ERROR,
    summary="A Volcano scheduler conf loads both proportion and capacity, which compute queue shares differently.",
    fix="load exactly one of proportion and capacity",
    kinds=KINDS,
    check=check,
    doc=__doc__ or "",
    predicts=O.NOT_JUDGED,  # platform configuration, not a workload
)
