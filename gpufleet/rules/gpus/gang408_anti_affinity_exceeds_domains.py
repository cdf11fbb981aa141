"""GANG408 anti-affinity-exceeds-domains: a gang's ranks repel each other over more ranks than there are domains.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; needs a fleet context (`gpufleet lint --fleet MODEL`).

What it checks

A pod template's required pod anti-affinity (`affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution`)
whose `labelSelector` matches pods of its own gang (the template's labels and the ones its
controllers stamp on every pod: `gpufleet.workloads.podmeta`) allows at most one of those pods per
value of its `topologyKey`. The term's gang pods are counted over every template of the workload;
the domains over the pools the template may land on (`gpufleet.rules.demands`): every node for
`kubernetes.io/hostname`, one per pool for a label the pool's nodes carry (`nodeLabels`). Pools
whose nodes lack the key do not limit it (kube-scheduler's InterPodAffinity filter ignores a term
on a node without its key). A gang with more such pods than domains is reported.

Why it is unsafe

Quota counts GPUs, not domains: Kueue admits the gang (its GPUs fit), kube-scheduler binds one pod
per domain and leaves the rest Pending ("N node(s) didn't match pod anti-affinity rules"), and the
bound ranks hold their GPUs waiting for peers that never come. Under a gang scheduler the whole gang
never binds. Seen on the sandbox: a 5-rank Indexed Job with required anti-affinity on
`kubernetes.io/hostname` on a 4-node pool came out `partlyBound`, 4 ranks bound.

Example

```yaml
# pool l4: 4 nodes
parallelism: 5
template:
  metadata: {labels: {app: trainer}}
  spec:
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: trainer}}
          topologyKey: kubernetes.io/hostname
```

Preferred form

```yaml
# spread softly, or ask for whole nodes with GPU requests instead of anti-affinity
    affinity:
      podAntiAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          podAffinityTerm:
            labelSelector: {matchLabels: {app: trainer}}
            topologyKey: kubernetes.io/hostname
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.fleetctx.context import PoolContext
from gpufleet.kubetypes import vocab
from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.demands import template_pools
from gpufleet.workloads import WORKLOAD_KINDS, as_list, as_map
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.podmeta import pod_labels, selector_matches

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def domains(pools: tuple[PoolContext, ...], key: str) -> int | None:
    """How many domains of ``key`` the pools' nodes form; None when some pool's nodes lack the key (no limit there)."""
    if key == vocab.HOSTNAME_LABEL:
        return sum(p.node_count for p in pools)
    values = set()
    for pool in pools:
        if key not in pool.node_labels:
            return None
        values.add(pool.node_labels[key])
    return len(values)


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    found = ctx.run.view(obj)
    if found is None or ctx.fleet is None or not ctx.fleet.pools or not gangs.is_gang(found, ctx):
        return
    members = [(pod_labels(found, t), t.replicas) for t in found.templates if t.replicas > 0]
    for template in found.templates:
        terms = as_list(as_map(as_map(template.spec.get("affinity")).get("podAntiAffinity")).get(_REQUIRED))
        if template.replicas <= 0 or not terms:
            continue
        pools, how = template_pools(ctx, found, template)
        base = template.spec_path.child("affinity", "podAntiAffinity", _REQUIRED)
        for i, term in enumerate(terms):
            term = as_map(term)
            key, selector = term.get("topologyKey"), as_map(term.get("labelSelector"))
            if not isinstance(key, str) or not key or not selector:
                continue
            if selector_matches(selector, pod_labels(found, template)) is not True:
                continue  # it repels other workloads' pods, not its own ranks
            pods = sum(n for labels, n in members if selector_matches(selector, labels) is True)
            have = domains(pools, key)
            if have is None or pods <= have:
                continue
            names = ", ".join(p.name for p in pools)
            yield Violation(
                base.index(i).child("topologyKey"),
                f"{pods} pods of this gang repel each other on {key}, but the pools {how} ({names}) have only "
                f"{have} such domains: at most {have} of them are ever placed, the rest stay Pending while the "
                f"placed ranks hold their GPUs",
                f"make the anti-affinity preferred (preferredDuringSchedulingIgnoredDuringExecution), or run at most "
                f"{have} such pods",
            )


RULE = Rule(
    code="GANG408",
    name="anti-affinity-exceeds-domains",
    family="gpus",
    severity=Severity.ERROR,
    summary="A gang's ranks repel each other (required pod anti-affinity) and there are fewer domains than ranks.",
    fix="make the anti-affinity preferred, or run no more such pods than the pools have domains",
    kinds=tuple(sorted(WORKLOAD_KINDS)),
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    predicts=O.NEVER_WHOLE,  # part of the gang binds (per-pod placement) or none of it (gang placement)
)
