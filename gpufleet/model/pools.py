"""Node pools: the physical GPU capacity of a fleet.

A pool is a set of identical nodes (labels, taints, per-node allocatable). Each pool
is held by exactly one system, Kueue, Volcano, the coscheduling plugin (a second
scheduler) or Kubernetes' own gang scheduling (``native``), so that no GPU is ever counted by two; ``dedicatedTo`` partitions it
statically for one team (``gpufleet.model.checks.dedicated``). Kueue pools become ResourceFlavors (and a Topology when topology
levels are given); Volcano pools become the capacity behind the Volcano queues.
Read by the validators, the renderers and the plan.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field

from gpufleet.kubetypes.vocab import NVIDIA_GPU
from gpufleet.model.base import Base, Duration, Name, Quantity


class Taint(Base):
    key: str = Field(min_length=1, max_length=316)
    """Taint key, a qualified name (``nvidia.com/gpu``)."""
    value: str | None = None
    """Taint value (a label value: at most 63 characters)."""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"
    """What happens to pods that do not tolerate the taint."""


class Toleration(Base):
    key: str | None = None
    """Taint key the toleration matches; empty with operator Exists tolerates everything."""
    operator: Literal["Equal", "Exists"] = "Equal"
    """Equal matches key and value; Exists matches the key with any value (and takes no value)."""
    value: str | None = None
    """Taint value to match with operator Equal."""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = None
    """Taint effect to match; unset matches every effect."""
    toleration_seconds: int | None = None
    """How long a pod stays bound after a NoExecute taint appears (NoExecute only)."""


class Pool(Base):
    name: Name
    """Pool name; also the Kueue ResourceFlavor name (and Topology name) for Kueue pools."""
    system: Literal["kueue", "volcano", "coscheduling", "native"]
    """Which system holds this pool: Kueue or Volcano quota, the scheduler-plugins coscheduling
    second scheduler, or Kubernetes' own gang scheduling (``native``: kube-scheduler's GangScheduling
    plugin and the Job controller's PodGroups, no second scheduler); the last two are one team's pool
    without quota objects. A pool is never counted by two systems."""
    placement: Literal["per-pod", "native"] = "per-pod"
    """How a Kueue pool's admitted gangs are placed: ``per-pod`` (kube-scheduler binds pod by pod;
    waitForPodsReady evicts a gang that does not start whole) or ``native`` (Kueue admits, kube-scheduler's
    GangScheduling plugin binds the gang all or nothing; needs ``kubernetes`` 1.36+ with GenericWorkload
    and WorkloadWithJob). Only for ``system: kueue``."""
    node_count: int = Field(ge=0)
    """Number of nodes in the pool."""
    allocatable: dict[str, Quantity] = Field(min_length=1)
    """Per-node allocatable resources (``nvidia.com/gpu: 8``, ``cpu: 192``, ``memory: 1800Gi``, ``rdma/ib: 8``)."""
    gpu_resource: str = NVIDIA_GPU
    """The resource that team quota on this pool is counted in; other resources follow the node shape."""
    node_labels: dict[str, str] = Field(default_factory=dict)
    """Labels that select this pool's nodes (at most 8 for a Kueue ResourceFlavor)."""
    taints: list[Taint] = Field(default_factory=list)
    """Taints on the pool's nodes (Kueue ResourceFlavor nodeTaints)."""
    tolerations: list[Toleration] = Field(default_factory=list)
    """Tolerations Kueue adds to pods admitted to this pool."""
    topology_levels: list[str] = Field(default_factory=list)
    """Node labels from the widest to the narrowest domain (block, rack, host) for Kueue topology-aware admission."""
    cold_start_budget: Duration | None = None
    """Slowest realistic image pull plus rendezvous on this pool; waitForPodsReady.timeout must cover it."""
    dedicated_to: Name | None = None
    """Static partitioning: the one team this pool is dedicated to (its nodes carry the label and
    NoSchedule taint gpufleet.dev/dedicated=<team>; no other team, cohort, borrowing or lending)."""
    startup_budget: Duration | None = None
    """How long a gang on this pool may run without reaching step 1 before GangNoFirstStep fires;
    unset = coldStartBudget (or admission.coldStartFloor) + observability.rendezvousAllowance."""

    def per_node(self, resource: str) -> Decimal:
        return self.allocatable.get(resource, Decimal(0))

    @property
    def gpus_per_node(self) -> Decimal:
        return self.per_node(self.gpu_resource)

    @property
    def capacity(self) -> Decimal:
        """Total units of the quota resource in the pool (nodes x per-node allocatable)."""
        return self.gpus_per_node * self.node_count
