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


def _list(kube: Kube, api_version: str, kind: str, namespace: str | None) -> list[dict[str, Any]]:
    try:
        return kube.list(api_version, kind, namespace)
    except Exception:  # noqa: BLE001 - a kind the sandbox does not serve (ResourceNotFoundError) is none
        return []


def _owned(objs: Iterable[Obj], owners: set[str]) -> list[Obj]:
    return [o for o in objs if uid(o) in owners or
            any(r.get("uid") in owners for r in (o.get("metadata") or {}).get("ownerReferences") or [])]


def observe(kube: Kube, refs: list[Ref]) -> Observed:
    """The trial's objects now (every namespace the submitted objects live in)."""
    spaces = sorted({r.namespace for r in refs if r.namespace})
    roots = {r.uid for r in refs}
    owners = [o for r in refs if (o := kube.get(r.api_version, r.kind, r.name, r.namespace)) and uid(o) == r.uid]
    jobs = _owned((j for ns in spaces for j in _list(kube, "batch/v1", "Job", ns)), roots)
    family = roots | {uid(j) for j in jobs}
    pods = _owned((p for ns in spaces for p in _list(kube, "v1", "Pod", ns)), family)
    workloads = _owned((w for ns in spaces for w in _list(kube, *WORKLOAD, ns)), family | {uid(p) for p in pods})
    groups = _owned((g for ns in spaces for api, kind in POD_GROUPS for g in _list(kube, api, kind, ns)), family)
    about = family | {uid(o) for o in (*pods, *workloads, *groups)}
    events = [e for ns in spaces for e in _list(kube, "v1", "Event", ns)
              if e.get("type") == "Warning" and (e.get("involvedObject") or {}).get("uid") in about]
    by_uid = {uid(o): o for o in (*owners, *jobs)}
    return Observed(tuple(pods), tuple(workloads), tuple(groups), tuple(by_uid.values()), tuple(events))


def gone(kube: Kube, refs: list[Ref]) -> bool:
    """None of the submitted objects, nor any pod of theirs, is left."""
    seen = observe(kube, refs)
    return not seen.pods and not seen.owners
