"""The rule engine: run the registered rules over objects and turn violations into findings.

Called by every adapter: the linter (``gpufleet lint``), the Pulumi policy pack and
the admission controller, plus ``remediate`` for ``gpufleet lint --fix``. The
module functions use one :class:`Engine` over the registry; tests build their own
``Engine(rules)``. Rules are indexed by ``(apiGroup, kind)`` once (a rule whose
``Rule.any_kind`` holds sees every object); each object's workload view is built once per
run (``ctx.run``, a :class:`~gpufleet.rules.run.RunIndex`) and shared by the rules that
read it; an object's identity is read once, and findings are made only for rules that
found something. Rules with a stack-level hook (``Rule.check_run``) run once per run
(:meth:`Engine.check_run`, included by ``check_objects``). A rule that raises
becomes an error finding of that rule and the other findings are kept. Waivers
come from :mod:`gpufleet.rules.waivers`. A manifest another manifest creates as written
(an Argo Workflow's ``resource`` template, :mod:`gpufleet.workloads.embedded`) is checked
as its own object, its findings at paths inside the outer one's manifest string.
"""

from __future__ import annotations

import copy
import traceback
from dataclasses import dataclass, replace
from decimal import Context, localcontext
from functools import lru_cache
from typing import Any, Collection, Iterable, Mapping

from gpufleet.kubetypes.fieldpath import ROOT
from gpufleet.kubetypes.objects import Identity, identity
from gpufleet.rules import registry, waivers
from gpufleet.rules.api import CheckContext, Finding, Rule, Severity, Violation
from gpufleet.workloads.embedded import embedded_manifests
from gpufleet.workloads.types import group_of, is_map

MAX_EMBEDDING = 2
"""How deep manifests inside manifests are followed (a Workflow creating a Workflow that creates a job)."""

Selector = Collection[str] | None
Patterns = frozenset[str] | None
_DEFAULT_CTX = CheckContext()
_EXACT = Context(prec=60)


@dataclass(frozen=True)
class InternalError(Violation):
    """The violation standing for a rule that raised; always reported as an error, with the traceback."""

    trace: str = ""


def _order(finding: Finding) -> tuple[str, str, str]:
    return finding.code, str(finding.path), finding.message


def freeze(patterns: Selector) -> Patterns:
    """Normalise select/ignore: codes or prefixes (``GANG1``), a comma string, or ``ALL``."""
    if patterns is None:
        return None
    if isinstance(patterns, str):
        patterns = patterns.split(",")
    return frozenset(p.strip().upper() for p in patterns if p and p.strip())


def matches(code: str, patterns: frozenset[str]) -> bool:
    return "ALL" in patterns or any(code.startswith(p) for p in patterns)


def _finding(rule: Rule, who: Identity, violation: Violation) -> Finding:
    internal = isinstance(violation, InternalError)
    return Finding(
        code=rule.code,
        name=rule.name,
        severity=Severity.ERROR if internal else rule.severity,
        path=violation.path,
        message=violation.message,
        fix=violation.fix or rule.fix,
        api_version=who[0],
        kind=who[1],
        namespace=who[2],
        object_name=who[3],
        internal=violation.trace if internal else None,  # type: ignore[attr-defined]  # internal: the violation is an InternalError, which has trace
        waivable=rule.waivable or internal,
    )


def make_finding(rule: Rule, obj: Mapping[str, Any], violation: Violation) -> Finding:
    """A finding of ``rule`` on ``obj`` (identity from the object's metadata), not yet waived."""
    return _finding(rule, identity(obj), violation)


def _crash(rule: Rule, exc: Exception) -> InternalError:
    return InternalError(
        ROOT,
        f"internal error in rule {rule.code} ({rule.name}): {type(exc).__name__}: {str(exc)[:300]}",
        "this is a gpufleet bug: report it with the object; waive the code to proceed meanwhile",
        "".join(traceback.format_exception(exc))[-20000:],
    )


def _violations(rules: Iterable[Rule], obj: Mapping[str, Any], ctx: CheckContext) -> list[tuple[Rule, Violation]]:
    """Every rule's violations in order; a crash becomes one more (error) violation instead of an exception."""
    found: list[tuple[Rule, Violation]] = []
    with localcontext(
        _EXACT
    ):  # quantities are bounded (gpufleet.kubetypes.quantity): 60 digits keep sums and quotients exact
        for rule in rules:
            try:
                for violation in rule.check(obj, ctx):
                    found.append((rule, violation))
            except Exception as exc:  # noqa: BLE001 - a buggy rule must not hide the other rules' findings
                found.append((rule, _crash(rule, exc)))
    return found


