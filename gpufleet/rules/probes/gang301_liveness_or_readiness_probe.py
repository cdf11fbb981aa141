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

from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, CelPath, dotted, first_of, present, without
from gpufleet.rules.celpods import TEMPLATE_RESOURCES
from gpufleet.workloads import WORKLOAD_KINDS, PodTemplate, WorkloadView, as_list, as_map
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
    return any(
        as_map(dep).get("name") == template.role and as_map(dep).get("status") == "Ready"
        for rjob in rjobs
        for dep in as_list(rjob.get("dependsOn"))
    )


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
                effect = (
                    "kills the rank when it fails, and the whole gang restarts"
                    if probe == "livenessProbe"
                    else "marks the rank not ready when it fails, and waitForPodsReady evicts the whole gang"
                )
                yield Violation(
                    template.spec_path.child("containers").index(i).child(probe),
                    f"container {name} of gang pod template {template.role or template.path or 'pod'} has a {probe}: it {effect}",
                    f"remove the {probe} (a startupProbe is fine)",
                )


def _bad(ready_ok: str) -> str:
    """CEL: container ``c`` has a probe that is not allowed (a readiness probe: unless ``ready_ok``)."""
    return f"(has(c.livenessProbe) || (has(c.readinessProbe) && !{ready_ok}))"


def _bad_template(path: CelPath, ready_ok: str) -> str:
    """CEL: the pod spec at ``path`` (its parts maybe absent) has a container with a probe that is not allowed."""
    spec = dotted(path)
    return f"({present(path)} && has({spec}.containers) && {spec}.containers.exists(c, {_bad(ready_ok)}))"


Probed = tuple[str, str, str, str, str]
"""One kind of template: (variable name, its CEL: some template has a probe, and the path, message and fix of the first)."""


def _probes(
    name: str,
    items: str,
    var: str,
    path: CelPath,
    at: str,
    role: str,
    ready_ok: str = "false",
    keyed: bool = False,
    gang: str = "true",
) -> Probed:
    """Some template ``var`` of ``items`` (a list; its keys when ``keyed``) has a probe, and the object is a gang.

    ``path`` is the template's pod spec, ``at`` its path and ``role`` how messages name it (CEL strings reading
    ``var`` and, for a list, ``i`` its index)."""
    bad, spec = _bad_template(path, ready_ok), dotted(path)
    first = f"{items}.filter({var}, {bad})[0]" if keyed else f"{items}[{items}.map({var}, {bad}).indexOf(true)]"
    index = "" if keyed else f"[{items}.map({var}, {bad}).indexOf(true)].map(i, "
    close = "" if keyed else ")[0]"

    def on_first(text: str) -> str:
        """``text`` (reading ``var``, ``i``, ``j`` the container's index, ``c`` it and ``probe`` its name) on the first."""
        return (
            f"{index}[{first}].map({var}, [{spec}.containers.map(c, {_bad(ready_ok)}).indexOf(true)].map(j, "
            f"[{spec}.containers[j]].map(c, [has(c.livenessProbe) ? 'livenessProbe' : 'readinessProbe'].map(probe, "
            f"{text})[0])[0])[0])[0]{close}"
        )

    return (
        name,
        f"{gang} ? {items}.exists({var}, {bad}) : false",
        on_first(f"{at} + '.spec.containers[' + string(j) + '].' + probe"),
        on_first(
            f"'container ' + (has(c.name) && c.name != '' ? c.name : '#' + string(j)) + ' of gang pod template ' "
            f"+ {role} + ' has a ' + probe + ': it ' + (probe == 'livenessProbe' ? 'kills the rank when it fails, "
            "and the whole gang restarts' : 'marks the rank not ready when it fails, and waitForPodsReady evicts "
            "the whole gang')"
        ),
        on_first("'remove the ' + probe + ' (a startupProbe is fine)'"),
    )


def _named(at: str, name: str) -> str:
    """CEL: a template's role (``name``, a field that may be absent or empty), else its path ``at``."""
    return f"(has({name}) && {name} != '' ? {name} : {at})"


_TASK_AT = "'spec.tasks[' + string(i) + '].template'"
_RJOB_AT = "'spec.replicatedJobs[' + string(i) + '].template.spec.template'"
_READY_ORDERS = (
    "(has(r.name) && r.name != '' && ((variables.inOrder && has(variables.rjobs[size(variables.rjobs) - 1].name) "
    "? variables.rjobs[size(variables.rjobs) - 1].name != r.name : variables.inOrder) "
    "|| variables.rjobs.exists(o, has(o.dependsOn) && o.dependsOn.exists(d, has(d.name) && d.name == r.name "
    "&& has(d.status) && d.status == 'Ready'))))"
)
_LWT = "object.spec.leaderWorkerTemplate"
_WORKERS = "variables.workerGroups"
_RAY_GANG = (
    "variables.ray && !(has(variables.cluster.enableInTreeAutoscaling) && variables.cluster.enableInTreeAutoscaling == true) "
    f"&& 1 + {_WORKERS}.map(w, (has(w.replicas) && w.replicas > 0 ? w.replicas : 0) "
    "* (has(w.numOfHosts) && w.numOfHosts > 1 ? w.numOfHosts : 1)).sum() > 1"
)


