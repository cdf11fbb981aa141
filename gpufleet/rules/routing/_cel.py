"""The CEL spelling of :mod:`gpufleet.rules.routing._helpers`' Volcano intent, for GANG101's and GANG102's CEL forms.

Read by the CEL forms (``Rule.cel``) of GANG101 and GANG102, for the kinds whose intent CEL
reads exactly on the object alone: a Volcano Job, and the JobSets, PyTorchJobs, MPIJobs and
TrainJobs that are always gangs (:func:`gpufleet.rules.gangs.is_gang`; a batch Job is one only when
it asks for GPUs, which the webhook judges). ``intent`` mirrors :func:`volcano_intent`: the
workload names a Volcano queue, a pod template carries Volcano group or queue keys, or its
namespace belongs to a team whose only queue is Volcano's (the ``volcanoOnlyNamespace`` fact).
"""

from __future__ import annotations

from gpufleet.rules.celform import fact, resources
from gpufleet.rules.celkinds import VOLCANO_QUEUE_VARIABLES, failing_templates
from gpufleet.workloads import keys

RESOURCES = resources(("batch.volcano.sh", "jobs"), ("jobset.x-k8s.io", "jobsets"), ("kubeflow.org", "pytorchjobs"),
                      ("kubeflow.org", "mpijobs"), ("trainer.kubeflow.org", "trainjobs"))
VOLCANO_JOB = "object.apiVersion.startsWith('batch.volcano.sh/')"
NOTE = "batch Jobs (a gang only when it asks for GPUs, a fact of the GPU rules), LeaderWorkerSets and Ray kinds (their pod templates)"


def own_scheduler(t: str) -> str:
    """CEL: template ``t``'s own ``schedulerName`` ('' when absent) (:func:`gpufleet.workloads.template_scheduler`)."""
    return f"(has({t}.spec) && has({t}.spec.schedulerName) ? {t}.spec.schedulerName : '')"


def _says_volcano(t: str) -> str:
    notes, labels = f"{t}.metadata.annotations", f"{t}.metadata.labels"
    keys_in = " || ".join(f"'{k}' in {notes}" for k in (keys.VOLCANO_GROUP, keys.VOLCANO_GROUP_ALT, keys.VOLCANO_QUEUE))
    return (f"(has({t}.metadata) && ((has({notes}) && ({keys_in})) "
            f"|| (has({labels}) && '{keys.VOLCANO_QUEUE}' in {labels})))")


INTENT_VARIABLES = (
    *VOLCANO_QUEUE_VARIABLES,
    ("templatesSayVolcano", failing_templates(_says_volcano, False, "metadata")),
    ("intent", f"!{VOLCANO_JOB} && (variables.volcanoQueue != '' || size(variables.templatesSayVolcano) > 0 "
               f"|| {fact('volcanoOnlyNamespace', 'request.namespace')})"),
    ("jobScheduler", f"{VOLCANO_JOB} && has(object.spec.schedulerName) ? object.spec.schedulerName : ''"),
    ("tasks", f"{VOLCANO_JOB} && has(object.spec.tasks) ? object.spec.tasks : []"),
)
"""``intent``: a workload (not a Volcano Job) meant for Volcano; a Volcano Job's ``jobScheduler`` and ``tasks``."""

TASK_TEMPLATE = "has(t.template)"
"""A task's template is set (a missing one is empty: its pods name no scheduler)."""


def task_scheduler() -> str:
    """CEL: task ``t``'s template's own ``schedulerName`` ('' when absent)."""
    return f"({TASK_TEMPLATE} ? {own_scheduler('t.template')} : '')"

