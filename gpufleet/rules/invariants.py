"""The gang invariants: the dozen properties every gang workload must hold, and the rule codes that check each.

The one table of which rule code checks which invariant. Read by ``gpufleet predict`` (through
:mod:`gpufleet.lint.predict`: each invariant of an object holds unless a finding with one of its
codes says otherwise) and by the docs (``docs/predict.md`` lists the table). A rule's code stays
what it is: a finding of GANG001 reads "invariant 3 (sufficient minimum) is violated in this way".

Where a code could be read under two invariants (GANG403 and GANG405 check both capacity and
co-placement), it belongs to exactly one here: GANG403 (a gang larger than its pools) to
capacity, GANG405 (a required topology domain too small) to co-placement. GANG005 (a Volcano
partition minimum below its partitions) is a sufficient-minimum check. Codes that check no gang
invariant (schema, probes, queue naming, platform settings) are in none: :func:`invariant_of`
answers None for them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Invariant:
    """One invariant: its number, short name, what it says, and the rule codes that check it."""

    number: int
    name: str
    statement: str
    codes: tuple[str, ...]


INVARIANTS: tuple[Invariant, ...] = (
    Invariant(
        1,
        "whole placement",
        "a gang is covered by one group or admission unit that takes all its ranks at once, unless it opts into elasticity",
        ("GANG101", "GANG102", "GANG106"),
    ),
    Invariant(
        2,
        "reachable minimum",
        "every group's minimum is at most the member pods that exist when it is first scheduled",
        ("GANG002", "GANG803"),
    ),
    Invariant(
        3,
        "sufficient minimum",
        "every non-elastic group's minimum is at least its ranks that exist when it is first scheduled",
        ("GANG001", "GANG005", "GANG802"),
    ),
    Invariant(
        4,
        "consistent membership",
        "each rank joins exactly one group, that group exists, and a scheduler that enforces it receives the pods",
        ("GANG109", "GANG801", "GANG805", "GANG806"),
    ),
    Invariant(
        5,
        "restart scope is the gang",
        "one failed rank restarts or stops the whole gang, and no lower layer acts first",
        ("GANG201", "GANG202", "GANG204", "GANG205", "GANG206"),
    ),
    Invariant(6, "survivors stop", "when the gang fails for good, no rank keeps its GPUs", ("GANG208",)),
    Invariant(
        7,
        "bounded whole restarts",
        "whole-gang restarts are bounded, and per-pod retries do not use up the budget",
        ("GANG203",),
    ),
    Invariant(
        8,
        "success needs the gang",
        "the success criterion counts only ranks that exist, and the targets it names exist",
        ("GANG004",),
    ),
    Invariant(
        9,
        "capacity",
        "each group's GPUs fit the pools its placement reaches, each pod fits a node, and minResources match",
        ("GANG003", "GANG401", "GANG402", "GANG403", "GANG404"),
    ),
    Invariant(
        10,
        "co-placement",
        "all pod sets of a group can land in one pool or topology domain, and an exclusive domain holds its pods",
        ("GANG405", "GANG807"),
    ),
    Invariant(11, "preemption unit is the gang", "a gang is preempted whole or not at all", ("GANG207", "GANG505")),
    Invariant(12, "one admitting system", "one system admits the gang", ("GANG107", "GANG108")),
)

_BY_CODE: dict[str, Invariant] = {code: inv for inv in INVARIANTS for code in inv.codes}


def invariant_of(code: str) -> Invariant | None:
    """The invariant rule ``code`` checks, or None when it checks none."""
    return _BY_CODE.get(code)
