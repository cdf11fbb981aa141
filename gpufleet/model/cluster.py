"""The cluster the fleet runs on: its Kubernetes minor and the workload-scheduling gates it runs.

``kubernetes`` of the fleet model. Kubernetes' own gang scheduling (the Workload API,
``scheduling.k8s.io``) depends on both: the facts (gates, their stage and default per minor,
the API versions, which Jobs the Job controller gangs) are
:mod:`gpufleet.kubetypes.workload_api`'s, read at kubernetes v1.37.2. Checked by
``gpufleet.model.checks.native``; rendered into the fleet context (``kubernetesVersion``,
``workloadGates``) so the rules and the admission controller judge a Job by what this
cluster's Job controller and kube-scheduler will do with it.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field, field_validator

from gpufleet.kubetypes import workload_api
from gpufleet.model.base import Base

DEFAULT_SCORING: Final = "LeastAllocated"
"""The kube-scheduler's own default ``NodeResourcesFit`` scoring (``kubernetes.scoringStrategy``)."""

DEFAULT_VERSION = "1.37"
"""The minor the sandbox runs (kube v1.37.2); the gates default as they do there (all off)."""


class Kubernetes(Base):
    version: str = DEFAULT_VERSION
    """The cluster's Kubernetes version, ``1.<minor>`` (a patch is accepted and ignored): which gates
    and Workload API versions exist, and which Jobs the Job controller gang-schedules."""
    feature_gates: dict[str, bool] = Field(default_factory=dict)
    """Workload-scheduling feature gates set on the control plane (kube-apiserver, kube-controller-manager,
    kube-scheduler), e.g. ``{GenericWorkload: true, WorkloadWithJob: true}``; unset gates keep their default
    at ``version`` (all off up to 1.37)."""
    scoring_strategy: Literal["LeastAllocated", "MostAllocated"] = DEFAULT_SCORING
    """How the cluster's kube-scheduler scores the nodes a pod fits (``NodeResourcesFit``'s
    ``scoringStrategy.type``): ``LeastAllocated``, upstream's default, spreads pods over the emptiest
    nodes; ``MostAllocated`` packs them onto the fullest (GKE's ``optimize-utilization`` profile, and the
    bin-packing GPU clusters are usually given), leaving whole nodes free for the next gang. The stack does
    not deploy the cluster's scheduler; the sandbox's kube-scheduler runs with it (``gpufleet sandbox``,
    ``try``, ``whatif``: :func:`gpufleet.sandbox.controlplane.scheduler_config`)."""

    @field_validator("version")
    @classmethod
    def _one_dot_minor(cls, value: str) -> str:
        if (
            workload_api.minor_of(value) is None
            or not all(p.isdigit() for p in value.split("."))
            or value.count(".") > 2
        ):
            raise ValueError(f"{value!r} is not a Kubernetes version: write 1.<minor> (1.37), without a leading v")
        return value

    @property
    def minor(self) -> int:
        return workload_api.minor_of(self.version) or 0

    @property
    def gates_on(self) -> frozenset[str]:
        """The workload-scheduling gates on: each gate's default at ``version``, then ``featureGates``."""
        return workload_api.gates_on(self.minor, self.feature_gates)

    @property
    def native_jobs(self) -> bool:
        """Whether the Job controller creates Workloads and PodGroups (GenericWorkload and WorkloadWithJob on)."""
        on = self.gates_on
        return workload_api.GENERIC_WORKLOAD in on and workload_api.WORKLOAD_WITH_JOB in on
