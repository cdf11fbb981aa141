"""Which pods of a workload are ranks of its gang, and which exist when it is first scheduled.

The one reading of the shapes that make a gang smaller than its pod count, or no gang
at all. Called by :mod:`gpufleet.rules.gangs` (the gang definition every rule reads),
the gang-size rules (GANG001, GANG002 through ``gang_size._helpers``), GANG204, the
gang identity label (:mod:`gpufleet.workloads.identity`) and the Volcano defaulting
of the admission controller (:mod:`gpufleet.mutate.volcano`), so that they agree:

- **Volcano ``tasks[].dependsOn``** (``{name: [...], iteration}``): the job controller
  creates a dependent task's pods only once the tasks it names run
  (``waitDependsOnTaskMeetCondition``, ``pkg/controllers/job/job_controller_actions.go``).
  When the gang is first scheduled only the tasks without ``dependsOn`` have pods, and
  the gang plugin refuses a job with fewer valid pods than ``minAvailable`` ("Not
  enough valid tasks for gang-scheduling", ``gang.go``). So the job's minimum must be
  the replicas of the tasks without ``dependsOn`` (:func:`starting_pods`): above it the
  job stays Inqueue forever, below it starts partially. Observed on Volcano v1.14.1:
  2 workers and a launcher depending on them ran whole with ``minAvailable: 2`` and stayed
  Inqueue with 3. The dependent tasks still run with the others: they are ranks.
- **JobSet and Trainer runtime ``replicatedJobs[].dependsOn`` with ``status: Complete``**:
  the replicatedJob named runs to completion before the dependent ones are created, so
  it is an initializer, not a rank (:func:`initializer_roles`). A ``Ready`` dependency
  (an MPI launcher waiting for its workers) is a rank.
- **Sweeps**: a batch Job (or a JobSet child Job) with ``completions`` above
  ``parallelism`` runs its indexes a few at a time; no index waits for the others, each
  is retried alone by design (:func:`is_sweep`).
- **JobSet ``failurePolicy.restartStrategy: InPlaceRestart``**: the JobSet controller
  restarts every pod together behind a barrier bounded by ``maxRestarts``, and its
  webhook (v0.12.0) accepts only ``backoffLimit: 2147483647`` on the child Jobs
  (:func:`restarts_in_place`).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.workloads.runtimes import RUNTIME_KINDS
from gpufleet.workloads.types import PodTemplate, WorkloadView, as_int, as_list, as_map, is_map

IN_PLACE_RESTART = "InPlaceRestart"
IN_PLACE_BACKOFF_LIMIT = 2147483647  # the only child backoffLimit JobSet's webhook accepts under InPlaceRestart


def depends_on_names(task: Any) -> tuple[str, ...]:
    """The task names a Volcano task's ``dependsOn`` lists (empty when it depends on none)."""
    return tuple(str(n) for n in as_list(as_map(as_map(task).get("dependsOn")).get("name")) if n)


def dependent_tasks(tasks: Any) -> frozenset[int]:
    """Indexes of the Volcano tasks (raw ``spec.tasks``) whose pods are created only once others run."""
    return frozenset(i for i, task in enumerate(as_list(tasks)) if depends_on_names(task))


def starting_replicas(tasks: Any) -> int | None:
    """Σ replicas of the Volcano tasks without ``dependsOn`` (absent is 0); None when a count is not an integer."""
    total = 0
    for task in as_list(tasks):
        if not is_map(task) or depends_on_names(task):
            continue
        replicas = task.get("replicas", 0)
        if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
            return None
        total += replicas
    return total


def _volcano(view: WorkloadView) -> bool:
    return view.group == "batch.volcano.sh" and view.kind == "Job"


def _tasks(view: WorkloadView) -> list[Any]:
    return [t for t in as_list(as_map(view.obj.get("spec")).get("tasks")) if is_map(t)]


def later_templates(view: WorkloadView) -> tuple[PodTemplate, ...]:
    """The templates whose pods are created after the gang is first scheduled (Volcano dependent tasks)."""
    if not _volcano(view):
        return ()
    later = dependent_tasks(_tasks(view))
    return tuple(t for i, t in enumerate(view.templates) if i in later)


def starting_pods(view: WorkloadView) -> int:
    """The pods that exist when the gang is first scheduled: all of them but the dependent tasks' pods."""
    return view.total_pods - sum(t.replicas for t in later_templates(view))


def _jobset_spec(view: WorkloadView) -> Mapping[str, Any]:
    spec = as_map(view.obj.get("spec"))
    if view.kind in RUNTIME_KINDS:
        return as_map(as_map(spec.get("template")).get("spec"))
    return spec if view.kind == "JobSet" else {}


def initializer_roles(view: WorkloadView) -> frozenset[str]:
    """Names of the replicatedJobs others wait on to Complete (JobSet, Trainer runtime): initializers, not ranks."""
    return frozenset(
        str(dep.get("name"))
        for rjob in as_list(_jobset_spec(view).get("replicatedJobs"))
        if is_map(rjob)
        for dep in as_list(rjob.get("dependsOn"))
        if is_map(dep) and dep.get("status") == "Complete"
    )


def is_sweep_job(job_spec: Any) -> bool:
    """A Job spec whose ``completions`` exceed its ``parallelism`` (default 1): a sweep, not a gang."""
    spec = as_map(job_spec)
    completions, parallelism = as_int(spec.get("completions")), as_int(spec.get("parallelism"), 1)
    return completions is not None and parallelism is not None and completions > max(parallelism, 1)


def sweep_roles(view: WorkloadView) -> frozenset[str]:
    """Names of the replicatedJobs (JobSet, Trainer runtime) whose child Jobs are sweeps."""
    return frozenset(
        str(rjob.get("name") or "")
        for rjob in as_list(_jobset_spec(view).get("replicatedJobs"))
        if is_map(rjob) and is_sweep_job(as_map(rjob.get("template")).get("spec"))
    )


def is_sweep(view: WorkloadView) -> bool:
    """A batch Job whose ``completions`` exceed its ``parallelism``."""
    return view.group == "batch" and view.kind == "Job" and is_sweep_job(view.obj.get("spec"))


def restarts_in_place(view: WorkloadView) -> bool:
    """A JobSet (or runtime's JobSet) whose failure policy restarts every pod in place together."""
    return as_map(_jobset_spec(view).get("failurePolicy")).get("restartStrategy") == IN_PLACE_RESTART


def rank_templates(view: WorkloadView) -> tuple[PodTemplate, ...]:
    """The templates whose pods are ranks of the gang: initializers and sweep replicatedJobs left out."""
    skipped = initializer_roles(view) | sweep_roles(view)
    return tuple(t for t in view.templates if t.role not in skipped) if skipped else view.templates
