"""GANG507 cluster-queue-covers-only-gpus: a ClusterQueue whose quota covers GPUs but not cpu or memory.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A Kueue `ClusterQueue` whose `spec.resourceGroups[*].coveredResources` name a GPU
resource (`nvidia.com/gpu`, `amd.com/gpu`, `nvidia.com/mig-*`, a fleet pool's
`gpuResource`) but leave out `cpu` or `memory`, unless a Kueue manager Configuration
in the same run (the `Configuration` document, or the ConfigMap carrying it) lists
`resources.excludeResourcePrefixes` that match the missing resource.

Why it is unsafe

Kueue admits a workload only when its ClusterQueue covers every resource the pods
request (`pkg/cache/scheduler` flavor assignment at v0.19.2: "resource cpu unavailable
in ClusterQueue"). Nearly every training pod requests cpu and memory, so every gang
sent to this queue stays `Pending` as inadmissible, forever, with quota to spare. If
cpu and memory are meant not to be counted, Kueue's `resources.excludeResourcePrefixes`
(manager Configuration) removes them from admission; otherwise cover them.

Example

```yaml
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
spec:
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominalQuota: 32}]}]
```

Preferred form

```yaml
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: h100
      resources: [{name: cpu, nominalQuota: 768}, {name: memory, nominalQuota: 7200Gi},
                  {name: nvidia.com/gpu, nominalQuota: 32}]
```

or, in the Kueue manager Configuration: `resources: {excludeResourcePrefixes: [cpu, memory]}`.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.gpumath import gpu_resources, is_gpu
from gpufleet.rules.platform._kueue_config import kueue_configs
from gpufleet.rules.run import RunIndex
from gpufleet.workloads import as_list, as_map
from gpufleet.workloads import outcomes as O

CODE = "GANG507"
NEEDED = ("cpu", "memory")


def _covered(obj: Mapping[str, Any]) -> set[str]:
    groups = as_list(as_map(obj.get("spec")).get("resourceGroups"))
    return {str(r) for g in groups for r in as_list(as_map(g).get("coveredResources"))}


def excluded_prefixes(run: RunIndex) -> tuple[str, ...]:
    """``resources.excludeResourcePrefixes`` of every Kueue manager Configuration of a run (once per run: ``run.derived``)."""
    prefixes: list[str] = []
    for other in run.objects:
        if isinstance(other, Mapping) and other.get("kind") in ("ConfigMap", "Configuration"):
            for config in kueue_configs(other):
                resources = as_map(config.data.get("resources"))
                prefixes += [str(p) for p in as_list(resources.get("excludeResourcePrefixes"))]
    return tuple(prefixes)


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    covered = _covered(obj)
    gpus = gpu_resources(ctx.fleet)
    if not any(is_gpu(r, gpus) for r in covered):
        return
    excluded = ctx.run.derived(excluded_prefixes)
    missing = [r for r in NEEDED if r not in covered and not any(r.startswith(p) for p in excluded)]
    if missing:
        names = " and ".join(missing)
        yield Violation(
            FieldPath.of("spec", "resourceGroups"),
            f"the ClusterQueue covers GPUs but not {names}: Kueue finds every workload whose pods request "
            f"{names} inadmissible (resource unavailable in the ClusterQueue), so those gangs wait forever",
            f"cover {names} in a resource group, or exclude them from admission with Kueue's "
            f"resources.excludeResourcePrefixes: [{', '.join(missing)}]",
        )


RULE = Rule(
    code=CODE,
    name="cluster-queue-covers-only-gpus",
    family="platform",
    severity=Severity.WARNING,
    summary="A ClusterQueue covers GPUs but not cpu or memory, so every workload requesting them is inadmissible.",
    fix="cover cpu and memory in the ClusterQueue, or exclude them with Kueue's resources.excludeResourcePrefixes",
    kinds=(("kueue.x-k8s.io", "ClusterQueue"),),
    check=check,
    needs_objects=True,
    doc=__doc__ or "",
    predicts=O.NOT_JUDGED,  # platform configuration, not a workload
)
