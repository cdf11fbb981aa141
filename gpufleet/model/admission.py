"""Gang admission settings: Kueue's waitForPodsReady, routing and fair sharing.

Rendered into the Kueue manager Configuration (``config.kueue.x-k8s.io/v1beta2``)
and read by the platform rules (GANG5xx) through the fleet context.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from gpufleet.kubetypes.durations import COLD_START_FLOOR_SECONDS
from gpufleet.model.base import Base, Duration

KUEUE_FRAMEWORKS = (
    "batch/job",
    "kubeflow.org/mpijob",
    "kubeflow.org/pytorchjob",
    "kubeflow.org/tfjob",
    "kubeflow.org/paddlejob",
    "kubeflow.org/xgboostjob",
    "kubeflow.org/jaxjob",
    "trainer.kubeflow.org/trainjob",
    "ray.io/rayjob",
    "ray.io/raycluster",
    "ray.io/rayservice",
    "jobset.x-k8s.io/jobset",
    "workload.codeflare.dev/appwrapper",
    "sparkoperator.k8s.io/sparkapplication",
    "pod",
    "deployment",
    "statefulset",
    "leaderworkerset.x-k8s.io/leaderworkerset",
)

PREEMPTION_STRATEGIES = (
    ("LessThanOrEqualToFinalShare",),
    ("LessThanInitialShare",),
    ("LessThanOrEqualToFinalShare", "LessThanInitialShare"),
)


class RequeuingStrategy(Base):
    timestamp: Literal["Eviction", "Creation"] = "Eviction"
    """Which timestamp orders a requeued workload."""
    backoff_limit_count: int | None = Field(default=5, ge=0)
    """Requeues before the workload is deactivated; unset = forever (flagged by GANG503)."""
    backoff_base_seconds: int = Field(default=60, ge=0)
    """First requeue delay in seconds; each further requeue doubles it (plus jitter)."""
    backoff_max_seconds: int = Field(default=3600, ge=0)
    """Upper bound of the requeue delay in seconds."""


class WaitForPodsReady(Base):
    timeout: Duration = COLD_START_FLOOR_SECONDS
    """How long an admitted gang may take to have all pods ready before it is evicted and requeued."""
    recovery_timeout: Duration | None = None
    """How long a running gang may stay below ready after a pod fails; unset = same as timeout."""
    block_admission: bool = False
    """Admit one gang at a time until the previous one is ready."""
    requeuing_strategy: RequeuingStrategy = Field(default_factory=RequeuingStrategy)
    """How an evicted gang is requeued: ordering timestamp, backoff and the requeue limit."""


PreemptionStrategy = Literal["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
"""Kueue's fair-sharing preemption strategies, in the order Kueue applies them."""


class FairSharing(Base):
    preemption_strategies: list[PreemptionStrategy] = Field(default_factory=lambda: list(get_args(PreemptionStrategy)))
    """Fair-sharing preemption strategies: [LessThanOrEqualToFinalShare], [LessThanInitialShare] or both in that order."""


class Admission(Base):
    wait_for_pods_ready: WaitForPodsReady = Field(default_factory=WaitForPodsReady)
    """Kueue waitForPodsReady: evict and requeue a gang that is not fully ready in time."""
    cold_start_floor: Duration = COLD_START_FLOOR_SECONDS
    """Minimum waitForPodsReady.timeout accepted, whatever the pools' budgets (default 10 minutes)."""
    manage_jobs_without_queue_name: bool = True
    """Suspend jobs without a queue label in team namespaces instead of letting them bypass quota."""
    frameworks: list[str] = Field(
        default_factory=lambda: [
            "batch/job",
            "jobset.x-k8s.io/jobset",
            "kubeflow.org/pytorchjob",
            "kubeflow.org/mpijob",
            "trainer.kubeflow.org/trainjob",
            "pod",
        ]
    )
    """Kueue integrations (exact framework names)."""
    fair_sharing: FairSharing | None = None
    """Kueue fair sharing; unset = classic preemption."""
