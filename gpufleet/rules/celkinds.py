"""The CEL spelling of a workload view's pod templates and pod count, for the rules' CEL forms.

Read by the CEL forms of the routing and coscheduling rules (GANG104, GANG805, GANG806;
``Rule.cel``, :mod:`gpufleet.rules.celform`); the kind tests (``VOLCANO``, ``KUBEFLOW``, ``BATCH_JOB``) and a
Kubeflow job's pod count (``KUBEFLOW_VARIABLES``) also by the gang-size forms (:mod:`gpufleet.rules.gang_size._cel`). Each snippet mirrors one reading of
:mod:`gpufleet.workloads.kinds` on the object alone, for the kinds the webhook is sent
whose templates sit at a fixed place:

- a batch Job: ``spec.template``, ``parallelism`` pods (absent: 1, negative: 0);
- a JobSet: ``spec.replicatedJobs[i].template.spec.template``, ``replicas`` × the Job's
  ``parallelism`` pods each (absent: 1, negative: 0);
- a PyTorchJob or MPIJob: ``spec.<field>.<role>.template`` of ``pytorchReplicaSpecs`` and
  ``mpiReplicaSpecs`` (the fields their CRDs keep), ``replicas`` pods each (absent: 1, negative: 0).

The Volcano queue a view reads (``VOLCANO_QUEUE_VARIABLES``) holds for every kind. A missing template is an empty one (:func:`gpufleet.workloads.types.as_map`). Messages
name the first template that fails (one finding per template in the engine, one denial line here).
"""

from __future__ import annotations

from typing import Callable, Iterable

from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.fieldpath import ROOT
from gpufleet.rules.celform import Resource, key_part
from gpufleet.workloads import annotation_path, label_path
from gpufleet.workloads.kueue_gate import INTEGRATIONS

JOBSET = "object.apiVersion.startsWith('jobset.x-k8s.io/')"
VOLCANO = "object.apiVersion.startsWith('batch.volcano.sh/')"
KUBEFLOW = "object.apiVersion.startsWith('kubeflow.org/')"
BATCH_JOB = "object.apiVersion == 'batch/v1'"

_ROLE_PODS = "(has(s[r].replicas) ? (s[r].replicas > 0 ? s[r].replicas : 0) : 1)"


def _role_sum(field: str) -> str:
    return (
        f"(has(object.spec.{field}) ? object.spec.{field}.map(r, "
        f"{_ROLE_PODS.replace('s[r]', f'object.spec.{field}[r]')}).sum() : 0)"
    )


KUBEFLOW_VARIABLES = (
    ("kubeflowPods", f"{KUBEFLOW} ? {_role_sum('pytorchReplicaSpecs')} + {_role_sum('mpiReplicaSpecs')} : 0"),
    (
        "kubeflowMinimum",
        f"{KUBEFLOW} && has(object.spec.runPolicy) && has(object.spec.runPolicy.schedulingPolicy) "
        "&& has(object.spec.runPolicy.schedulingPolicy.minAvailable) "
        "? object.spec.runPolicy.schedulingPolicy.minAvailable : -1",
    ),
)
"""The pods of a PyTorchJob or MPIJob and its gang minimum (-1: none written)."""
KUBEFLOW_FIELDS = ("pytorchReplicaSpecs", "mpiReplicaSpecs")
KUBEFLOW_KINDS = ("PyTorchJob", "MPIJob")
"""The kind of each of :data:`KUBEFLOW_FIELDS`."""
ALL_KINDS = ("Job", "JobSet", *KUBEFLOW_KINDS)
"""The kinds whose pod templates the snippets read."""
_RJOB_TEMPLATE = "has(r.template) && has(r.template.spec) && has(r.template.spec.template)"

Bad = Callable[[str], str]
"""A CEL bool of a present template (the CEL expression given) that fails a check."""


def failing_templates(bad: Bad, missing: bool, suffix: str, kinds: Iterable[str] = ALL_KINDS) -> str:
    """CEL: the paths (``<template path>.<suffix>``) of the templates that fail ``bad``, the first of each kind's;
    a missing template fails when ``missing``. Only the parts of ``kinds`` (a policy matching fewer kinds)."""
    absent = "true" if missing else "false"
    job = f"(has(object.spec.template) ? {bad('object.spec.template')} : {absent})"
    rjob = f"({_RJOB_TEMPLATE} ? {bad('r.template.spec.template')} : {absent})"
    jobset = f"has(object.spec.replicatedJobs) && object.spec.replicatedJobs.exists(r, {rjob})"
    # each kind's part behind a conditional on the kind: evaluated only for its kind (an && evaluates both sides)
    parts = [f"({BATCH_JOB} ? ({job} ? ['{ROOT.child('spec', 'template')}.{suffix}'] : []) : [])"] * ("Job" in kinds)
    parts += [
        f"({JOBSET} ? ({jobset} ? ['spec.replicatedJobs[' + string(object.spec.replicatedJobs.map(r, {rjob}).indexOf(true)) "
        f"+ '].template.spec.template.{suffix}'] : []) : [])"
    ] * ("JobSet" in kinds)
    for field in (f for f, kind in zip(KUBEFLOW_FIELDS, KUBEFLOW_KINDS) if kind in kinds):
        specs = f"object.spec.{field}"
        role = f"(has({specs}[r].template) ? {bad(f'{specs}[r].template')} : {absent})"
        parts.append(
            f"({KUBEFLOW} ? (has({specs}) && {specs}.exists(r, {role}) "
            f"? ['spec.{field}.' + {specs}.filter(r, {role})[0] + '.template.{suffix}'] : []) : [])"
        )
    return " + ".join(parts) or "[]"


