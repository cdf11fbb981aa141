"""The operator profile: the settings of the workload operators a cluster runs that change what they do with a job.

Part of the fleet context (:class:`gpufleet.fleetctx.context.FleetContext.operators`), rendered from the
model's ``workloadOperators`` section. The gang contract's readers (:mod:`gpufleet.workloads.contract`)
read it: the same MPIJob is a gang under ``mpi-operator --gang-scheduling=volcano`` and none without it.
Every default here is the operator's own default at the version the project pins, so a context that does
not say (an older digest, or a model without the section) reads each operator as upstream ships it.
Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

NO_GANG = ""
"""An operator's gang-scheduling setting when it creates no PodGroup (every operator's default)."""


@dataclass(frozen=True)
class OperatorSettings:
    """One operator as the cluster runs it.

    ``installed``: whether the cluster runs it (None = unknown: the readers still read its kinds, as a
    cluster that runs it would). ``version``: the tag it follows. ``gang_scheduler``: the gang backend it
    writes PodGroups for (``volcano``, ``scheduler-plugins``; :data:`NO_GANG` for none): mpi-operator
    ``--gang-scheduling``, training-operator ``--gang-scheduler-name``, LeaderWorkerSet
    ``gangSchedulingManagement.schedulerProvider``, KubeRay ``batchScheduler``. ``feature_gates``: the
    gates turned on (JobSet ``RestartJob``, ``InPlaceRestart``; KubeRay ``RayMultiHostIndexing``).
    """

    installed: bool | None = None
    version: str | None = None
    gang_scheduler: str = NO_GANG
    feature_gates: frozenset[str] = frozenset()

    @property
    def gangs(self) -> bool:
        return bool(self.gang_scheduler)


OPERATORS = ("jobset", "leaderworkerset", "mpiOperator", "trainer", "trainingOperator", "kuberay")
"""The operators the profile knows, by their key in the model's ``workloadOperators`` and the context."""


@dataclass(frozen=True)
class OperatorProfile:
    """The settings of every operator the contract readers consult (upstream defaults when not said)."""

    by_name: Mapping[str, OperatorSettings] = field(default_factory=dict)

    def get(self, name: str) -> OperatorSettings:
        """``name``'s settings (a key of :data:`OPERATORS`), or the upstream defaults."""
        return self.by_name.get(name) or OperatorSettings()

    @classmethod
    def from_dict(cls, data: Any) -> OperatorProfile:
        """Read the context's ``workloadOperators`` map leniently (unknown keys and bad values ignored)."""
        if not isinstance(data, Mapping):
            return NO_PROFILE
        out: dict[str, OperatorSettings] = {}
        for name in OPERATORS:
            raw = data.get(name)
            if not isinstance(raw, Mapping):
                continue
            gates = raw.get("featureGates")
            out[name] = OperatorSettings(
                installed=raw.get("installed") if isinstance(raw.get("installed"), bool) else None,
                version=str(raw["version"]) if isinstance(raw.get("version"), str) else None,
                gang_scheduler=str(raw.get("gangScheduler") or NO_GANG),
                feature_gates=frozenset(str(g) for g in gates) if isinstance(gates, list) else frozenset(),
            )
        return cls(out)


NO_PROFILE = OperatorProfile()
