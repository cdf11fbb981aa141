"""GANG405 required-topology-domain-too-small: a Kueue TAS pod set required on one node that no node can hold.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; needs a fleet context (`gpufleet lint --fleet MODEL`).

What it checks

A pod template annotated `kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname`
(Kueue topology-aware scheduling: every pod of the pod set in one domain of that level)
whose pod set asks for more GPUs (pods × GPUs per pod) than the largest node of the
Kueue pools it may be admitted to (`allocatable` of the pool's `gpuResource`). A
`kubernetes.io/hostname` domain is one node whatever the pool's `topologyLevels`; a wider
level (rack, block) is not judged here, the model does not say how many nodes a rack
holds. The pod set is what Kueue makes one PodSet: a Job's pods, a JobSet replicatedJob's
replicas × parallelism, a Kubeflow replica type.

Why it is unsafe

Kueue's TAS admits a workload only when one domain of the required level has room for the
whole pod set; otherwise the Workload's `QuotaReserved` condition says "couldn't assign
flavors to pod set main: topology ... allows to fit only 1 out of 4 pod(s)" (Kueue v0.19
`pkg/cache/scheduler/tas_flavor_snapshot.go`, `notFitMessage`). No node holds 32 GPUs on
8-GPU hosts, so the workload stays pending forever, with quota to spare, and nothing fails.

Example

```yaml
spec:
  parallelism: 4
  completions: 4
  template:
    metadata:
      annotations: {kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname}
    spec:
      containers: [{resources: {limits: {nvidia.com/gpu: 8}}}]
```

Preferred form

```yaml
      annotations: {kueue.x-k8s.io/podset-required-topology: cloud.provider.com/rack}
      # or podset-preferred-topology: kubernetes.io/hostname
```
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterator, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.demands import template_pools, template_request
from gpufleet.rules.gpumath import fmt
from gpufleet.workloads import WORKLOAD_KINDS
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is None or ctx.fleet is None:
        return
    for template in view.templates:
        if template.replicas <= 0 or template.annotations.get(vocab.KUEUE_REQUIRED_TOPOLOGY) != vocab.HOSTNAME_LABEL:
            continue
        pools = [p for p in template_pools(ctx, view, template)[0] if p.system == "kueue"]
        if not pools:
            continue
        largest = max(pools, key=lambda p: p.gpus_per_node)
        need = template_request(ctx, view, template, largest.gpu_resource) * template.replicas
        if need <= largest.gpus_per_node or need == Decimal(0):
            continue
        at = template.metadata_path.child("annotations").key(vocab.KUEUE_REQUIRED_TOPOLOGY)
        who = f"the {template.replicas} {template.role + ' ' if template.role else ''}pods"
        yield Violation(
            at,
            f"{who} need {fmt(need)} {largest.gpu_resource} in one {vocab.HOSTNAME_LABEL} domain, one node, but the "
            f"largest node of the Kueue pools {', '.join(p.name for p in pools)} has {fmt(largest.gpus_per_node)}: "
            "Kueue's topology-aware admission never finds a domain and the workload stays pending",
            f"require a wider level of the pool's topologyLevels (a rack or block), use "
            f"{vocab.KUEUE_PREFERRED_TOPOLOGY}, or split the pod set into parts of at most "
            f"{fmt(largest.gpus_per_node)} GPUs",
        )


RULE = Rule(
    code="GANG405",
    name="required-topology-domain-too-small",
    family="gpus",
    severity=Severity.ERROR,
    summary="A Kueue TAS pod set required on one host needs more GPUs than any node has, so it is never admitted.",
    fix="require a wider topology level (rack, block) or a preferred one",
    kinds=tuple(sorted(WORKLOAD_KINDS)),
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    predicts=O.NEVER_WHOLE,  # no node is a large enough topology domain
)
