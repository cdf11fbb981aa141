"""``RunIndex``: the objects of one run and what the rules derive from them, each built once.

A *run* is what one adapter checks together: the linter's file set, the policy pack's
stack, one admission review (one object). The engine (``gpufleet.rules.engine``) gives
every rule the run's index as ``ctx.run``; the adapters build one per run
(``CheckContext(objects=...)`` does) and never share it between runs, so nothing here
is a module global and nothing needs a lock: a run is used by one thread at a time, and a
context kept across runs and threads (the webhook's, with no objects) is only read, since
the engine checks each review in a :meth:`RunIndex.scoped` copy.

- ``run.view(obj)``: the workload view of an object, built once per run (also for the
  object being checked when it is not among ``objects``: the engine scopes such checks,
  :meth:`RunIndex.scoped`, so a long-lived context never collects them);
- ``run.views``, ``run.members(ns, group)``, ``run.member_pods(ns, group)``: the run's
  views and its pod groups (PodGroup / Kueue pod-group membership, GANG001-003);
- ``run.names``: the run's objects by API group, kind, namespace and name
  (:class:`~gpufleet.workloads.names.NameIndex`, built once per run: GANG106 follows a
  TrainJob's runtime, GANG107 a Volcano PodGroup through it), so no rule scans the run's
  objects per object;
- ``run.derived(build)``: a value derived from the whole run (a rule family's cross-object
  index, e.g. GANG504's PriorityClass users), built once by the function ``build`` that
  defines it, typed by that function;
- ``run.derived_for(obj, build, ctx)``: a value derived from one object's view, built once
  per object and run by the function ``build`` (GANG001/002's gang minimums);
- ``run.subject(obj).demands``: the one per-object record of derived values, what each
  pod template asks for and where it may land (:class:`TemplateDemand`, built by
  ``gpufleet.rules.demands.demands``, read by GANG106/402/403).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Mapping, Sequence, TypeVar

from gpufleet.fleetctx.context import FleetContext, PoolContext
from gpufleet.fleetctx.operators import NO_PROFILE
from gpufleet.util.quickinit import quick_init
from gpufleet.workloads import PodTemplate, WorkloadView, build_view
from gpufleet.workloads.contract.registry import Run as ContractRun
from gpufleet.workloads.contract.registry import read as read_contract
from gpufleet.workloads.contract.types import Contract
from gpufleet.workloads.names import NameIndex

T = TypeVar("T")
Objects = tuple[Mapping[str, Any], ...]


@quick_init
@dataclass(frozen=True)
class TemplateDemand:
    """One pod template's effective requests (every resource it names, in name order) and candidate pools."""

    template: PodTemplate
    requests: Mapping[str, Decimal]
    pools: tuple[PoolContext, ...]
    how: str
    """How the pools were chosen, for messages (``selected by its node selector``...)."""


@dataclass(eq=False)
class Subject:
    """One object of a run: its workload view and the values derived from it (filled on first use)."""

    obj: Mapping[str, Any]
    view: WorkloadView | None
    demands: Mapping[int, TemplateDemand] | None = None
    """``{id(template): demand}`` for the view's templates (the view keeps them alive)."""
    memo: dict[Callable[..., Any], Any] | None = None
    """Values :meth:`RunIndex.derived_for` built from this object's view, by the function that builds each."""


class _Shared:
    """What is built over the run's objects (shared by the run and its :meth:`RunIndex.scoped` copies)."""

    __slots__ = ("ids", "subjects", "derived", "groups", "pods", "views", "names")

    def __init__(self) -> None:
        self.ids: dict[int, Mapping[str, Any]] | None = None
        self.subjects: dict[int, Subject] = {}
        self.derived: dict[Callable[..., Any], Any] = {}
        self.groups: dict[tuple[str | None, str], list[WorkloadView]] | None = None
        self.pods: dict[tuple[str | None, str], int] = {}
        self.views: tuple[WorkloadView | None, ...] | None = None
        self.names: NameIndex | None = None


