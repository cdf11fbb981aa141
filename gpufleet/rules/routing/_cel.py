"""The CEL spelling of :mod:`gpufleet.rules.routing._helpers`' Volcano intent, for GANG101's and GANG102's CEL forms.

Read by the CEL forms (``Rule.cel``) of GANG101 and GANG102, for the kinds whose intent CEL
reads exactly on the object alone: a Volcano Job, and the JobSets, PyTorchJobs and MPIJobs
that are always gangs (:func:`gpufleet.rules.gangs.is_gang`; a batch Job is one only when it
asks for GPUs, which the webhook judges). ``intent`` mirrors :func:`volcano_intent`: the
workload names a Volcano queue, a pod template carries Volcano group or queue keys, or its
namespace belongs to a team whose only queue is Volcano's (the ``volcanoOnlyNamespace`` fact).

Each form comes in parts (:attr:`gpufleet.rules.celform.CelForm.parts`), one policy per kind:
the Volcano Job's check reads its tasks, every other kind's reads only its own pod templates.
One policy over all kinds, each check spelled for all of them, took the API server 15-25 s to
type-check alone and over 240 s beside the other policies on a busy sandbox (docs/webhook.md).
"""

from __future__ import annotations

from typing import Callable

from gpufleet.kubetypes import vocab
from gpufleet.rules.celform import CelCheck, CelForm, fact, resources
from gpufleet.rules.celkinds import VOLCANO_QUEUE_VARIABLES, failing_templates

VOLCANO_JOBS = resources(("batch.volcano.sh", "jobs"))
TEMPLATE_KINDS = resources(("jobset.x-k8s.io", "jobsets"), ("kubeflow.org", "pytorchjobs"), ("kubeflow.org", "mpijobs"))
"""The kinds that are always gangs and whose pod templates CEL reads (a TrainJob's live in its runtime)."""
RESOURCES = VOLCANO_JOBS + TEMPLATE_KINDS
NOTE = (
    "batch Jobs (a gang only when it asks for GPUs, a fact of the GPU rules), TrainJobs (their pod templates live "
    "in the training runtime), LeaderWorkerSets and Ray kinds (their pod templates)"
)
FACTS = ("volcanoOnlyNamespace",)

Variables = tuple[tuple[str, str], ...]


def own_scheduler(t: str) -> str:
    """CEL: template ``t``'s own ``schedulerName`` ('' when absent) (:func:`gpufleet.workloads.template_scheduler`)."""
    return f"(has({t}.spec) && has({t}.spec.schedulerName) ? {t}.spec.schedulerName : '')"


def _says_volcano(t: str) -> str:
    notes, labels = f"{t}.metadata.annotations", f"{t}.metadata.labels"
    keys_in = " || ".join(
        f"'{k}' in {notes}" for k in (vocab.VOLCANO_GROUP, vocab.VOLCANO_GROUP_ALT, vocab.VOLCANO_QUEUE)
    )
    return (
        f"(has({t}.metadata) && ((has({notes}) && ({keys_in})) "
        f"|| (has({labels}) && '{vocab.VOLCANO_QUEUE}' in {labels})))"
    )


JOB_VARIABLES = (
    ("jobScheduler", "has(object.spec.schedulerName) ? object.spec.schedulerName : ''"),
    ("tasks", "has(object.spec.tasks) ? object.spec.tasks : []"),
)
"""A Volcano Job's ``jobScheduler`` ('' when absent) and ``tasks``."""


def intent_variables(kind: str) -> Variables:
    """``intent``: a ``kind`` workload (not a Volcano Job) meant for Volcano."""
    return (
        *VOLCANO_QUEUE_VARIABLES,
        ("templatesSayVolcano", failing_templates(_says_volcano, False, "metadata", kinds=(kind,))),
        (
            "intent",
            f"variables.volcanoQueue != '' || size(variables.templatesSayVolcano) > 0 "
            f"|| {fact('volcanoOnlyNamespace', 'request.namespace')}",
        ),
    )


TASK_TEMPLATE = "has(t.template)"
"""A task's template is set (a missing one is empty: its pods name no scheduler)."""


def task_scheduler() -> str:
    """CEL: task ``t``'s template's own ``schedulerName`` ('' when absent)."""
    return f"({TASK_TEMPLATE} ? {own_scheduler('t.template')} : '')"


PARAMS = ("volcanoSchedulers",)
"""The option both forms read (:class:`gpufleet.rules.routing._helpers.VolcanoSchedulerOptions`)."""


def parts(
    job: tuple[Variables, CelCheck], templates: Callable[[str], tuple[Variables, CelCheck]]
) -> tuple[CelForm, ...]:
    """The Volcano Job's part (its ``JOB_VARIABLES``, then ``job``'s variables and check) and one part per template
    kind (its ``intent_variables``, then the variables and check ``templates(kind)`` gives)."""
    out = [
        CelForm(
            resources=VOLCANO_JOBS, variables=(*JOB_VARIABLES, *job[0]), checks=(job[1],), params=PARAMS, facts=FACTS
        )
    ]
    for resource in TEMPLATE_KINDS:
        variables, check = templates(resource[3])
        out.append(
            CelForm(
                resources=(resource,),
                variables=(*intent_variables(resource[3]), *variables),
                checks=(check,),
                params=PARAMS,
                facts=FACTS,
            )
        )
    return tuple(out)


def form(job: tuple[Variables, CelCheck], templates: Callable[[str], tuple[Variables, CelCheck]]) -> CelForm:
    """GANG101's or GANG102's form: no check of its own, its :func:`parts` (``job``'s and ``templates``')."""
    return CelForm(resources=RESOURCES, checks=(), params=PARAMS, facts=FACTS, note=NOTE, parts=parts(job, templates))
