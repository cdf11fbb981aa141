"""Invariant 2 over the gang contract: a gang group's minimum that an operator derives is reachable.

Called by GANG002 (min-above-replicas), the code of invariant 2. GANG002's own readers judge the
minimums a user writes; this module judges the ones an operator computes itself and writes into the
PodGroup it creates (mpi-operator's workers + 1, the Trainer's sum over every pod set, KubeRay's
1 + workers, LeaderWorkerSet's group size), which no field of the manifest shows. It reads only the
contract (:mod:`gpufleet.workloads.contract`): which pod sets a group counts, which of them exist when
the gang is first scheduled and what the others are created after. No kind is named here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext
from gpufleet.workloads.contract.types import Contract, GangGroup, PodSet
from gpufleet.workloads.types import SPEC


@dataclass(frozen=True)
class Unreachable:
    group: GangGroup
    at_start: int
    late: tuple[PodSet, ...]
    """The member pod sets created only later, each with what it waits for."""
    path: FieldPath


def _members(contract: Contract, group: GangGroup) -> list[PodSet]:
    return [p for p in contract.pod_sets if p.name in group.members]


def unreachable(obj: Mapping[str, Any], ctx: CheckContext) -> list[Unreachable]:
    """Each group whose derived minimum is above the member pods that exist at first scheduling."""
    contract = ctx.run.contract(obj)
    out = []
    for group in contract.groups:
        if group.minimum is None or group.minimum_from.path is not None or group.creator != "operator":
            continue  # a written minimum is GANG002's readers' business
        members = _members(contract, group)
        at_start = sum(p.count for p in members if p.exists_at_start)
        late = tuple(p for p in members if not p.exists_at_start and p.count > 0)
        if group.minimum <= at_start or not late:
            continue
        origin = late[0].created_after[0].origin.path if late[0].created_after else None
        out.append(Unreachable(group, at_start, late, origin or SPEC))
    return out


def message(u: Unreachable) -> tuple[str, str]:
    """The finding's message and fix, from the contract's provenance."""
    waits = "; ".join(
        f"{p.name} ({p.count}) is created only after {', '.join(a.of)} {'is' if len(a.of) == 1 else 'are'} "
        f"{a.condition} ({a.origin})"
        for p in u.late
        for a in p.created_after[:1]
    )
    group = u.group
    text = (
        f"the {group.backend} PodGroup the operator creates asks for {group.minimum} pods ({group.minimum_from}: "
        f"{group.minimum_from.note or 'derived'}), but only {u.at_start} exist when it is first scheduled: {waits}. "
        "The gang can never reach its minimum and stays Pending forever"
    )
    fix = (
        f"create every member at start (change {u.path}), or write the gang minimum explicitly as {u.at_start} "
        "where the operator reads it"
    )
    return text, fix