def _at_least_zero(value: str) -> str:
    return f"({value} > 0 ? {value} : 0)"


_RJOB_PARALLELISM = "has(r.template) && has(r.template.spec) && has(r.template.spec.parallelism)"
TOTAL_PODS = (
    f"({BATCH_JOB} ? (has(object.spec.parallelism) ? {_at_least_zero('object.spec.parallelism')} : 1) : 0)"
    f" + ({JOBSET} ? (has(object.spec.replicatedJobs) ? object.spec.replicatedJobs.map(r, "
    f"(has(r.replicas) ? {_at_least_zero('r.replicas')} : 1) * "
    f"({_RJOB_PARALLELISM} ? {_at_least_zero('r.template.spec.parallelism')} : 1)).sum() : 0) : 0)"
    f" + ({dict(KUBEFLOW_VARIABLES)['kubeflowPods']})"
)
"""CEL: the pods of a batch Job, JobSet, PyTorchJob or MPIJob (:attr:`gpufleet.workloads.WorkloadView.total_pods`)."""


def present(selection: str) -> str:
    """CEL: every field of the CEL member ``selection`` past its root variable is set (``t.metadata.labels``); a
    part ending in an index (``specs[r]``) is not tested, since ``has()`` takes a field selection only. A CEL
    expression these forms write, never a field path read back from a finding."""
    parts = selection.split(".")
    return " && ".join(
        f"has({'.'.join(parts[:i])})" for i in range(2, len(parts) + 1) if not parts[i - 1].endswith("]")
    )


def map_value(mapping: str, key: str) -> str:
    """CEL: ``mapping[key]`` of an optional string map (``t.metadata.labels``), or ``''``."""
    return f"({present(mapping)} && '{key}' in {mapping} ? {mapping}['{key}'] : '')"


def framework(matched: Iterable[Resource]) -> str:
    """CEL: the Kueue integration of the admitted resource (:func:`gpufleet.workloads.kueue_gate.integration`, as a params key writes it),
    '' for one Kueue has none for (a Volcano Job)."""
    return (
        " : ".join(
            f"request.resource.group == '{group}' && request.resource.resource == '{plural}' "
            f"? '{key_part(INTEGRATIONS[(group, kind)])}'"
            for group, _, plural, kind in matched
            if (group, kind) in INTEGRATIONS
        )
        + " : ''"
    )


def scheduler(t: str) -> str:
    """CEL: the scheduler of template ``t``'s pods, not a Volcano Job's (:func:`gpufleet.workloads.effective_scheduler`)."""
    return (
        f"(has({t}.spec) && has({t}.spec.schedulerName) && {t}.spec.schedulerName != '' ? {t}.spec.schedulerName "
        f": '{vocab.DEFAULT_SCHEDULER}')"
    )


_SPEC_QUEUES = (  # (kind test, the queue field, its path): where a view reads its Volcano queue first (workloads.kinds)
    ("object.apiVersion.startsWith('batch.volcano.sh/')", "object.spec.queue", "spec.queue"),
    ("object.apiVersion.startsWith('scheduling.volcano.sh/')", "object.spec.queue", "spec.queue"),
    (KUBEFLOW, "object.spec.runPolicy.schedulingPolicy.queue", "spec.runPolicy.schedulingPolicy.queue"),
)
_VQ_NOTE, _VQ_LABEL = (map_value(f"object.metadata.{m}", vocab.VOLCANO_QUEUE) for m in ("annotations", "labels"))
_SPEC_QUEUE = " : ".join(f"{kind} ? ({present(field)} ? {field} : '')" for kind, field, _ in _SPEC_QUEUES) + " : ''"
_SPEC_PATH = " : ".join(f"{kind} ? '{path}'" for kind, _, path in _SPEC_QUEUES) + " : ''"
VOLCANO_QUEUE_VARIABLES = (
    ("specQueue", _SPEC_QUEUE),
    ("volcanoQueue", f"variables.specQueue != '' ? variables.specQueue : {_VQ_NOTE} != '' ? {_VQ_NOTE} : {_VQ_LABEL}"),
    (
        "volcanoQueuePath",
        f"variables.specQueue != '' ? ({_SPEC_PATH}) : {_VQ_NOTE} != '' "
        f"? '{annotation_path(vocab.VOLCANO_QUEUE)}' : '{label_path(vocab.VOLCANO_QUEUE)}'",
    ),
)
"""The Volcano queue a view reads (:attr:`WorkloadView.volcano_queue`: the kind's queue field, else the
annotation, else the label; '' for none) and the path it is read at."""
