"""The gang contract's record: what a workload's controllers will do with it, each fact with its provenance.

One :class:`Contract` per workload object, built by the reader of the upstream controller that owns
its kind (:mod:`gpufleet.workloads.contract.registry`). It is a superset of Kueue's PodSets
(``sigs.k8s.io/kueue v0.19.2 pkg/controller/jobframework/interface.go`` ``GenericJob.PodSets``):
besides the pod sets it records when each is created (stages), the gang groups an operator or the
user writes and where their minimum comes from, the admission unit, what one failed rank sets off
(the failure path, layer by layer), what happens to the survivors of a failed workload, what ends
it, and where its pods may land. The rules are invariants over this record and never branch on a
kind; ``gpufleet predict`` prints it. Standard library only; every type is immutable.

Vocabulary (the JSON form's strings, also in ``docs/schemas/predict.schema.json``):

- roles: ``rank`` (a synchronous member of the gang), ``launcher`` (an MPI launcher: starts the
  ranks, counted in the gang by operators that count it), ``initializer`` (runs to completion before
  the ranks exist), ``submitter`` (a RayJob's submitter), ``sweep`` (independent indexes retried
  alone by design), ``serving`` (long-running replicas that are not a gang);
- rank-failure scopes, narrowest first: ``inPlace`` (the kubelet restarts the container),
  ``pod`` (the pod is replaced alone), ``notReplaced`` (the failed pod stays failed, the others run
  on), ``task`` (one Volcano task), ``childJob`` (one child Job of a JobSet), ``group`` (one
  LeaderWorkerSet group, one Volcano partition), ``whole`` (every pod of the workload), ``stop``
  (the workload fails and stops);
- admission units: ``whole``, ``partial`` (a minimum below the count), ``elastic`` (between
  bounds), ``perPod`` (nothing admits the pods together);
- backends: ``volcano``, ``coscheduling`` (scheduler-plugins), ``kueue``, ``native`` (Kubernetes'
  own Workload and PodGroup), ``none``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from gpufleet.kubetypes.fieldpath import FieldPath

Role = Literal["rank", "launcher", "initializer", "submitter", "sweep", "serving"]
Scope = Literal["inPlace", "pod", "notReplaced", "task", "childJob", "group", "whole", "stop"]
Unit = Literal["whole", "partial", "elastic", "perPod"]
Backend = Literal["volcano", "coscheduling", "kueue", "native", "none"]
Layer = Literal["kubelet", "podController", "operator"]
Condition = Literal["Created", "Scheduled", "Running", "Ready", "Complete", "ClusterReady"]

SCOPES: tuple[Scope, ...] = ("inPlace", "pod", "notReplaced", "task", "childJob", "group", "whole", "stop")
"""Rank-failure scopes, narrowest first (the order :func:`narrowest` compares by)."""
GANG_SCOPES: frozenset[Scope] = frozenset({"whole", "stop"})
"""The scopes that keep a gang whole after one rank fails: all of it restarts, or all of it stops."""


@dataclass(frozen=True)
class Provenance:
    """Where a fact comes from: the field it was read at, or the upstream code that derives it.

    ``path`` is the field a user changes to change the fact (None when the fact is not written
    anywhere); ``derived`` names the upstream function and tag that computes or defaults it
    (``"mpi-operator v0.8.0 pkg/controller/podgroup.go calculateMinAvailable"``); ``note`` says how.
    """

    path: FieldPath | None = None
    derived: str | None = None
    note: str | None = None

    def __str__(self) -> str:
        if self.path is not None and self.derived:
            return f"{self.path} ({self.derived})"
        if self.path is not None:
            return str(self.path)
        return self.derived or "unknown"


UNKNOWN = Provenance()


@dataclass(frozen=True)
class After:
    """A pod set is created once ``of`` (other pod sets of the workload) reach ``condition``."""

    of: tuple[str, ...]
    condition: Condition
    origin: Provenance = UNKNOWN


@dataclass(frozen=True)
class PodSet:
    """One set of identical pods, after the operator's own defaulting and clamping.

    ``count_from`` says where ``count`` comes from; ``gpus_per_pod`` is the sum of the accelerator
    requests of one pod (``gpu_resources`` names them: ``nvidia.com/gpu``, MIG resources, or
    ``dra:<claim>`` for a DRA claim, counted as one device each); ``created_after`` is empty when
    the pods exist when the gang is first scheduled.
    """

    name: str
    role: Role
    count: int
    count_from: Provenance
    template_path: FieldPath | None
    gpus_per_pod: Decimal = Decimal(0)
    gpu_resources: tuple[str, ...] = ()
    created_after: tuple[After, ...] = ()

    @property
    def exists_at_start(self) -> bool:
        return not self.created_after

    @property
    def gpus(self) -> Decimal:
        return self.gpus_per_pod * self.count


@dataclass(frozen=True)
class GangGroup:
    """A group a gang scheduler enforces: a Volcano or scheduler-plugins PodGroup, a Kueue pod group,
    a Kubernetes PodGroup.

    ``creator``: ``user`` (written in the manifest), ``operator``, ``jobController``, ``kueue``;
    ``scope``: ``workload``, ``perGroup`` (one per LeaderWorkerSet group), ``perChildJob``;
    ``members``: the pod sets whose pods join it; ``minimum``: how many of its pods must be placeable
    at once (None when it cannot be read), from ``minimum_from``.
    """

    name: str | None
    backend: Backend
    creator: str
    scope: str
    members: tuple[str, ...]
    minimum: int | None
    minimum_from: Provenance
    queue: str | None = None
    queue_from: Provenance = UNKNOWN


@dataclass(frozen=True)
class Admission:
    """How the workload is admitted: the unit, by which system, and the bounds of a partial or elastic one."""

    unit: Unit
    by: Backend
    minimum: int | None = None
    maximum: int | None = None
    origin: Provenance = UNKNOWN


@dataclass(frozen=True)
class FailureStep:
    """One layer's reaction to a failed rank: the scope it acts on, how many times (None = unbounded)."""

    layer: Layer
    scope: Scope
    bound: int | None
    origin: Provenance


