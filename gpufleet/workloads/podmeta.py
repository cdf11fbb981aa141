"""What the controllers write into every pod of a template besides the template itself: labels and priority class.

Called by the placement rules (GANG408 reads which of a gang's pods a pod-affinity selector
matches, GANG111 the PriorityClass the pods are created with). Each entry cites the
upstream code that stamps it; a label whose value differs from pod to pod (a completion
index) is left out, so a selector on it matches fewer pods here than on the cluster, never
more.

- batch/v1 Job: the API server's Job strategy adds ``batch.kubernetes.io/job-name`` and
  ``job-name`` (the Job's name) to the template's labels (kubernetes v1.37.2
  ``pkg/registry/batch/job/strategy.go`` ``generateSelector``); the controller-uid labels
  carry the Job's UID, unknown before it exists.
- Volcano Job: its job controller labels every pod ``volcano.sh/job-name``,
  ``volcano.sh/job-namespace`` and ``volcano.sh/task-spec`` (the task's name), and gives a
  pod whose template names no PriorityClass the Job's ``spec.priorityClassName``
  (volcano v1.14.1 ``pkg/controllers/job/job_controller_util.go`` ``createJobPod``).
- JobSet: its child Jobs' templates carry ``jobset.sigs.k8s.io/jobset-name`` and
  ``jobset.sigs.k8s.io/replicatedjob-name`` (jobset v0.12.0
  ``pkg/controllers/jobset_controller.go`` ``labelAndAnnotateObject``), and the child Job
  adds its own name labels (different per child Job: left out).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads.selectors import matches
from gpufleet.workloads.types import SPEC, PodTemplate, WorkloadView, as_list, as_map, as_name

JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name"
JOBSET_REPLICATED_JOB_LABEL = "jobset.sigs.k8s.io/replicatedjob-name"
VOLCANO_NAMESPACE_LABEL = "volcano.sh/job-namespace"
VOLCANO_TASK_LABEL = "volcano.sh/task-spec"
BUILT_IN_PRIORITY_CLASSES = frozenset({"system-cluster-critical", "system-node-critical"})
"""The PriorityClasses every cluster has (kubernetes ``pkg/apis/scheduling`` ``SystemPriorityClasses``)."""


def _task_name(view: WorkloadView, template: PodTemplate, list_field: str) -> str | None:
    """The ``name`` of the list item (a Volcano task, a replicatedJob) the template belongs to."""
    segments = template.path.segments
    if len(segments) < 3 or segments[:2] != ("spec", list_field) or not isinstance(segments[2], int):
        return None
    items = as_list(as_map(view.obj.get("spec")).get(list_field))
    return as_name(as_map(items[segments[2]]).get("name")) if segments[2] < len(items) else None


def pod_labels(view: WorkloadView, template: PodTemplate) -> dict[str, str]:
    """The labels every pod of ``template`` carries once created: the template's own and the controllers' (above)."""
    out = {str(k): str(v) for k, v in template.labels.items()}
    name, namespace = view.name, view.namespace
    if not name:
        return out
    key = (view.group, view.kind)
    if key == ("batch", "Job"):
        out.update({vocab.JOB_NAME_LABEL: name, "job-name": name})
    elif key == ("batch.volcano.sh", "Job"):
        out[vocab.VOLCANO_JOB_LABEL] = name
        if namespace:
            out[VOLCANO_NAMESPACE_LABEL] = namespace
        task = _task_name(view, template, "tasks")
        if task:
            out[VOLCANO_TASK_LABEL] = task
    elif key == ("jobset.x-k8s.io", "JobSet"):
        out[JOBSET_NAME_LABEL] = name
        replicated = _task_name(view, template, "replicatedJobs")
        if replicated:
            out[JOBSET_REPLICATED_JOB_LABEL] = replicated
    return out


def priority_class(view: WorkloadView, template: PodTemplate) -> tuple[str | None, FieldPath | None]:
    """The PriorityClass the template's pods are created with, and the field that sets it (None, None: none)."""
    own = as_name(template.spec.get("priorityClassName"))
    if own:
        return own, template.spec_path.child("priorityClassName")
    if (view.group, view.kind) == ("batch.volcano.sh", "Job"):
        job = as_name(as_map(view.obj.get("spec")).get("priorityClassName"))
        if job:
            return job, SPEC.child("priorityClassName")
    return None, None


def selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool | None:
    """Whether a ``LabelSelector`` matches ``labels`` (:func:`gpufleet.workloads.selectors.matches`), or None when the
    selector cannot be read (an unknown operator, a requirement without a key: malformed input is GANG601's)."""
    try:
        return matches(selector, labels)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