def _run_violations(rules: Iterable[Rule], ctx: CheckContext) -> list[tuple[Rule, Mapping[str, Any], Violation]]:
    """Every stack-level hook's violations; a crash is reported on the run's first object."""
    found: list[tuple[Rule, Mapping[str, Any], Violation]] = []
    with localcontext(_EXACT):
        for rule in rules:
            try:
                for obj, violation in rule.check_run(ctx.run, ctx):  # type: ignore[misc]  # check_run is set for stack-level rules only, the ones this loop is given
                    found.append((rule, obj, violation))
            except Exception as exc:  # noqa: BLE001 - as in _violations
                if ctx.run.objects:
                    found.append((rule, ctx.run.objects[0], _crash(rule, exc)))
    return found


def in_run(obj: Mapping[str, Any], ctx: CheckContext) -> CheckContext:
    """``ctx`` for checking ``obj``: as is when ``obj`` is one of its run's objects, else scoped to this check.

    The view and derived values of an object outside the run live only as long as the
    returned context, so a context kept across runs (the webhook's) never holds them.
    """
    if ctx.run.holds(obj):
        return ctx
    scoped = object.__new__(CheckContext)  # dataclasses.replace without re-running __init__: every field as is
    scoped.__dict__.update(ctx.__dict__)
    scoped.__dict__["run"] = ctx.run.scoped()
    return scoped


def _findings(rule: Rule, obj: Mapping[str, Any], ctx: CheckContext) -> list[Finding]:
    """One rule's findings."""
    who = identity(obj)
    return [_finding(r, who, v) for r, v in _violations((rule,), obj, ctx)]


class Engine:
    """A set of rules indexed by kind, with the check/remediate entry points."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = tuple(sorted(rules, key=lambda r: r.code))
        index: dict[tuple[str, str], list[Rule]] = {}
        for rule in self.rules:
            if rule.any_kind:
                continue
            for kind in dict.fromkeys(tuple(k) for k in rule.kinds):
                index.setdefault(kind, []).append(rule)  # type: ignore[arg-type]  # a rule's kinds are (group, kind) pairs; tuple() of one has no length in its type
        self._index = {key: tuple(rules) for key, rules in index.items()}
        self._everywhere = tuple(rule for rule in self.rules if rule.any_kind)
        self._run_rules = tuple(rule for rule in self.rules if rule.check_run is not None)
        self._for = lru_cache(maxsize=1024)(self._select)

    def _select(self, key: tuple[str, str], select: Patterns, ignore: Patterns, has_fleet: bool) -> tuple[Rule, ...]:
        candidates = sorted({*self._index.get(key, ()), *self._everywhere}, key=lambda r: r.code)
        return tuple(
            rule
            for rule in candidates
            if (select is None or matches(rule.code, select))
            and not (ignore and matches(rule.code, ignore))
            and (has_fleet or not rule.needs_fleet)
        )

    def rules_for(
        self, obj: Mapping[str, Any], ctx: CheckContext, select: Patterns = None, ignore: Patterns = None
    ) -> tuple[Rule, ...]:
        """The rules that run on ``obj`` in code order."""
        key = (group_of(obj), str(obj.get("kind", "")))
        if len(key[0]) + len(key[1]) > 320:  # no real group/kind is this long: never let such a key into the cache
            return self._select(key, select, ignore, ctx.fleet is not None)
        return self._for(key, select, ignore, ctx.fleet is not None)

    def _check(
        self, obj: Mapping[str, Any], ctx: CheckContext, select: Patterns, ignore: Patterns, depth: int = 0
    ) -> list[Finding]:
        if not is_map(obj):
            return []
        findings = self._own(obj, ctx, select, ignore)
        if depth < MAX_EMBEDDING:  # a manifest a Workflow creates is its own object, at a path inside the outer one
            for at, inner in embedded_manifests(obj):
                findings += [replace(f, path=at + f.path) for f in self._check(inner, ctx, select, ignore, depth + 1)]
        return findings

    def _own(self, obj: Mapping[str, Any], ctx: CheckContext, select: Patterns, ignore: Patterns) -> list[Finding]:
        rules = self.rules_for(obj, ctx, select, ignore)
        if not rules:
            return []
        found = _violations(rules, obj, in_run(obj, ctx))
        if not found:
            return []
        who = identity(obj)
        findings = waivers.apply(obj, [_finding(rule, who, v) for rule, v in found])
        if len(findings) > 1:
            findings.sort(key=_order)
        return findings

    def check_object(
        self, obj: Mapping[str, Any], ctx: CheckContext = _DEFAULT_CTX, select: Selector = None, ignore: Selector = None
    ) -> list[Finding]:
        """Every finding of the selected rules on one object, sorted by (code, path, message).

        Stack-level hooks do not run here (see :meth:`check_run`).
        """
        return self._check(obj, ctx, freeze(select), freeze(ignore))

    def check_run(
        self, ctx: CheckContext, select: Selector = None, ignore: Selector = None
    ) -> list[tuple[Mapping[str, Any], Finding]]:
        """The selected rules' stack-level findings over the run ``ctx.run`` (waivers applied), in rule order."""
        sel, ign = freeze(select), freeze(ignore)
        rules = [
            rule
            for rule in self._run_rules
            if (sel is None or matches(rule.code, sel)) and not (ign and matches(rule.code, ign))
        ]
        if not rules:
            return []
        found = _run_violations(rules, ctx)
        by_object: dict[int, tuple[Mapping[str, Any], list[Finding]]] = {}
        for rule, obj, violation in found:
            by_object.setdefault(id(obj), (obj, []))[1].append(make_finding(rule, obj, violation))
        return [(obj, finding) for obj, findings in by_object.values() for finding in waivers.apply(obj, findings)]

    def check_objects(
        self,
        objs: Iterable[Mapping[str, Any]],
        ctx: CheckContext = _DEFAULT_CTX,
        select: Selector = None,
        ignore: Selector = None,
    ) -> list[Finding]:
        """Findings of every object (its stack-level ones included), in input order; ``ctx.objects`` defaults to ``objs``."""
        objs = tuple(objs)
        if not ctx.objects:
            ctx = replace(ctx, objects=objs)
        sel, ign = freeze(select), freeze(ignore)
        extra: dict[int, list[Finding]] = {}
        for obj, finding in self.check_run(ctx, sel, ign):
            extra.setdefault(id(obj), []).append(finding)
        out: list[Finding] = []
        for obj in objs:
            findings = self._check(obj, ctx, sel, ign)
            more = extra.pop(id(obj), None)
            if more:
                findings = sorted([*findings, *more], key=_order)
            out.extend(findings)
        return out

    def remediate(
        self, obj: Mapping[str, Any], ctx: CheckContext = _DEFAULT_CTX, select: Selector = None, ignore: Selector = None
    ) -> dict[str, Any]:
        """A fixed deep copy of ``obj`` (the input is never modified).

        In code order, each selected rule with a ``remediate`` and an unwaived finding on
        the object *as fixed so far* gets a private deep copy to fix; a remediation that
        raises is skipped and the object keeps its previous state.
        """
        fixed: dict[str, Any] = copy.deepcopy(dict(obj)) if isinstance(obj, Mapping) else {}
        ctx = replace(ctx, run=ctx.run.scoped())  # the fixed copies are checked in this call only
        for rule in self.rules_for(fixed, ctx, freeze(select), freeze(ignore)):
            if rule.remediate is None or not self._has_unwaived(rule, fixed, ctx):
                continue
            try:
                fixed = dict(rule.remediate(copy.deepcopy(fixed), ctx))
            except Exception:  # noqa: BLE001 - a failing fix leaves the object as it was
                continue
        return fixed

    @staticmethod
    def _has_unwaived(rule: Rule, obj: Mapping[str, Any], ctx: CheckContext) -> bool:
        return any(not f.waived for f in waivers.apply(obj, _findings(rule, obj, ctx)))