@dataclass(frozen=True)
class RankFailure:
    """What one failed pod of a pod set sets off: the layers in the order they act; the first decides."""

    pod_set: str
    steps: tuple[FailureStep, ...]

    @property
    def first(self) -> FailureStep | None:
        return self.steps[0] if self.steps else None

    @property
    def scope(self) -> Scope:
        return self.steps[0].scope if self.steps else "notReplaced"


@dataclass(frozen=True)
class Terminal:
    """When the workload fails for good: whether the surviving pods are stopped (and free their GPUs).

    ``fix_path``/``fix_value``: where the controller reads the setting that makes it stop the survivors, and the
    value that does (None when no setting of the workload's own does: the reader knows no remedy).
    """

    survivors_stop: bool
    origin: Provenance = UNKNOWN
    fix_path: FieldPath | None = None
    fix_value: object = None


@dataclass(frozen=True)
class Success:
    """What ends the workload successfully: ``criterion`` in words, the pod sets it names, and a count."""

    criterion: str
    targets: tuple[str, ...] = ()
    count: int | None = None
    origin: Provenance = UNKNOWN


@dataclass(frozen=True)
class Placement:
    """Where the pods may land: scheduler per pod set, topology asked for, exclusivity."""

    schedulers: tuple[tuple[str, str | None], ...] = ()
    topology: str | None = None
    exclusive_topology: str | None = None
    origin: Provenance = UNKNOWN


@dataclass(frozen=True)
class Contract:
    """What the controllers of one workload object will do with it (see the module docstring).

    ``reader`` names the upstream controller, file and tag the reader follows; ``known`` is False
    for a kind no reader covers (every other field is then empty, and rules report it as unknown).
    """

    api_version: str
    kind: str
    name: str | None
    namespace: str | None
    reader: str
    known: bool = True
    pod_sets: tuple[PodSet, ...] = ()
    groups: tuple[GangGroup, ...] = ()
    admission: Admission = Admission("perPod", "none")
    rank_failures: tuple[RankFailure, ...] = ()
    terminal: Terminal = Terminal(True)
    success: Success = Success("all pods succeed")
    placement: Placement = Placement()
    notes: tuple[str, ...] = field(default=())

    @property
    def ranks(self) -> tuple[PodSet, ...]:
        """The pod sets that are synchronous members of the gang (ranks and counted launchers)."""
        return tuple(p for p in self.pod_sets if p.role in ("rank", "launcher"))

    @property
    def rank_count(self) -> int:
        return sum(p.count for p in self.ranks)

    @property
    def ranks_at_start(self) -> int:
        """Ranks whose pods exist when the gang is first scheduled."""
        return sum(p.count for p in self.ranks if p.exists_at_start)

    @property
    def is_gang(self) -> bool:
        """Two or more synchronous ranks."""
        return self.rank_count >= 2

    def pod_set(self, name: str) -> PodSet | None:
        return next((p for p in self.pod_sets if p.name == name), None)

    @property
    def on_rank_failure(self) -> RankFailure | None:
        """The narrowest reaction among the rank pod sets (the one that breaks a gang first)."""
        ranks = {p.name for p in self.ranks}
        failures = [f for f in self.rank_failures if f.pod_set in ranks]
        return min(failures, key=lambda f: SCOPES.index(f.scope), default=None)


def narrowest(scopes: list[Scope]) -> Scope | None:
    return min(scopes, key=SCOPES.index, default=None)
