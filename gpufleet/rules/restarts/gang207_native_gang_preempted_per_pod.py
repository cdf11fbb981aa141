"""GANG207 native-gang-preempted-per-pod: a Kubernetes gang that kube-scheduler may preempt one pod at a time.

Called by the rule engine (linter, policy pack, admission controller) through the registry;
runs with and without a fleet context.

What it checks

A gang of Kubernetes' own gang scheduling (`scheduling.k8s.io`; facts in
`gpufleet/kubetypes/workload_api.py`, read at kubernetes v1.36.0 and v1.37.2) whose pod
group is disrupted pod by pod, the default:

- a batch Job with `spec.scheduling.schedulingPolicy.gang` (1.37) and no
  `spec.scheduling.disruptionMode: {all: {}}`;
- a `Workload` gang template (`spec.podGroupTemplates[i]`) without `disruptionMode: {all: {}}`
  (1.37) or `disruptionMode: PodGroup` (1.36, `v1alpha2`);
- a gang `PodGroup` without `spec.disruptionMode` `{all: {}}` or `PodGroup`.

A PodGroup's `disruptionMode` defaults to `single` (1.37) / `Pod` (1.36): kube-scheduler's
preemption (`pkg/scheduler/framework/preemption/types.go`, `getHighestAllAncestor`, v1.37.2;
`DisruptionModePodGroup`, v1.36.0) then picks victims one pod at a time. Only `all` makes
the whole group one preemption unit, so workload-aware preemption weighs and evicts the
gang together. A 1.36 Job the Job controller gangs by its shape has no field to ask for it
(its PodGroup is always `Pod`): on 1.36 such a gang stays exposed (see docs/advise.md).

Severity: **warning**. Nothing deadlocks: a preempted rank fails its Job (`backoffLimit: 0`,
GANG204) or is replaced alone; either way the gang loses its progress for the price of one
pod, and the preemptor's gain was counted as one pod's resources.

Why it is unsafe

A synchronous gang cannot run without any rank. Evicting one pod stops every rank at its
next collective, yet per-pod preemption counts it as freeing one pod: the scheduler
chooses such a victim over a whole lower-priority job it could have taken instead.

Example

```yaml
apiVersion: batch/v1
kind: Job
spec:
  parallelism: 64
  completions: 64
  scheduling:
    schedulingPolicy: {gang: {}}
```

Preferred form

```yaml
  scheduling:
    schedulingPolicy: {gang: {}}
    disruptionMode: {all: {}}   # the gang is preempted whole or not at all
```

The remediation writes `disruptionMode: {all: {}}` (`PodGroup` on a 1.36 `v1alpha2` object).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath, set_value
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, CelPath, dotted, resources
from gpufleet.workloads import as_list, as_map
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.native import GROUP, SCHEDULING, gang_policies
from gpufleet.workloads.types import SPEC, is_map

CODE = "GANG207"
WHOLE: dict[str, dict[str, Any]] = {"all": {}}


def _whole(mode: Any) -> bool:
    return mode == "PodGroup" or (is_map(mode) and is_map(mode.get("all")))


def exposed(obj: Mapping[str, Any]) -> list[tuple[FieldPath, Any]]:
    """``(path of disruptionMode, its value)`` for each gang of ``obj`` that is disrupted pod by pod."""
    spec = as_map(obj.get("spec"))
    if obj.get("kind") == "Job":
        scheduling = as_map(spec.get("scheduling"))
        gang = as_map(scheduling.get("schedulingPolicy")).get("gang")
        mode = scheduling.get("disruptionMode")
        return [(SCHEDULING.child("disruptionMode"), mode)] if is_map(gang) and not _whole(mode) else []
    if obj.get("kind") == "PodGroup":
        mode = spec.get("disruptionMode")
        return [(SPEC.child("disruptionMode"), mode)] if gang_policies(obj) and not _whole(mode) else []
    out = []
    for policy in gang_policies(obj):
        field, index = policy.path.segments[1:3]
        templates = as_list(spec.get(str(field)))
        if field == "podGroupTemplates" and isinstance(index, int) and index < len(templates):
            mode = as_map(templates[index]).get("disruptionMode")
            if not _whole(mode):
                out.append((SPEC.child(str(field)).index(index).child("disruptionMode"), mode))
    return out


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for path, mode in exposed(obj):
        what = "is unset (default single: pod by pod)" if mode is None else f"is {mode!r} (pod by pod)"
        yield Violation(
            path,
            f"this gang's disruptionMode {what}: kube-scheduler's preemption may evict one of its pods, "
            "which stops every rank while counting as one pod freed",
            f"set {path}: {{all: {{}}}} (1.37; PodGroup on a 1.36 v1alpha2 object) so the gang is preempted whole",
        )


def _whole_value(obj: Mapping[str, Any], mode: Any) -> Any:
    """``PodGroup`` for a 1.36 (``v1alpha2``, string) disruptionMode, ``{all: {}}`` from 1.37."""
    return "PodGroup" if isinstance(mode, str) or str(obj.get("apiVersion", "")).endswith("/v1alpha2") else dict(WHOLE)


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    for path, mode in exposed(obj):
        set_value(obj, path, _whole_value(obj, mode))
    return obj


def _whole_cel(at: CelPath) -> str:
    """CEL: the field at ``at`` (maybe absent) is ``PodGroup`` or ``{all: {...}}`` (:func:`_whole`)."""
    mode = dotted(at)
    return (
        f"(has({mode}) && (type({mode}) == string ? {mode} == 'PodGroup' "
        f": type({mode}) == map && has({mode}.all) && type({mode}.all) == map))"
    )


def _what(at: CelPath) -> str:
    """CEL: how the message names the mode at ``at`` (as :func:`check` does, a map shown by what it lacks)."""
    mode = dotted(at)
    return (
        f"(!has({mode}) ? 'is unset (default single: pod by pod)' : type({mode}) == string "
        f"? 'is \\'' + {mode} + '\\' (pod by pod)' : 'has no all (pod by pod)')"
    )


_WHY = "': kube-scheduler\\'s preemption may evict one of its pods, which stops every rank while counting as one pod freed'"


def _fix(path: str) -> str:
    return (
        f"'set ' + {path} + ': {{all: {{}}}} (1.37; PodGroup on a 1.36 v1alpha2 object) so the gang is preempted whole'"
    )


_SCHEDULING = "object.spec.scheduling"
_GANG_TEMPLATE = "(has(t.schedulingPolicy) && has(t.schedulingPolicy.gang) && type(t.schedulingPolicy.gang) == map)"
_EXPOSED = f"({_GANG_TEMPLATE} && !{_whole_cel(('t', 'disruptionMode'))})"
_FIRST = f"variables.templates.map(t, {_EXPOSED}).indexOf(true)"
_TEMPLATE_PATH = f"'spec.podGroupTemplates[' + string({_FIRST}) + '].disruptionMode'"
CEL = CelForm(
    resources=resources(("batch", "jobs"), (GROUP, "workloads"), (GROUP, "podgroups")),
    variables=(
        (
            "jobGang",
            f"object.kind == 'Job' && has({_SCHEDULING}) && has({_SCHEDULING}.schedulingPolicy) "
            f"&& has({_SCHEDULING}.schedulingPolicy.gang) && type({_SCHEDULING}.schedulingPolicy.gang) == map",
        ),
        (
            "groupGang",
            "object.kind == 'PodGroup' && has(object.spec.schedulingPolicy) "
            "&& has(object.spec.schedulingPolicy.gang) && type(object.spec.schedulingPolicy.gang) == map",
        ),
        (
            "templates",
            "object.kind == 'Workload' && has(object.spec.podGroupTemplates) ? object.spec.podGroupTemplates : []",
        ),
    ),
    checks=(
        CelCheck(
            f"!variables.jobGang || {_whole_cel((_SCHEDULING, 'disruptionMode'))}",
            "'spec.scheduling.disruptionMode'",
            f"'this gang\\'s disruptionMode ' + {_what((_SCHEDULING, 'disruptionMode'))} + {_WHY}",
            _fix("'spec.scheduling.disruptionMode'"),
        ),
        CelCheck(
            f"!variables.groupGang || {_whole_cel(('object', 'spec', 'disruptionMode'))}",
            "'spec.disruptionMode'",
            f"'this gang\\'s disruptionMode ' + {_what(('object', 'spec', 'disruptionMode'))} + {_WHY}",
            _fix("'spec.disruptionMode'"),
        ),
        CelCheck(
            f"!variables.templates.exists(t, {_EXPOSED})",
            _TEMPLATE_PATH,
            f"[variables.templates[{_FIRST}]].map(t, 'this gang\\'s disruptionMode ' + {_what(('t', 'disruptionMode'))} "
            f"+ {_WHY})[0]",
            _fix(_TEMPLATE_PATH),
        ),
    ),
)


RULE = Rule(
    code=CODE,
    name="native-gang-preempted-per-pod",
    family="restarts",
    severity=Severity.WARNING,
    summary="A Kubernetes-native gang (Workload, PodGroup, Job spec.scheduling) can be preempted one pod at a time.",
    fix="set disruptionMode: {all: {}} so kube-scheduler preempts the gang whole",
    kinds=(("batch", "Job"), (GROUP, "Workload"), (GROUP, "PodGroup")),
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.NOT_JUDGED,  # preemption needs contention, which a trial alone does not create
)
