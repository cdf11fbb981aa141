"""The CEL spelling of the gang-size facts of :mod:`gpufleet.rules.gang_size._helpers`, for the rules' CEL forms.

Read by GANG001, GANG002 and GANG004 (``Rule.cel``, :mod:`gpufleet.rules.celform`). Each
snippet mirrors one Python reading, on the object alone (the webhook's view: no other
object of a run, so PodGroups, Kueue pod groups and Workloads, whose counts come from
other objects, never fire there and have no form):

- a Volcano task's pods: ``replicas`` when above 0, else 0 (:func:`gpufleet.workloads.kinds._volcano_job`);
- a dependent task: ``dependsOn.name`` lists a non-empty name (:func:`gpufleet.workloads.stages.depends_on_names`);
- the pods a Volcano Job starts with: the replicas of the tasks without ``dependsOn``
  (:func:`gpufleet.workloads.stages.starting_pods`);
- Volcano's default minimum: Σ task ``minAvailable``, else replicas (``_helpers._default_minimum``);
- a Kubeflow replica spec's pods: ``replicas`` (absent: 1, negative: 0) and the job's sum over
  ``pytorchReplicaSpecs`` / ``mpiReplicaSpecs`` (the webhook's two Kubeflow resources);
- a batch Job's gang ``minCount`` against its ``parallelism`` (absent: 1).
"""

from __future__ import annotations

from gpufleet.rules.celform import resources
from gpufleet.rules.celkinds import BATCH_JOB, KUBEFLOW_VARIABLES, VOLCANO

TASK_PODS = "(has(t.replicas) && t.replicas > 0 ? t.replicas : 0)"
DEPENDENT = "(has(t.dependsOn) && has(t.dependsOn.name) && t.dependsOn.name.exists(n, n != ''))"
TASK_MIN = "(has(t.minAvailable) ? t.minAvailable : " + TASK_PODS + ")"

VOLCANO_VARIABLES = (
    ("tasks", f"{VOLCANO} && has(object.spec.tasks) ? object.spec.tasks : []"),
    ("total", f"variables.tasks.map(t, {TASK_PODS}).sum()"),
    ("starting", f"variables.tasks.filter(t, !{DEPENDENT}).map(t, {TASK_PODS}).sum()"),
    ("defaultMinimum", f"variables.tasks.map(t, {TASK_MIN}).sum()"),
    ("jobMinimum", f"{VOLCANO} && has(object.spec.minAvailable) ? object.spec.minAvailable : 0"),
)
"""Variables of a Volcano Job (an empty task list for any other kind)."""

_GANG = "object.spec.scheduling.schedulingPolicy.gang"
JOB_VARIABLES = (
    (
        "jobGangMinimum",
        f"{BATCH_JOB} && has(object.spec.scheduling) && has(object.spec.scheduling.schedulingPolicy) "
        f"&& has({_GANG}) && has({_GANG}.minCount) ? {_GANG}.minCount : -1",
    ),
    ("parallelism", f"{BATCH_JOB} && has(object.spec.parallelism) ? object.spec.parallelism : 1"),
)
"""A batch Job's gang ``minCount`` (-1: none written) and its ``parallelism``."""

COUNTED = resources(
    ("batch.volcano.sh", "jobs"), ("kubeflow.org", "pytorchjobs"), ("kubeflow.org", "mpijobs"), ("batch", "jobs")
)
"""The kinds whose gang minimum GANG001 and GANG002 compare with the pods the object itself declares."""
COUNTS = (*VOLCANO_VARIABLES, *KUBEFLOW_VARIABLES, *JOB_VARIABLES)
"""The variables of every count of :data:`COUNTED`: a Volcano Job's, a Kubeflow job's and a batch Job's."""
NOTE = "PodGroups, Kueue pod groups and Workloads count the pods of other objects"
"""Why the others have no form (the webhook judges them with a run's objects)."""

KUBEFLOW_MIN_PATH = "spec.runPolicy.schedulingPolicy.minAvailable"
JOB_MIN_PATH = "spec.scheduling.schedulingPolicy.gang.minCount"


def task_index(bad: str) -> str:
    """The CEL path of the first task whose ``t`` satisfies ``bad``: ``spec.tasks[<i>].minAvailable``."""
    return f"'spec.tasks[' + string(variables.tasks.map(t, {bad}).indexOf(true)) + '].minAvailable'"