class RunIndex:
    """The objects of one run (``objects``) with the fleet context they are checked against.

    Nothing is read from ``objects`` until something asks (a rule checking one object
    alone never walks the run).
    """

    __slots__ = ("objects", "fleet", "_shared", "_subjects", "_last")

    def __init__(self, objects: Sequence[Mapping[str, Any]] = (), fleet: FleetContext | None = None) -> None:
        self.objects: Objects = objects if isinstance(objects, tuple) else tuple(objects)
        self.fleet = fleet
        self._shared = _Shared()
        self._subjects: dict[int, Subject] = {}
        self._last: Subject | None = None  # the rules checking one object ask for it in a row

    def _ids(self) -> dict[int, Mapping[str, Any]]:
        ids = self._shared.ids
        if ids is None:
            ids = self._shared.ids = {id(obj): obj for obj in self.objects}
        return ids

    def holds(self, obj: Mapping[str, Any]) -> bool:
        """Whether ``obj`` (this very object) is one of the run's objects."""
        return self._ids().get(id(obj)) is obj

    def scoped(self) -> RunIndex:
        """The same run for checking objects that are not among its objects.

        Shares everything built over the run's objects; subjects of other objects live in
        the returned index only (the engine makes one per such check), so a context kept for
        a long time (the webhook's) never accumulates them.
        """
        other = RunIndex.__new__(RunIndex)
        other.objects, other.fleet, other._shared, other._subjects, other._last = (
            self.objects,
            self.fleet,
            self._shared,
            {},
            None,
        )
        return other

    def subject(self, obj: Mapping[str, Any]) -> Subject:
        """The :class:`Subject` of ``obj``, built once per run (objects are identified by identity).

        A subject holds its object, so the object's id is not reused while the run lives.
        """
        found = self._last
        if found is not None and found.obj is obj:
            return found
        key = id(obj)
        shared = self._shared
        found = shared.subjects.get(key)
        if found is None or found.obj is not obj:
            found = self._subjects.get(key)
            if found is None or found.obj is not obj:
                found = Subject(obj, build_view(obj))
                ids = shared.ids
                (shared.subjects if ids is not None and ids.get(key) is obj else self._subjects)[key] = found
        self._last = found
        return found

    def view(self, obj: Mapping[str, Any]) -> WorkloadView | None:
        """The :class:`WorkloadView` of ``obj``, or None for kinds that are not workloads."""
        found = self._last  # subject()'s first test, inlined: every rule asks, for the object just asked about
        if found is not None and found.obj is obj:
            return found.view
        return self.subject(obj).view

    @property
    def views(self) -> tuple[WorkloadView | None, ...]:
        """The view of every object of the run, in order (None for non-workloads)."""
        views = self._shared.views
        if views is None:
            self._ids()
            views = self._shared.views = tuple(self.subject(obj).view for obj in self.objects)
        return views

    @property
    def names(self) -> NameIndex:
        """The run's objects by group, kind, namespace and name (built on first use, once per run)."""
        names = self._shared.names
        if names is None:
            names = self._shared.names = NameIndex(self.objects)
        return names

    def derived(self, build: Callable[[RunIndex], T]) -> T:
        """``build(self)``, computed once per run (keyed by the function: one function defines each value)."""
        derived = self._shared.derived
        if build in derived:
            return derived[build]  # type: ignore[no-any-return]  # keyed by build: the value is what build returned
        value = derived[build] = build(self)
        return value

    def derived_for(self, obj: Mapping[str, Any], build: Callable[[WorkloadView | None, Any], T], ctx: Any) -> T:
        """``build(self.view(obj), ctx)``, computed once per object and run (keyed by the function, as
        :meth:`derived`): what several rules read from one object, such as its gang minimums (GANG001/002).
        ``ctx`` is the check context of this run (the same for every rule of the run)."""
        subject = self.subject(obj)
        memo = subject.memo
        if memo is None:
            memo = subject.memo = {}
        elif build in memo:
            return memo[build]  # type: ignore[no-any-return]  # keyed by build: the value is what build returned
        value = memo[build] = build(subject.view, ctx)
        return value

    def contract(self, obj: Mapping[str, Any]) -> Contract:
        """The gang contract of ``obj`` (:mod:`gpufleet.workloads.contract`), read once per object and run, with the
        run's objects, its fleet context and that context's operator profile."""
        subject = self.subject(obj)
        memo = subject.memo
        if memo is None:
            memo = subject.memo = {}
        found = memo.get(Contract)
        if found is None:
            operators = getattr(self.fleet, "operators", None) or NO_PROFILE
            found = memo[Contract] = read_contract(obj, ContractRun(self.objects, self.fleet, operators))
        return found

    def _group_index(self) -> dict[tuple[str | None, str], list[WorkloadView]]:
        groups = self._shared.groups
        if groups is None:
            groups = {}
            for found in self.views:
                if found is not None and found.pod_group and found.templates:
                    groups.setdefault((found.namespace, found.pod_group), []).append(found)
            self._shared.groups = groups
        return groups

    def members(self, namespace: str | None, name: str) -> list[WorkloadView]:
        """The workloads of the run whose pods join pod group ``name`` in ``namespace``."""
        return self._group_index().get((namespace, name), [])

    def member_pods(self, namespace: str | None, name: str) -> int:
        """How many pods of the run join pod group ``name`` (0 when none is seen)."""
        pods = self._shared.pods
        count = pods.get((namespace, name))
        if count is None:
            count = pods[(namespace, name)] = sum(v.total_pods for v in self.members(namespace, name))
        return count
