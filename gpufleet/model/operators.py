"""The workload operators the cluster runs, and their settings that change what they do with a job.

``workloadOperators`` of the fleet model: one entry per operator (``jobset``, ``leaderworkerset``,
``mpiOperator``, ``trainer``, ``trainingOperator``, ``kuberay``). gpufleet installs none of them; the
section says which the cluster runs and how, so the gang contract's readers
(:mod:`gpufleet.workloads.contract`) read a job as that operator will: the same MPIJob is a gang
under ``mpi-operator --gang-scheduling=volcano`` and none without it. Rendered into the fleet context
as ``workloadOperators`` (:mod:`gpufleet.render.context`), read back as
:class:`gpufleet.fleetctx.operators.OperatorProfile`. Checked by :mod:`gpufleet.model.checks.operators`
(which gang scheduler each operator can write PodGroups for, and that the engine is in the model).
An operator left out is unknown: the readers take upstream's defaults.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from gpufleet.model.base import Base

PINNED = {
    "jobset": "v0.12.0",
    "leaderworkerset": "v0.9.0",
    "mpiOperator": "v0.8.0",
    "trainer": "v2.3.0",
    "trainingOperator": "v1.9.4",
    "kuberay": "v1.5.0",
}
"""The tag each operator's reader follows (its upstream source was read at this tag)."""

GANG_SCHEDULERS = {
    "jobset": (),
    "leaderworkerset": ("volcano",),
    "mpiOperator": ("volcano", "scheduler-plugins"),
    "trainer": (),
    "trainingOperator": ("volcano", "scheduler-plugins"),
    "kuberay": ("volcano", "scheduler-plugins"),
}
"""The gang schedulers each operator can write PodGroups for (among the engines a fleet model can hold)."""

GANG_SETTING = {
    "jobset": "none: JobSet writes no PodGroup (Kueue admits a JobSet whole)",
    "leaderworkerset": "gangSchedulingManagement.schedulerProvider",
    "mpiOperator": "--gang-scheduling",
    "trainer": "none: a TrainingRuntime's podGroupPolicy says it per runtime",
    "trainingOperator": "--gang-scheduler-name",
    "kuberay": "batchScheduler (--batch-scheduler)",
}
"""Where each operator's own configuration sets its gang scheduler (for messages and docs)."""

FeatureGate = Annotated[str, Field(pattern=r"^[A-Z][A-Za-z0-9]*$", min_length=1, max_length=63)]


class WorkloadOperator(Base):
    installed: bool = True
    """Whether the cluster runs the operator (declared: true; set false to say it does not)."""
    version: str | None = Field(default=None, pattern=r"^v[0-9]+\.[0-9]+\.[0-9]+$")
    """The operator's release tag (``v0.12.0``); unset = the tag gpufleet's reader follows (:data:`PINNED`)."""
    gang_scheduler: Literal["volcano", "scheduler-plugins"] | None = None
    """The engine the operator writes PodGroups for; unset = none (every operator's default)."""
    feature_gates: list[FeatureGate] = Field(default_factory=list)
    """Operator feature gates turned on (JobSet ``RestartJob``, ``InPlaceRestart``; KubeRay ``RayMultiHostIndexing``)."""


class WorkloadOperators(Base):
    jobset: WorkloadOperator | None = None
    """JobSet (``jobset.x-k8s.io``); unset = unknown."""
    leaderworkerset: WorkloadOperator | None = None
    """LeaderWorkerSet (``leaderworkerset.x-k8s.io``); unset = unknown."""
    mpi_operator: WorkloadOperator | None = None
    """Kubeflow mpi-operator (``kubeflow.org`` MPIJob v2beta1); unset = unknown."""
    trainer: WorkloadOperator | None = None
    """Kubeflow Trainer (``trainer.kubeflow.org`` TrainJob, TrainingRuntime); unset = unknown."""
    training_operator: WorkloadOperator | None = None
    """Kubeflow training-operator v1 (PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob); unset = unknown."""
    kuberay: WorkloadOperator | None = None
    """KubeRay (``ray.io`` RayJob, RayCluster); unset = unknown."""

    def declared(self) -> dict[str, WorkloadOperator]:
        """``{context key: settings}`` of the operators the model declares, in :data:`PINNED` order."""
        fields = type(self).model_fields
        by_key = {fields[name].alias or name: getattr(self, name) for name in fields}
        return {key: by_key[key] for key in PINNED if by_key.get(key) is not None}