def _kubeflow(field: str) -> Probed:
    specs = f"object.spec.{field}"
    return _probes(
        f"{field.removesuffix('ReplicaSpecs')}Probed",
        f"(has({specs}) ? {specs} : {{}})",
        "r",
        (f"{specs}[r]", "template", "spec"),
        f"'spec.{field}.' + r + '.template'",
        "r",
        keyed=True,
    )


_PROBED = (
    _probes("taskProbed", "variables.tasks", "t", ("t", "template", "spec"), _TASK_AT, _named(_TASK_AT, "t.name")),
    _probes(
        "jobSetProbed",
        "variables.rjobs",
        "r",
        ("r", "template", "spec", "template", "spec"),
        _RJOB_AT,
        _named(_RJOB_AT, "r.name"),
        _READY_ORDERS,
    ),
    _kubeflow("pytorchReplicaSpecs"),
    _kubeflow("mpiReplicaSpecs"),
    _probes(
        "leaderProbed",
        f"(variables.lws && has({_LWT}.leaderTemplate) ? [{_LWT}.leaderTemplate] : [])",
        "l",
        ("l", "spec"),
        "'spec.leaderWorkerTemplate.leaderTemplate'",
        "'leader'",
        gang="variables.lwsGang",
    ),
    _probes(
        "workerProbed",
        f"(variables.lws && has({_LWT}.workerTemplate) ? [{_LWT}.workerTemplate] : [])",
        "w",
        ("w", "spec"),
        "'spec.leaderWorkerTemplate.workerTemplate'",
        "'worker'",
        gang="variables.lwsGang",
    ),
    _probes(
        "headProbed",
        "(variables.ray && has(variables.cluster.headGroupSpec) ? [variables.cluster.headGroupSpec] : [])",
        "h",
        ("h", "template", "spec"),
        "variables.rayAt + '.headGroupSpec.template'",
        "'head'",
        gang="variables.rayGang",
    ),
    _probes(
        "rayWorkerProbed",
        _WORKERS,
        "w",
        ("w", "template", "spec"),
        "variables.rayAt + '.workerGroupSpecs[' + string(i) + '].template'",
        _named("variables.rayAt + '.workerGroupSpecs[' + string(i) + '].template'", "w.groupName"),
        gang="variables.rayGang",
    ),
)


def _first(part: int) -> str:
    return first_of((f"variables.{probed[0]}", probed[part]) for probed in _PROBED)


CEL = CelForm(
    resources=without(TEMPLATE_RESOURCES, ("batch", "jobs")),  # a batch Job: see the note
    variables=(
        (
            "tasks",
            "object.apiVersion.startsWith('batch.volcano.sh/') && has(object.spec.tasks) ? object.spec.tasks : []",
        ),
        ("rjobs", "object.kind == 'JobSet' && has(object.spec.replicatedJobs) ? object.spec.replicatedJobs : []"),
        (
            "inOrder",
            "object.kind == 'JobSet' && size(variables.rjobs) > 0 && has(object.spec.startupPolicy) "
            "&& has(object.spec.startupPolicy.startupPolicyOrder) && object.spec.startupPolicy.startupPolicyOrder == 'InOrder'",
        ),
        ("lws", "object.kind == 'LeaderWorkerSet' && has(object.spec) && has(object.spec.leaderWorkerTemplate)"),
        ("lwsGang", f"variables.lws && has({_LWT}.size) && {_LWT}.size > 1"),
        (
            "ray",
            "object.apiVersion.startsWith('ray.io/') && has(object.spec) "
            "&& (object.kind == 'RayCluster' || has(object.spec.rayClusterSpec))",
        ),
        ("cluster", "!variables.ray ? {} : object.kind == 'RayCluster' ? object.spec : object.spec.rayClusterSpec"),
        ("workerGroups", "has(variables.cluster.workerGroupSpecs) ? variables.cluster.workerGroupSpecs : []"),
        ("rayGang", _RAY_GANG),
        ("rayAt", "object.kind == 'RayCluster' ? 'spec' : 'spec.rayClusterSpec'"),
        *((probed[0], probed[1]) for probed in _PROBED),
    ),
    checks=(CelCheck(" && ".join(f"!variables.{probed[0]}" for probed in _PROBED), _first(2), _first(3), _first(4)),),
    note="batch Jobs (a gang only by its GPUs, gang placement or the cluster's Job controller: fleet facts) and "
    "Kueue pod-group Pods",
)


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
    cel=CEL,
    predicts=O.NOT_JUDGED,  # KWOK runs no probe: no engine outcome shows it
)
