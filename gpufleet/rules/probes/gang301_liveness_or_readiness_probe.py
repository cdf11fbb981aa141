"""GANG301 liveness-or-readiness-probe: a probe that can take down a whole training gang.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A `livenessProbe` or `readinessProbe` on a container (`containers`, and restartable
`initContainers` sidecars are left alone) of a gang workload's pod template: Volcano
Job, Kubeflow jobs, JobSet, multi-pod batch Job, Kueue pod groups. A `startupProbe` is
fine: it only delays the first liveness check.

One readiness probe is allowed: on a JobSet replicatedJob that another one waits for,
because there readiness is the startup-ordering signal (`startupPolicy.startupPolicyOrder:
InOrder` waits for every replicatedJob but the last; `dependsOn` with `status: Ready`
waits for the named one).

Why it is unsafe

Ranks of a synchronous job (NCCL all-reduce, MPI) block on each other, so a busy rank
looks dead: a liveness probe that times out during a long collective or a checkpoint
write kills that container, every other rank then fails its collective, and the
job-level failure policy restarts the whole gang from its last checkpoint. Readiness
probes do not kill, but Kueue's waitForPodsReady counts a not-ready pod as not started,
so a flapping readiness probe gets a healthy running gang evicted and requeued. Policy
libraries push the other way (Kyverno `require-probes`, Gatekeeper `requiredprobes`
demand both probes on every pod), which is how these probes creep into training pods.

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
spec:
  tasks:
  - name: worker
    template:
      spec:
        containers:
        - name: trainer
          livenessProbe:
            httpGet: {path: /healthz, port: 8080}
```

Preferred form

```yaml
        containers:
        - name: trainer
          startupProbe:          # optional: only gates the container's start
            exec: {command: [test, -f, /tmp/started]}
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules import gangs
from gpufleet.workloads import PodTemplate, WorkloadView, WORKLOAD_KINDS, as_list, as_map
from gpufleet.workloads import outcomes as O

PROBES = ("livenessProbe", "readinessProbe")


def readiness_orders_startup(found: WorkloadView, template: PodTemplate) -> bool:
    """Whether another replicatedJob of a JobSet (or a runtime's JobSet template) waits for this template's pods to be Ready."""
    runtime = found.group == "trainer.kubeflow.org" and found.kind != "TrainJob"
    if (found.group != "jobset.x-k8s.io" and not runtime) or not template.role:
        return False
    spec = as_map(found.obj.get("spec"))
    if runtime:
        spec = as_map(as_map(spec.get("template")).get("spec"))
    rjobs = [as_map(r) for r in as_list(spec.get("replicatedJobs"))]
    order = as_map(spec.get("startupPolicy")).get("startupPolicyOrder")
    if order == "InOrder" and rjobs and rjobs[-1].get("name") != template.role:
        return True
    return any(as_map(dep).get("name") == template.role and as_map(dep).get("status") == "Ready"
               for rjob in rjobs for dep in as_list(rjob.get("dependsOn")))


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    found = ctx.run.view(obj)
    if found is None or not gangs.is_gang(found, ctx):
        return
    for template in found.templates:
        for i, container in enumerate(as_list(template.spec.get("containers"))):
            container = as_map(container)
            name = container.get("name") or f"#{i}"
            for probe in PROBES:
                if probe not in container or container[probe] is None:
                    continue
                if probe == "readinessProbe" and readiness_orders_startup(found, template):
                    continue
                effect = ("kills the rank when it fails, and the whole gang restarts" if probe == "livenessProbe"
                          else "marks the rank not ready when it fails, and waitForPodsReady evicts the whole gang")
                yield Violation(template.spec_path.child("containers").index(i).child(probe),
                                f"container {name} of gang pod template {template.role or template.path or 'pod'} has a {probe}: it {effect}",
                                f"remove the {probe} (a startupProbe is fine)")


RULE = Rule(
    code="GANG301",
    name="liveness-or-readiness-probe",
    family="probes",
    severity=Severity.ERROR,
    summary="A liveness or readiness probe on a training container can restart or evict a whole gang.",
    fix="remove liveness and readiness probes from training containers (a startupProbe is fine)",
    kinds=tuple(sorted(WORKLOAD_KINDS)),
    check=check,
    doc=__doc__ or "",
    predicts=O.NOT_JUDGED,  # KWOK runs no probe: no engine outcome shows it
)
