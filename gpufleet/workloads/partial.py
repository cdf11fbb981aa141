"""The fewest pods an admitting system will admit a workload with, when it admits part of it (partial admission).

Kueue's partial admission (feature gate ``PartialAdmission``, beta and on by default since v0.5):
a batch Job annotated ``kueue.x-k8s.io/job-min-parallelism: N`` may be admitted with its parallelism
reduced down to N (v0.19.2 ``pkg/controller/jobs/job/job_controller.go``, ``minPodsCount``, read into
the PodSet's ``MinCount``); no other Kueue integration reads the annotation. A value that is not an
integer is ignored, as ``strconv.Atoi`` failing is. Called by the quota-ceiling rule (GANG406), which
compares the smallest admission a gang can get, not its full size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import KUEUE_JOB_MIN_PARALLELISM
from gpufleet.workloads.types import WorkloadView, annotation_path

_ATOI = re.compile(r"[+-]?[0-9]+")
"""What Go's ``strconv.Atoi`` accepts."""


@dataclass(frozen=True)
class PartialMinimum:
    """At least ``pods`` pods, read at ``path``."""

    pods: int
    path: FieldPath


def partial_minimum(view: WorkloadView) -> PartialMinimum | None:
    """The fewest pods Kueue may admit ``view`` with, or None when it admits it whole."""
    if (view.group, view.kind) != ("batch", "Job"):
        return None
    raw = view.annotations.get(KUEUE_JOB_MIN_PARALLELISM)
    if not isinstance(raw, str) or not _ATOI.fullmatch(raw):
        return None
    return PartialMinimum(int(raw), annotation_path(KUEUE_JOB_MIN_PARALLELISM))
