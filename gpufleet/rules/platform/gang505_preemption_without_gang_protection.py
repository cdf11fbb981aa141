"""GANG505 preemption-without-gang-protection: Volcano evicts single pods out of running gangs.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A Volcano scheduler conf (ConfigMap key `volcano-scheduler.conf`) whose `actions` include
the pod-level `preempt` or `reclaim` action while the `gang` plugin does not protect
gangs from it:

- `preempt` with no `gang` plugin in any tier, or with `gang` set to
  `enablePreemptable: false` (the chart default, which switches off gang's victim
  filter for preemption);
- `reclaim` with no `gang` plugin, or with `gang` set to `enableReclaimable: false`;
- `gang` placed in a later tier than a plugin that also votes on victims (for `preempt`:
  `priority`, `conformance`, `drf`; for `reclaim`: `conformance`, `proportion`,
  `capacity`) with its own switch on. The session asks tier by tier and the first tier
  whose plugins name victims decides (`Preemptable`/`Reclaimable` in
  `pkg/scheduler/framework/session_plugins.go`), so a gang filter in a later tier is
  never consulted.

Omitted `enable*` switches default to true. The gang-aware actions `gangpreempt` and
`gangreclaim` (Volcano 1.15) choose whole jobs as victims and are never flagged; but
they, like every other action, need the `gang` plugin, whose absence is flagged whenever
any preemption or reclaim action is on.

Why it is unsafe

The pod-level actions pick victims pod by pod. The gang plugin's victim filter is what
keeps them from taking pods a job needs to stay at `minAvailable`: only pods above the
minimum may go, so a job at its minimum is never broken up. With the filter off
(volcano#3332: users turn it off because preemption otherwise rarely fires for tight
gangs), preemption and reclaim take one pod from each of many gangs (volcano#4607).
Every synchronous training gang touched then stalls or restarts, and the preemptor may
still not fit.

Example

```yaml
actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
```

Preferred form

```yaml
actions: "enqueue, allocate, gangpreempt, gangreclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.platform._embedded import unreadable
from gpufleet.rules.platform._volcano_conf import KINDS, Plugin, VolcanoConf, volcano_confs
from gpufleet.workloads import outcomes as O

SWITCHES = {"preempt": "enablePreemptable", "reclaim": "enableReclaimable"}
VOTERS = {"preempt": ("priority", "conformance", "drf"), "reclaim": ("conformance", "proportion", "capacity")}
GANG_ACTIONS = {"gangpreempt": "preempt", "gangreclaim": "reclaim"}


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for conf in volcano_confs(obj):
        if conf.error is not None:
            yield unreadable(
                conf.base,
                f"the Volcano scheduler conf cannot be read ({conf.error}); the scheduler keeps its previous conf",
            )
            continue
        evicting = [a for a in conf.actions if a in SWITCHES or a in GANG_ACTIONS]
        if not evicting:
            continue
        gang = conf.plugin("gang")
        if gang is None:
            yield Violation(
                conf.path("actions"),
                f"{'actions' if len(evicting) > 1 else 'action'} {', '.join(evicting)} {'run' if len(evicting) > 1 else 'runs'} without the gang plugin, so no job is held "
                "to minAvailable and evictions can leave partial gangs",
                "add the gang plugin to the first tier",
            )
            continue
        for action in evicting:
            switch = SWITCHES.get(action)
            if switch and not gang.enabled(switch):
                yield Violation(
                    gang.path.child(switch),
                    f"action {action} runs with gang {switch}: false, so it evicts single pods out of running gangs",
                    f"replace {action} with gang{action} in actions, or remove {switch}: false from the gang plugin",
                )
            elif switch:
                yield from _outranked(conf, gang, action, switch)


def _outranked(conf: VolcanoConf, gang: Plugin, action: str, switch: str) -> Iterator[Violation]:
    """A victim-voting plugin in an earlier tier than gang decides alone, bypassing gang's filter."""
    earlier = [p for p in conf.plugins if p.tier < gang.tier and p.name in VOTERS[action] and p.enabled(switch)]
    if earlier:
        first = earlier[0]
        yield Violation(
            gang.path,
            f"action {action}: plugin {first.name} in tier {first.tier} picks victims before gang (tier {gang.tier}) "
            "is asked, so gang's minAvailable filter never applies",
            f"move gang into tier {first.tier} (the first tier), or use gang{action}",
        )


RULE = Rule(
    code="GANG505",
    name="preemption-without-gang-protection",
    family="platform",
    severity=Severity.ERROR,
    summary="Volcano preempt/reclaim run without the gang plugin's victim filter, so they break running gangs pod by pod.",
    fix="use the gangpreempt/gangreclaim actions, and keep the gang plugin with its enablePreemptable/enableReclaimable filters on",
    kinds=KINDS,
    check=check,
    doc=__doc__ or "",
    predicts=O.NOT_JUDGED,  # platform configuration, not a workload
)
