"""Read a trial's objects from the sandbox's API server: what :mod:`gpufleet.sandbox.outcome` classifies.

Called by :mod:`gpufleet.sandbox.trial` at every poll. The trial's objects are the
submitted ones (by UID) and what they own, transitively: the batch Jobs a JobSet
creates, the pods of every job, Kueue Workloads, Volcano and scheduler-plugins
PodGroups, and the Warning events about any of these. Kinds the sandbox does not serve
(no JobSet CRD, no scheduler-plugins) are read as none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from gpufleet.sandbox.kube import Kube
from gpufleet.sandbox.outcome import Obj, Observed, uid

WORKLOAD = ("kueue.x-k8s.io/v1beta2", "Workload")
POD_GROUPS = (("scheduling.volcano.sh/v1beta1", "PodGroup"), ("scheduling.x-k8s.io/v1alpha1", "PodGroup"))


@dataclass(frozen=True)
class Ref:
    """A submitted object, as the API server created it."""

    api_version: str
    kind: str
    name: str
    namespace: str | None
    uid: str

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"


def served(kube: Kube, api_version: str, kind: str) -> bool:
    """The sandbox serves this kind (asked once per trial: a miss makes the client rediscover every API group)."""
    try:
        kube.resource(api_version, kind)
    except Exception:  # noqa: BLE001 - ResourceNotFoundError: no such CRD here
        return False
    return True


def _owned(objs: Iterable[Obj], owners: set[str]) -> list[Obj]:
    return [
        o
        for o in objs
        if uid(o) in owners
        or any(r.get("uid") in owners for r in (o.get("metadata") or {}).get("ownerReferences") or [])
    ]


class Watch:
    """The trial's objects, read on demand (every namespace the submitted objects live in)."""

    def __init__(self, kube: Kube, refs: list[Ref]) -> None:
        self.kube, self.refs = kube, refs
        self.spaces = sorted({r.namespace for r in refs if r.namespace})
        self.workloads = served(kube, *WORKLOAD)
        self.pod_groups = [k for k in POD_GROUPS if served(kube, *k)]

    def _list(self, api_version: str, kind: str) -> list[dict[str, Any]]:
        return [o for ns in self.spaces for o in self.kube.list(api_version, kind, ns)]

    def observe(self) -> Observed:
        kube, roots = self.kube, {r.uid for r in self.refs}
        owners = [
            o for r in self.refs if (o := kube.get(r.api_version, r.kind, r.name, r.namespace)) and uid(o) == r.uid
        ]
        jobs = _owned(self._list("batch/v1", "Job"), roots)
        family = roots | {uid(j) for j in jobs}
        pods = _owned(self._list("v1", "Pod"), family)
        workloads = _owned(self._list(*WORKLOAD), family | {uid(p) for p in pods}) if self.workloads else []
        groups = _owned([g for k in self.pod_groups for g in self._list(*k)], family)
        about = family | {uid(o) for o in (*pods, *workloads, *groups)}
        events = [
            e
            for e in self._list("v1", "Event")
            if e.get("type") == "Warning" and (e.get("involvedObject") or {}).get("uid") in about
        ]
        by_uid = {uid(o): o for o in (*owners, *jobs)}
        return Observed(tuple(pods), tuple(workloads), tuple(groups), tuple(by_uid.values()), tuple(events))

    def gone(self) -> bool:
        """None of the submitted objects, nor any pod of theirs, is left."""
        seen = self.observe()
        return not seen.pods and not seen.owners
