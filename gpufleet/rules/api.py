"""The rule engine's public types: rules, the context they run in, and their findings.

Every rule module (``gpufleet/rules/<family>/gangNNN_<name>.py``) defines one module-level
``RULE = Rule(...)`` whose ``check(obj, ctx)`` yields :class:`Violation` objects.
The engine (``gpufleet.rules.engine``) turns violations into :class:`Finding`
objects (adding the object's identity, severity and waiver state). Adapters (the
linter, the Pulumi policy pack, the admission controller) only ever see findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterable, Mapping, Protocol, TypeVar, cast

from gpufleet.fleetctx.context import FleetContext
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.celform import CelForm
from gpufleet.util.camel import camel
from gpufleet.yamlin.errors import Issue

OptionsT = TypeVar("OptionsT")


OPTIONS_CONFIG = {
    "extra": "forbid",
    "strict": True,
    "alias_generator": camel,
    "frozen": True,
    "use_attribute_docstrings": True,
}
"""The pydantic config of every rule's options (``__pydantic_config__``): camelCase keys, unknown keys
and wrong types refused. A plain dict, so the core never imports pydantic; ``gpufleet.settings``
validates with it."""


def rule_options(cls: type[OptionsT]) -> type[OptionsT]:
    """Declare a rule's options: a frozen dataclass with typed, defaulted fields and a docstring.

    Used as a decorator beside the rule (``options=Gang502Options`` in its ``Rule``). Keys
    are the camelCase of the field names (``floor_seconds`` -> ``floorSeconds``);
    ``gpufleet.settings`` validates user input against it (pydantic, strict, unknown keys
    are errors) and ``docs/rules.md`` lists the fields.
    """
    made = dataclass(frozen=True)(cls)
    made.__pydantic_config__ = OPTIONS_CONFIG  # type: ignore[attr-defined]  # pydantic reads __pydantic_config__ from a dataclass; typeshed does not declare it
    return made


class CrdSchemas(Protocol):
    """What the schema rules ask of ``ctx.crds`` (implemented by ``gpufleet.crdschema.CrdSet``)."""

    def knows(self, obj: Any) -> bool: ...

    def validate(self, obj: Any) -> list[Issue]: ...

    def pruned_fields(self, obj: Any) -> list[Issue]: ...


from gpufleet.rules.run import RunIndex  # noqa: E402 - after the Protocol: gpufleet.rules.run imports this module's names


class Severity(str, Enum):
    """``error`` blocks (mandatory, deny, exit 1); ``warning`` advises."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Violation:
    """What a rule's check yields: a path inside the object, a message and, optionally, a specific fix."""

    path: FieldPath
    message: str
    fix: str | None = None


@dataclass(frozen=True)
class CheckContext:
    """Everything a rule may look at besides the object itself.

    ``fleet`` is None when no fleet model was given; fleet-aware rules then stay quiet.
    ``options`` holds each rule's validated options object (its ``Rule.options`` class) keyed
    by rule code, as ``gpufleet.settings`` builds them; a rule reads its own with
    :meth:`options_for`. ``crds`` is a ``gpufleet.crdschema.CrdSet`` (or None) for the schema rules.
    ``objects`` is every object of the same run, for rules that relate objects.
    ``run`` is the :class:`~gpufleet.rules.run.RunIndex` of ``objects`` with ``fleet``: rules
    read views and cross-object indexes from it. Built with the context (and again by
    ``dataclasses.replace`` when ``objects`` or ``fleet`` change), never shared between contexts.
    """

    fleet: FleetContext | None = None
    options: Mapping[str, object] = field(default_factory=dict)
    crds: CrdSchemas | None = None
    objects: tuple[Mapping[str, Any], ...] = ()
    run: RunIndex = field(default=None, compare=False, repr=False)  # type: ignore[assignment]  # the engine sets run before any rule reads it; None only while a context is built

    def __post_init__(self) -> None:
        run = self.run
        if run is None or run.objects is not self.objects or run.fleet is not self.fleet:
            object.__setattr__(self, "run", RunIndex(self.objects, self.fleet))

    def options_for(self, code: str, model: type[OptionsT]) -> OptionsT:
        """Rule ``code``'s options: the validated object, else ``model``'s defaults."""
        found = self.options.get(code)
        if found is None:
            default = _DEFAULT_OPTIONS.get(model)
            if default is None:  # options objects are frozen: one defaults object per class serves every rule and run
                default = _DEFAULT_OPTIONS[model] = model()
            return cast(OptionsT, default)  # one defaults object per class: model() made it
        if not isinstance(found, model):
            raise TypeError(
                f"options of {code} must be a {model.__name__} (build them with gpufleet.settings.rule_options)"
            )
        return found


_DEFAULT_OPTIONS: dict[type, object] = {}
"""Each options class's defaults (:meth:`CheckContext.options_for`), built on first use: as many as there are classes."""

ANY_KIND = ("*", "*")
"""The ``(apiGroup, kind)`` wildcard: a rule listing it reads every object (``Rule.any_kind``)."""
EVERY_KIND: tuple[tuple[str, str], ...] = (ANY_KIND,)
"""``kinds=`` of a rule that reads every object (the schema rules)."""

