"""Volcano's queue admission webhook, as a pure function over the queues the cluster holds.

Emulates ``AdmitQueues`` of ``pkg/webhooks/admission/queues/validate/validate_queue.go``
at volcano-sh/volcano **v1.15.1** with the webhook manager's defaults
(``cmd/webhook-manager/app/options/options.go``: ``--max-queue-depth=5``,
``--enable-root-queue-protection=true``, ``--enable-queue-allocated-pods-check=false``):

- CREATE/UPDATE: ``validateResourceQuantityOfQueue`` (no negative quantity; per resource
  guarantee ≤ deserved, a guaranteed resource missing from deserved is an error;
  deserved ≤ capability where capability names it), ``validateStateOfQueue``;
- on CREATE or a changed ``parent``: ``validateHierarchicalQueue`` (not its own parent,
  depth, the parent must exist);
- root protection on UPDATE of ``root``;
- on CREATE, or an UPDATE that changes parent/capability/deserved/guarantee
  (``needsValidateHierarchicalQueue``): ``validateHierarchicalQueueResources``:
  capability ≤ the nearest capped ancestor's, Σ siblings' guarantee and deserved ≤ the
  parent's (``LessPartly`` with ``Zero``: a resource the parent lacks counts as 0), and
  for a queue with children: capability ≥ every descendant's, Σ children ≤ its own;
- DELETE: ``validateQueueDeleting`` (not ``default``/``root``, must exist, no children).

Queues are plain manifests keyed by name; ``status.allocated.pods`` is read when
present. ``gpufleet diff`` knows no status (nothing is read from a cluster), so there the
allocated-pods checks see none.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Mapping

from gpufleet.kubetypes import quantity

Queues = Mapping[str, Mapping[str, Any]]
MAX_DEPTH = 5


def _res(resources: Mapping[str, Any] | None) -> dict[str, Decimal]:
    return {k: quantity.parse(v) for k, v in (resources or {}).items()}


def _spec(q: Mapping[str, Any]) -> Mapping[str, Any]:
    return q.get("spec") or {}


def _guarantee(q: Mapping[str, Any]) -> dict[str, Decimal]:
    return _res((_spec(q).get("guarantee") or {}).get("resource"))


def _parent(q: Mapping[str, Any]) -> str:
    return _spec(q).get("parent") or ""


def _less_partly(parent: dict[str, Decimal], total: dict[str, Decimal]) -> bool:
    """``Resource.LessPartly(rr, Zero)`` (pkg/scheduler/api/resource_info.go): any dimension below."""
    zero = Decimal(0)
    for name in ("cpu", "memory"):
        if parent.get(name, zero) < total.get(name, zero):
            return True
    if any(n not in parent for n in total if n not in ("cpu", "memory")):
        return True  # a scalar the parent does not name, even at 0
    return any(parent[n] < total.get(n, zero) for n in parent if n not in ("cpu", "memory"))


def _quantities(q: Mapping[str, Any]) -> list[str]:
    spec, errors = _spec(q), []
    for field, values in (
        ("capability", _res(spec.get("capability"))),
        ("deserved", _res(spec.get("deserved"))),
        ("guarantee.resource", _guarantee(q)),
    ):
        errors += [f"spec.{field}.{r} must be greater than or equal to 0" for r, v in values.items() if v < 0]
    deserved, capability = _res(spec.get("deserved")), _res(spec.get("capability"))
    for r, g in _guarantee(q).items():
        if r not in deserved:
            errors.append(f"deserved[{r}] must be >= guarantee[{r}]={g}")
        elif deserved[r] < g:
            errors.append(f"deserved[{r}]={deserved[r]} must be >= guarantee[{r}]={g}")
    if deserved and capability:
        errors += [
            f"deserved[{r}]={d} must be <= capability[{r}]={capability[r]}"
            for r, d in deserved.items()
            if r in capability and d > capability[r]
        ]
    return errors


def _hierarchy(q: Mapping[str, Any], name: str, queues: Queues) -> list[str]:
    parent = _parent(q)
    if parent in ("", "root"):
        return []
    if parent == name:
        return [f"queue {name} cannot use itself as parent"]
    depth, cur = 1, parent
    while cur not in ("", "root"):
        depth += 1
        if depth > MAX_DEPTH:
            return [f"queue {name} exceeds the maximum allowed depth of {MAX_DEPTH}"]
        if cur not in queues:
            return [
                f"failed to get parent queue {cur} of queue {name}: queue.scheduling.volcano.sh \"{cur}\" not found"
            ]
        cur = _parent(queues[cur])
    if parent not in queues:
        return [f"failed to get parent queue of queue {name}: queue.scheduling.volcano.sh \"{parent}\" not found"]
    pods = _allocated_pods(queues[parent])
    if not _children(parent, queues) and pods:
        return [f"queue {parent} cannot be the parent queue of queue {name} because it has allocated Pods: {pods}"]
    return []


def _allocated_pods(q: Mapping[str, Any]) -> int:
    return int(quantity.parse(((q.get("status") or {}).get("allocated") or {}).get("pods", "0")))


def children_index(queues: Queues) -> dict[str, list[str]]:
    """Parent name -> the names of its child queues."""
    index: dict[str, list[str]] = {}
    for n, q in queues.items():
        index.setdefault(_parent(q), []).append(n)
    return index


def _children(name: str, queues: Queues) -> list[str]:
    index = _INDEX[0] if _INDEX else children_index(queues)
    return list(index.get(name, ()))


_INDEX: list[dict[str, list[str]]] = []  # the parent index of the queues the current admit() call reads


def _ancestor_cap(q: Mapping[str, Any], res: str, queues: Queues) -> Decimal | None:
    cur = _parent(q)
    while cur not in ("", "root"):
        if cur not in queues:
            return None
        value = _res(_spec(queues[cur]).get("capability")).get(res, Decimal(0))
        if value > 0:
            return value
        cur = _parent(queues[cur])
    return None


def _subtree_max_cap(name: str, q: Mapping[str, Any], res: str, queues: Queues) -> Decimal:
    own = _res(_spec(q).get("capability")).get(res, Decimal(0))
    if own > 0:
        return own
    return max((_subtree_max_cap(c, queues[c], res, queues) for c in _children(name, queues)), default=Decimal(0))


def _sum_check(parent_name: str, parent: Mapping[str, Any], members: list[Mapping[str, Any]], label: str) -> list[str]:
    pg, pd = _guarantee(parent), _res(_spec(parent).get("deserved"))
    tg: dict[str, Decimal] = {}
    td: dict[str, Decimal] = {}
    for member in members:
        for r, v in _guarantee(member).items():
            tg[r] = tg.get(r, Decimal(0)) + v
        if _less_partly(pg, tg):
            return [
                f"{label} {parent_name} validation failed: sum of children's guarantee ({_fmt(tg)}) exceeds parent's guarantee limit ({_fmt(pg)})"
            ]
        for r, v in _res(_spec(member).get("deserved")).items():
            td[r] = td.get(r, Decimal(0)) + v
        if _less_partly(pd, td):
            return [
                f"{label} {parent_name} validation failed: sum of children's deserved ({_fmt(td)}) exceeds parent's deserved limit ({_fmt(pd)})"
            ]
    return []


def _fmt(values: Mapping[str, Decimal]) -> str:
    return ", ".join(f"{k} {quantity.fmt(v)}" for k, v in sorted(values.items())) or "empty"


def _resources(q: Mapping[str, Any], name: str, queues: Queues) -> list[str]:
    parent = _parent(q)
    if parent not in ("", "root"):
        if parent not in queues:
            return [f"parent queue {parent} not found"]
        for r, v in _res(_spec(q).get("capability")).items():
            limit = _ancestor_cap(q, r, queues)
            if limit is not None and v > limit:
                return [f"queue {name} capability[{r}]={v} exceeds its ancestor's capability={limit}"]
        siblings = [queues[s] for s in _children(parent, queues) if s != name]
        errors = _sum_check(parent, queues[parent], [*siblings, q], "parent queue")
        if errors:
            return errors
    children = [c for c in _children(name, queues) if c != name]
    if not children:
        return []
    for r, v in _res(_spec(q).get("capability")).items():
        child_max = max((_subtree_max_cap(c, queues[c], r, queues) for c in children), default=Decimal(0))
        if v < child_max:
            return [f"queue {name} capability[{r}]={v} is smaller than its descendants' max capability={child_max}"]
    return _sum_check(name, q, [queues[c] for c in children], "queue")


def _quota(q: Mapping[str, Any]) -> tuple:
    s = _spec(q)
    return (_parent(q), _res(s.get("capability")), _res(s.get("deserved")), _guarantee(q))


def admit(
    operation: str,
    name: str,
    new: Mapping[str, Any] | None,
    old: Mapping[str, Any] | None,
    queues: Queues,
    allocated_pods_check: bool = False,
    children: dict[str, list[str]] | None = None,
) -> list[str]:
    """The webhook's rejection messages for CREATE, UPDATE or DELETE of queue ``name`` ([] = allowed).

    ``queues`` is the cluster's state before the request (it may contain ``old``);
    ``allocated_pods_check`` is ``--enable-queue-allocated-pods-check`` (off by default);
    ``children`` is :func:`children_index` of ``queues`` when the caller keeps one.
    """
    _INDEX[:] = [children if children is not None else children_index(queues)]
    try:
        if operation == "DELETE":
            return _delete(name, queues, allocated_pods_check)
        assert new is not None
        return _change(operation, name, new, old, queues)
    finally:
        _INDEX.clear()


def _delete(name: str, queues: Queues, allocated_pods_check: bool) -> list[str]:
    """DELETE of queue ``name``: the first of the webhook's refusals that applies, or none."""
    if name in ("default", "root"):
        return [f"`{name}` queue can not be deleted"]
    if name not in queues:
        return [f"queue.scheduling.volcano.sh \"{name}\" not found"]
    pods = _allocated_pods(queues[name])
    if allocated_pods_check and pods:
        return [f"queue {name} cannot be deleted because it has allocated Pods: {pods}"]
    children = _children(name, queues)
    return (
        [f"queue {name} can not be deleted because it has {len(children)} child queues: {', '.join(children)}"]
        if children
        else []
    )


def _change(
    operation: str, name: str, new: Mapping[str, Any], old: Mapping[str, Any] | None, queues: Queues
) -> list[str]:
    """CREATE or UPDATE of queue ``name`` to ``new``."""
    errors = _quantities(new)
    state = (new.get("status") or {}).get("state")
    if state and state not in ("Open", "Closed"):
        errors.append("queue state must be in [Open Closed]")
    if errors:
        return errors
    if operation == "CREATE" or _parent(old or {}) != _parent(new):
        errors = _hierarchy(new, name, queues)
        if errors:
            return errors
    if operation == "UPDATE" and name == "root" and old is not None and _quota(old)[1:] != _quota(new)[1:]:
        return ["root queue's resource attributes (capability, deserved, guarantee) cannot be modified"]
    if name != "root" and (operation == "CREATE" or old is None or _quota(old) != _quota(new)):
        return _resources(new, name, queues)
    return []
