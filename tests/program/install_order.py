"""The order in which Pulumi would create a program's resources, from the graph the mocks record.

A resource waits for (a) every URN in its recorded ``dependencies`` (``depends_on``
plus input dependencies) and (b) its parent: the Python SDK sends a child's
RegisterResource only with its parent's URN, and a parent registers only after its
own ``depends_on`` resolved, which for custom resources means created (the engine
answers RegisterResource after the step, outputs included; a Chart v4 component
answers after its rendered children, awaited). So a resource is created after the
effective dependencies of all its ancestors. ``creation_order`` returns one
topological order (Kahn, in registration order for ties); every order Pulumi may
pick satisfies the same edges, which is what the tests check. Deletion runs the
recorded ``dependencies`` in reverse (parents are not consulted), so a check about
destroy order must use ``dependencies`` alone.
"""

from __future__ import annotations

from typing import Any


def edges(resources: list[dict[str, Any]]) -> dict[str, set[str]]:
    """URN -> URNs that must be created before it (recorded dependencies and the parent)."""
    urns = {r["urn"] for r in resources}
    out: dict[str, set[str]] = {}
    for r in resources:
        wanted = set(r["dependencies"]) | ({r["parent"]} if r["parent"] else set())
        out[r["urn"]] = {u for u in wanted if u in urns}
    return out


def ancestors_closure(resources: list[dict[str, Any]]) -> dict[str, set[str]]:
    """URN -> every URN created before it, transitively."""
    direct = edges(resources)
    memo: dict[str, set[str]] = {}

    def walk(urn: str, stack: tuple[str, ...] = ()) -> set[str]:
        if urn in memo:
            return memo[urn]
        if urn in stack:
            raise ValueError(f"dependency cycle through {urn}")
        found: set[str] = set()
        for dep in direct[urn]:
            found |= {dep} | walk(dep, (*stack, urn))
        memo[urn] = found
        return found

    for r in resources:
        walk(r["urn"])
    return memo


def creation_order(resources: list[dict[str, Any]]) -> list[str]:
    """One order Pulumi could create the resources in; raises on a cycle."""
    pending = {u: set(d) for u, d in edges(resources).items()}
    order: list[str] = []
    ready = [r["urn"] for r in resources if not pending[r["urn"]]]
    while ready:
        urn = ready.pop(0)
        order.append(urn)
        for other in [r["urn"] for r in resources]:
            if urn in pending[other]:
                pending[other].discard(urn)
                if not pending[other] and other not in order and other not in ready:
                    ready.append(other)
    if len(order) != len(resources):
        raise ValueError(f"dependency cycle among {sorted(set(pending) - set(order))}")
    return order
