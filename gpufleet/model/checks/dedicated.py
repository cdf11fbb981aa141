"""Static partitioning: a pool dedicated to one team (``pools[].dedicatedTo``).

A dedicated pool is the premise's last row: one team per node pool, chosen only when
isolation is a compliance requirement. Its nodes carry the label and the NoExecute
taint ``gpufleet.dev/dedicated=<team>`` (NoExecute, not NoSchedule: kubelet admits a pod
with ``spec.nodeName`` checking only NoExecute taints, so NoSchedule alone lets such a pod
on; docs/architecture.md "Static partitioning: the guarantee"); the team's workloads get the matching
toleration and node selector (Kueue adds a flavor's tolerations at admission; the
admission controller adds both where absent, ``gpufleet.mutate.partition``). This
check rejects everything that would let another team reach the pool:

- ``dedicatedTo`` naming no team, or a team with no quota on the pool;
- the label, the taint, or (Kueue pools) the flavor toleration missing;
- another team's quota on the pool, or a cohort's (a cohort quota is shared);
- the owner lending or borrowing it: in a cohort, ``lendingLimit: 0`` and
  ``borrowingLimit: 0`` are required on the pool (Kueue lends unused nominal quota by default).

Namespaces shared between teams are rejected for every team by ``checks.namespaces``.
Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import DEDICATED_KEY
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.yamlin.errors import Issue


def _marks(base: FieldPath, pool: Pool, team: str) -> Iterator[Issue]:
    if pool.node_labels.get(DEDICATED_KEY) != team:
        yield Issue(
            base.child("nodeLabels"),
            f"dedicated pool {pool.name!r} does not select nodes labelled {DEDICATED_KEY}={team}",
            f"add '{DEDICATED_KEY}: {team}' to nodeLabels (and label the node pool so)",
        )
    mine = [t for t in pool.taints if t.key == DEDICATED_KEY and t.value == team]
    if not any(t.effect == "NoExecute" for t in mine):
        weak = (
            f" (only {', '.join(sorted({t.effect for t in mine}))}: kubelet checks only NoExecute taints, so a pod "
            "with spec.nodeName skips it)"
            if mine
            else ""
        )
        yield Issue(
            base.child("taints"),
            f"dedicated pool {pool.name!r} has no NoExecute taint {DEDICATED_KEY}={team}{weak}: "
            "other teams' pods can land on it",
            f"add {{key: {DEDICATED_KEY}, value: {team}, effect: NoExecute}} to taints (and taint the node pool so)",
        )
    if pool.system == "kueue" and not any(
        t.key == DEDICATED_KEY and (t.operator == "Exists" or t.value == team) and t.effect in (None, "", "NoExecute")
        for t in pool.tolerations
    ):
        yield Issue(
            base.child("tolerations"),
            f"dedicated Kueue pool {pool.name!r} gives admitted pods no toleration for its NoExecute taint",
            f"add {{key: {DEDICATED_KEY}, operator: Equal, value: {team}, effect: NoExecute}} to tolerations",
        )


def _owners(fleet: Fleet, i: int, pool: Pool, team: str) -> Iterator[Issue]:
    for t, other in enumerate(fleet.teams):
        q = other.quota.get(pool.name)
        if q is None:
            continue
        path = FieldPath.of("teams", t, "quota", pool.name)
        if other.name != team:
            yield Issue(
                path,
                f"pool {pool.name!r} is dedicated to team {team!r}; team {other.name!r} may hold no quota on it",
                f"remove quota.{pool.name} from team {other.name!r}, or drop pools[{i}].dedicatedTo",
            )
        elif other.cohort:
            for field, value in (("lendingLimit", q.lending_limit), ("borrowingLimit", q.borrowing_limit)):
                if value != 0:
                    yield Issue(
                        path.child(field),
                        f"team {team!r} is in cohort {other.cohort!r}: without {field}: 0 its dedicated "
                        f"pool {pool.name!r} is {'lent to' if field == 'lendingLimit' else 'topped up from'} the cohort",
                        f"set {field}: 0 on quota.{pool.name}",
                    )
    yield from cohort_quota(
        fleet, pool, f"pool {pool.name!r} is dedicated to team {team!r}; a cohort's quota on it is shared"
    )


def cohort_quota(fleet: Fleet, pool: Pool, message: str) -> Iterator[Issue]:
    """One issue per cohort holding quota on a pool that must stay one team's (also used by checks.coscheduling)."""
    for c, cohort in enumerate(fleet.cohorts):
        if pool.name in cohort.quota:
            yield Issue(
                FieldPath.of("cohorts", c, "quota", pool.name),
                message,
                f"remove quota.{pool.name} from cohort {cohort.name!r}",
            )


def check(fleet: Fleet) -> Iterable[Issue]:
    teams = {t.name: t for t in fleet.teams}
    for i, pool in enumerate(fleet.pools):
        team = pool.dedicated_to
        if team is None:
            continue
        base = FieldPath.of("pools", i)
        if team not in teams:
            yield Issue(
                base.child("dedicatedTo"), f"no team named {team!r}", f"use one of: {', '.join(teams) or '(no teams)'}"
            )
            continue
        if pool.name not in teams[team].quota:
            yield Issue(
                base.child("dedicatedTo"),
                f"team {team!r} holds no quota on its dedicated pool {pool.name!r}",
                f"give team {team!r} quota.{pool.name} (up to the pool's {pool.capacity} GPUs)",
            )
        yield from _marks(base, pool, team)
        yield from _owners(fleet, i, pool, team)