DEFAULT = Engine(registry.all_rules())


def check_object(
    obj: Mapping[str, Any], ctx: CheckContext = _DEFAULT_CTX, select: Selector = None, ignore: Selector = None
) -> list[Finding]:
    """Every finding of the registered rules on one object, sorted by (code, path, message)."""
    return DEFAULT.check_object(obj, ctx, select, ignore)


def check_objects(
    objs: Iterable[Mapping[str, Any]],
    ctx: CheckContext = _DEFAULT_CTX,
    select: Selector = None,
    ignore: Selector = None,
) -> list[Finding]:
    """Findings of every object (stack-level ones included), in input order; ``ctx.objects`` defaults to ``objs``."""
    return DEFAULT.check_objects(objs, ctx, select, ignore)


def check_run(
    ctx: CheckContext, select: Selector = None, ignore: Selector = None
) -> list[tuple[Mapping[str, Any], Finding]]:
    """The registered rules' stack-level findings over ``ctx.run``: ``(object of the run, finding)`` pairs."""
    return DEFAULT.check_run(ctx, select, ignore)


def remediate(
    obj: Mapping[str, Any], ctx: CheckContext = _DEFAULT_CTX, select: Selector = None, ignore: Selector = None
) -> dict[str, Any]:
    """Apply every applicable registered rule's remediation in code order; returns a new dict."""
    return DEFAULT.remediate(obj, ctx, select, ignore)


def unknown_selectors(patterns: Iterable[str]) -> list[str]:
    """The select/ignore patterns that match no registered rule (for the linter's error message)."""
    return [p for p in patterns if not any(matches(code, freeze([p]) or frozenset()) for code in registry.REGISTRY)]