CheckFn = Callable[[Mapping[str, Any], CheckContext], Iterable[Violation]]
RunCheckFn = Callable[[RunIndex, CheckContext], Iterable[tuple[Mapping[str, Any], Violation]]]
RemediateFn = Callable[[dict[str, Any], CheckContext], dict[str, Any]]


@dataclass(frozen=True)
class Rule:
    """One gang-safety rule.

    ``code`` is stable forever (``GANG001``); ``name`` names the bad pattern
    (``min-below-replicas``); ``family`` groups rules for the policy pack
    (gang-size, routing, restarts, probes, gpus, platform, schema); ``kinds`` lists
    the ``(apiGroup, kind)`` pairs it reads (the group without version, ``""`` for
    core); ``needs_fleet`` rules only run with a fleet context; ``needs_objects``
    rules also read the other objects of the run (``ctx.objects``), so the policy pack
    runs them in its stack policy too; ``needs_crds`` rules judge an object only when
    ``ctx.crds`` holds its kind's schema (:meth:`can_judge`); ``remediate`` is set only where the fix is
    always safe; ``options`` is the rule's options class (see :func:`rule_options`), None
    when it takes none.

    ``check_run`` is the stack-level hook of a rule that judges the run as a whole
    (GANG104: workloads' queues against the queues the same run declares): the engine
    calls it once per run (``Engine.check_run``; ``check_objects`` includes its findings)
    and it yields ``(object, violation)`` pairs, each reported on that object of the run.
    It runs with or without a fleet context (``needs_fleet`` is about ``check``).
    """

    code: str
    name: str
    family: str
    severity: Severity
    summary: str
    fix: str
    kinds: tuple[tuple[str, str], ...]
    check: CheckFn
    needs_fleet: bool = False
    needs_objects: bool = False
    needs_crds: bool = False
    remediate: RemediateFn | None = None
    doc: str = ""
    options: type | None = None
    check_run: RunCheckFn | None = None
    waivable: bool = True
    """False for a rule whose finding no object may waive for itself (GANG807: a team that could waive the
    partition with an annotation on its own pods would make static partitioning optional)."""
    predicts: frozenset[str] | None = None
    """The engine outcomes (:mod:`gpufleet.workloads.outcomes`) its finding foretells when the flagged object is
    tried alone on a sandbox of the fleet (``gpufleet try --no-controller``, a rank failed once it runs): GANG001
    ``NEVER_WHOLE``, GANG204 ``{RANK_REPLACED_ALONE}``. ``NOT_JUDGED`` (empty) for a rule no engine outcome shows
    (naming, observability, platform configuration); the differential tier (:mod:`gpufleet.difftier`) leaves those
    out. None only while undeclared: tests/rules/test_registry.py requires every rule to declare it."""
    cel: CelForm | None = None
    """The rule as the API server evaluates it (a ValidatingAdmissionPolicy, :mod:`gpufleet.rules.celform`); None:
    the rule needs other objects or facts CEL cannot see, and only the webhook, the linter and the policy pack run it."""

    @property
    def any_kind(self) -> bool:
        """Whether the rule reads every object (its kinds hold the :data:`ANY_KIND` wildcard)."""
        return ANY_KIND in self.kinds

    def applies_to(self, obj: Mapping[str, Any]) -> bool:
        """Whether the rule reads ``obj`` (by its ``(apiGroup, kind)``, or every object with the wildcard)."""
        if self.any_kind:
            return True
        api_version = str(obj.get("apiVersion", ""))
        group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
        return (group, str(obj.get("kind", ""))) in self.kinds

    def can_judge(self, obj: Mapping[str, Any], ctx: CheckContext) -> bool:
        """Whether the rule can judge ``obj`` in ``ctx``: its fleet context (``needs_fleet``) and its kind's CRD
        schema (``needs_crds``) are there. A rule that cannot stays quiet, which says nothing about ``obj``."""
        if self.needs_fleet and ctx.fleet is None:
            return False
        return not self.needs_crds or (ctx.crds is not None and ctx.crds.knows(obj))


@dataclass(frozen=True, slots=True)
class Finding:
    """A violation of one rule by one object, as every adapter reports it (slots: a lint run holds one per finding)."""

    code: str
    name: str
    severity: Severity
    path: FieldPath  # printed with str() by every adapter
    message: str
    fix: str
    api_version: str = ""
    kind: str = ""
    namespace: str | None = None
    object_name: str | None = None
    waived: bool = False
    waiver_reason: str | None = None
    file: str | None = None
    line: int | None = None
    # The traceback when the rule itself crashed (a gpufleet bug, not a violation); adapters
    # that can (the admission webhook) answer it as an internal error.
    internal: str | None = field(default=None, compare=False, repr=False)
    waivable: bool = field(default=True, compare=False, repr=False)
    """False when the rule refuses waivers (``Rule.waivable``): a waiver annotation is then reported, not applied."""

    @property
    def blocking(self) -> bool:
        return self.severity is Severity.ERROR and not self.waived

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of ``gpufleet lint --format json`` (one finding)."""
        return {
            "code": self.code,
            "rule": self.name,
            "severity": self.severity.value,
            "file": self.file,
            "line": self.line,
            "apiVersion": self.api_version,
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.object_name,
            "path": str(self.path),
            "message": self.message,
            "fix": self.fix,
            "waived": self.waived,
            "waiverReason": self.waiver_reason,
        }
