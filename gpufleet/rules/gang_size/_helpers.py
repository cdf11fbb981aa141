"""Gang minimums and the pod counts they should match, shared by GANG001 and GANG002.

``minimums(view, ctx)`` lists every gang minimum an object declares, each with the
pod count it guards and where it is written, so GANG001 (minimum below the count)
and GANG002 (above it) read one definition and remediate the same field:

- Volcano Job: ``spec.minAvailable`` (explicit, non-zero: Volcano's webhook turns 0
  into Σ task minAvailable) against the pods the job starts with (Σ replicas of the
  tasks without ``dependsOn``: :func:`gpufleet.workloads.stages.starting_pods`); an unset
  one too when dependent tasks make Volcano's default larger than that (a deadlock);
  each task ``minAvailable`` against the task's replicas.
- Kubeflow jobs: ``runPolicy.schedulingPolicy.minAvailable`` against Σ replicas.
- PodGroups: ``minMember`` against the pods of the run that join the group.
- Kueue plain pods: ``pod-group-total-count`` against the pods of the run in the group.
- Kubernetes' own gang scheduling (:mod:`gpufleet.workloads.native`, kubernetes v1.37.2): a
  batch Job's ``spec.scheduling.schedulingPolicy.gang.minCount`` against its ``parallelism``;
  a ``scheduling.k8s.io`` PodGroup's ``spec.schedulingPolicy.gang.minCount`` against the pods
  of the run that join it (``spec.schedulingGroup.podGroupName``); a Workload's
  ``podGroupTemplates[i]`` gang ``minCount`` against the pods of the run's PodGroups made from
  that template (``spec.workloadRef``), or against the ``parallelism`` of the Job it names in
  ``spec.controllerRef``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import KUBEFLOW_JOBS
from gpufleet.rules.api import CheckContext
from gpufleet.util.quickinit import quick_init
from gpufleet.workloads import WorkloadView, as_int, as_list, as_map, stages
from gpufleet.workloads.native import GROUP as NATIVE
from gpufleet.workloads.native import JOB_GANG, gang_policies
from gpufleet.workloads.types import SPEC
from gpufleet.workloads.volcano import default_min_available

_MIN_AVAILABLE = SPEC.child("minAvailable")


@quick_init
@dataclass(frozen=True)
class Minimum:
    """One declared gang minimum, the pod count it should equal, and where it is written (and the fix goes)."""

    path: FieldPath
    minimum: int
    count: int
    counted: str  # what ``count`` counts, for messages
    as_string: bool = False  # annotations hold strings
    observed: bool = False  # count comes from the other objects of the run (may be partial)

    @property
    def fixed(self) -> int | str:
        """The value the remediation writes at ``path``."""
        return str(self.count) if self.as_string else self.count


def _starting(view: WorkloadView) -> tuple[int, str]:
    """The pods the job starts with (:func:`stages.starting_pods`) and how messages name them."""
    later = stages.later_templates(view)
    if not later:
        return view.total_pods, "pods of the job (sum of the task replicas)"
    roles = ", ".join(repr(t.role) for t in later)
    return stages.starting_pods(view), (
        f"pods the job starts with (replicas of the tasks without dependsOn; the pods "
        f"of {roles} are created only once the tasks they depend on run)"
    )


def _volcano(view: WorkloadView) -> Iterator[Minimum]:
    count, counted = _starting(view)
    tasks = as_list(as_map(view.obj.get("spec")).get("tasks"))
    if view.gang_min_path and view.gang_min:
        yield Minimum(view.gang_min_path, view.gang_min, count, counted)
    elif count < view.total_pods and default_min_available(tasks) > count:
        # unset: Volcano's default counts the dependent tasks too, a minimum the job can never reach
        yield Minimum(
            _MIN_AVAILABLE,
            default_min_available(tasks),
            count,
            counted + " (minAvailable is unset, and Volcano's webhook sets it to the sum of every task's minAvailable)",
        )
    for i, (task, template) in enumerate(zip(tasks, view.templates)):
        task = as_map(task)
        task_min = as_int(task.get("minAvailable"))
        if task_min is not None and "partitionPolicy" not in task:
            role = f"task {template.role!r}" if template.role else f"task {i}"
            yield Minimum(
                SPEC.child("tasks").index(i).child("minAvailable"), task_min, template.replicas, f"replicas of {role}"
            )


def _group_members(view: WorkloadView, ctx: CheckContext, name: str | None) -> int:
    return ctx.run.member_pods(view.namespace, name) if name and ctx.objects else 0


def _native_job(view: WorkloadView) -> Iterator[Minimum]:
    spec = as_map(view.obj.get("spec"))
    gang = as_map(as_map(as_map(spec.get("scheduling")).get("schedulingPolicy")).get("gang"))
    written = as_int(gang.get("minCount"))
    parallelism = as_int(spec.get("parallelism"), 1)
    if written is not None and parallelism is not None:
        yield Minimum(JOB_GANG.child("minCount"), written, parallelism, "pods the Job runs at once (parallelism)")


def _template_pods(view: WorkloadView, ctx: CheckContext, template: str) -> int:
    """Pods of the run in the PodGroups made from ``template`` of Workload ``view``, or of the Job it names."""
    pods = 0
    for other in ctx.run.views:
        if other is None or other.group != NATIVE or other.kind != "PodGroup" or other.namespace != view.namespace:
            continue
        ref = as_map(as_map(other.obj.get("spec")).get("workloadRef"))
        if ref.get("workloadName") == view.name and ref.get("templateName") == template and other.name:
            pods += _group_members(other, ctx, other.name)
    if pods:
        return pods
    owner = as_map(as_map(view.obj.get("spec")).get("controllerRef"))
    if owner.get("kind") == "Job" and owner.get("name"):
        job = next(
            (
                v
                for v in ctx.run.views
                if v is not None
                and (v.group, v.kind) == ("batch", "Job")
                and v.name == owner.get("name")
                and v.namespace == view.namespace
            ),
            None,
        )
        return job.total_pods if job is not None else 0
    return 0


def _native_workload(view: WorkloadView, ctx: CheckContext) -> Iterator[Minimum]:
    spec = as_map(view.obj.get("spec"))
    for policy in gang_policies(view.obj):
        field, index = policy.path.segments[1:3]
        templates = as_list(spec.get(str(field)))
        template = as_map(templates[index]) if isinstance(index, int) and index < len(templates) else {}
        count = _template_pods(view, ctx, str(template.get("name") or "")) if ctx.objects else 0
        if count and policy.min_count is not None:
            yield Minimum(
                policy.path,
                policy.min_count,
                count,
                f"pods of this run placed from template {template.get('name')!r}",
                observed=True,
            )


def minimums(view: WorkloadView | None, ctx: CheckContext) -> Iterator[Minimum]:
    """Every gang minimum ``view`` declares with the count it guards."""
    if view is not None and (view.group, view.kind) == ("batch", "Job"):
        yield from _native_job(view)
        return
    if view is not None and (view.group, view.kind) == (NATIVE, "Workload"):
        yield from _native_workload(view, ctx)
        return
    if view is None or view.gang_min is None:
        if view is not None and view.group == "batch.volcano.sh":
            yield from _volcano(view)
        return
    if view.group == "batch.volcano.sh":
        yield from _volcano(view)
    elif view.group == "kubeflow.org" and view.gang_min_path:
        yield Minimum(view.gang_min_path, view.gang_min, view.total_pods, "pods of the job (sum of the replicas)")
    elif view.kind == "PodGroup":
        count = _group_members(view, ctx, view.name)
        if count and view.gang_min_path:
            yield Minimum(
                view.gang_min_path, view.gang_min, count, "pods in this run that join the group", observed=True
            )
    elif view.kind == "Pod" and view.gang_min_path:
        count = _group_members(view, ctx, view.pod_group)
        if count:
            yield Minimum(
                view.gang_min_path,
                view.gang_min,
                count,
                f"pods of group {view.pod_group!r} in this run",
                as_string=True,
                observed=True,
            )


def _declared(view: WorkloadView | None, ctx: CheckContext) -> tuple[Minimum, ...]:
    return tuple(minimums(view, ctx))


def declared_minimums(obj: Mapping[str, Any], ctx: CheckContext) -> tuple[Minimum, ...]:
    """:func:`minimums` of ``obj``'s view in the run, listed once per object and run (GANG001 and GANG002 read them)."""
    return ctx.run.derived_for(obj, _declared, ctx)


KINDS = (
    ("batch.volcano.sh", "Job"),
    ("scheduling.volcano.sh", "PodGroup"),
    ("scheduling.x-k8s.io", "PodGroup"),
    *KUBEFLOW_JOBS,
    ("", "Pod"),
    ("batch", "Job"),
    (NATIVE, "Workload"),
    (NATIVE, "PodGroup"),
)
