"""``CrdSet``: the loaded CRDs and the one entry point to validate objects against them.

Called by the linter (rules GANG601 crd-schema-violation and GANG602 pruned-field,
``gpufleet lint --crds DIR``), by tests of the renderers and of the admission
webhook's patched objects. Each CRD version's jsonschema validator and CEL rule
tree are built on first use and cached; validating an object never re-reads or
re-walks the CRD.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from gpufleet.crdschema import loader, metadata
from gpufleet.crdschema.loader import CrdVersion, Key
from gpufleet.crdschema.normalize import normalize
from gpufleet.yamlin.errors import Issue

if TYPE_CHECKING:
    from gpufleet.crdschema.cel import CelRule, RuleNode, Unsupported


@dataclass(eq=False)
class _Compiled:
    """The lazily built validators of one CRD version."""

    crd: CrdVersion

    @cached_property
    def quick(self) -> Callable[[Any], bool]:
        from gpufleet.crdschema.quickcheck import compile_check

        return compile_check(self.crd.schema)

    @cached_property
    def validator(self) -> Any:
        from gpufleet.crdschema import structural  # jsonschema: imported on the first object a CRD serves

        return structural.compile_validator(self.crd.schema)

    @cached_property
    def rules(self) -> RuleNode | None:
        from gpufleet.crdschema import cel  # cel-python: imported on the first object a CRD serves

        return cel.build(self.crd.schema, self.crd.label)


@dataclass(eq=False)
class CrdSet:
    """Served CRD versions keyed by (group, version, kind)."""

    versions: dict[Key, CrdVersion] = field(default_factory=dict)
    unsupported: dict[Unsupported, None] = field(default_factory=dict)
    _compiled: dict[Key, _Compiled] = field(default_factory=dict, repr=False)
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False)
    _deferred: dict[Key, Path] = field(default_factory=dict, repr=False)
    _last: Any = field(default=None, repr=False)  # (object, CRD version, normalize's result) of the last object

    @classmethod
    def load(cls, path: str | Path) -> CrdSet:
        """Every served CRD version under ``path`` (a directory, read recursively, or one file)."""
        crds = cls()
        for file in loader.crd_files(Path(path)):
            crds.add(loader.read_file(file))
        return crds

    @classmethod
    def from_documents(cls, documents: Iterable[Any], source: str = "<memory>") -> CrdSet:
        """CRDs given as parsed YAML documents (non-CRD documents are skipped)."""
        crds = cls()
        crds.add(loader.from_documents(documents, source))
        return crds

    def add(self, versions: Iterable[CrdVersion]) -> None:
        for version in versions:
            self.versions[version.key] = version
            self._compiled.pop(version.key, None)

    def defer(self, files: Mapping[Key, Path]) -> None:
        """Versions to read from their (JSON) CRD file on first lookup; a version already added wins."""
        for key, file in files.items():
            if key not in self.versions:
                self._deferred[key] = file

    def load_deferred(self) -> None:
        """Read every deferred file now (``cel_rules`` and self-checks walk every version)."""
        for file in dict.fromkeys(self._deferred.values()):
            self._read_deferred(file)

    def _read_deferred(self, file: Path) -> None:
        for version in loader.read_json(file):
            if self._deferred.pop(version.key, None) is not None:
                self.versions.setdefault(version.key, version)

    @property
    def unsupported_rules(self) -> list[Unsupported]:
        """CEL rules met so far that cel-python could not compile or evaluate (they reported nothing)."""
        return list(self.unsupported)

    def lookup(self, obj: Any) -> CrdVersion | None:
        if not isinstance(obj, dict):
            return None
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str) or "/" not in api_version:
            return None
        group, _, version = api_version.partition("/")
        key = (group, version, kind)
        found = self.versions.get(key)
        if found is None and key in self._deferred:
            self._read_deferred(self._deferred[key])
            found = self.versions.get(key)
        return found

    def knows(self, obj: Any) -> bool:
        """True when a loaded CRD serves the object's apiVersion and kind."""
        return self.lookup(obj) is not None

    def validate(self, obj: Any) -> list[Issue]:
        """Metadata, openAPIV3Schema and CEL issues of ``obj`` as the API server would see it on create."""
        crd = self.lookup(obj)
        if crd is None:
            return []
        from gpufleet.crdschema import cel

        compiled = self._compiled_for(crd)
        stored, _ = self._normalized(crd, obj)
        issues = metadata.check(obj, crd.kind, crd.namespaced)
        schema_issues: list[Issue]
        if compiled.quick(stored):  # certainly no schema issue: jsonschema would only confirm it (quickcheck)
            schema_issues, blocking = [], False
        else:
            from gpufleet.crdschema import structural

            schema_issues, blocking = structural.structural_issues(compiled.validator, stored, crd.label)
        issues += schema_issues
        if blocking and compiled.rules is not None:
            issues.append(
                Issue(
                    "(root)",
                    "some CEL validation rules were not checked because the object was invalid",
                    "correct the errors above to complete validation",
                )
            )
        elif not blocking:
            issues += cel.check(compiled.rules, stored, self._memo, self._record)
        return _unique(issues)

    def validate_update(self, old: Any, new: Any) -> list[Issue]:
        """The CEL transition rules (``oldSelf``) an update from ``old`` to ``new`` breaks (see ``transition``)."""
        crd = self.lookup(new)
        if crd is None or self.lookup(old) is not crd:
            return []
        from gpufleet.crdschema.transition import check_update

        old_stored, _ = normalize(crd.schema, old, crd.label)
        new_stored, _ = normalize(crd.schema, new, crd.label)
        return _unique(check_update(self._compiled_for(crd).rules, old_stored, new_stored, self._record))

    def pruned_fields(self, obj: Any) -> list[Issue]:
        """Fields of ``obj`` that the API server would silently drop (not in the schema, or null where not nullable)."""
        crd = self.lookup(obj)
        if crd is None:
            return []
        return _unique(self._normalized(crd, obj)[1])

    def cel_rules(self) -> list[CelRule]:
        """Every CEL rule of every loaded version, compiled (for self-checks and tests)."""
        out: list[CelRule] = []
        self.load_deferred()
        for crd in self.versions.values():
            tree = self._compiled_for(crd).rules
            out.extend(tree.walk() if tree is not None else [])
        return out

    def _normalized(self, crd: CrdVersion, obj: Any) -> Any:
        """``normalize``'s (stored object, pruned fields) of ``obj``; GANG601 and GANG602 ask about the same object
        one after the other, so the last answer is kept (the rules never change the object they check)."""
        last = self._last
        if last is not None and last[0] is obj and last[1] is crd:
            return last[2]
        result = normalize(crd.schema, obj, crd.label)
        self._last = (obj, crd, result)
        return result

    def _compiled_for(self, crd: CrdVersion) -> _Compiled:
        compiled = self._compiled.get(crd.key)
        if compiled is None:
            compiled = self._compiled[crd.key] = _Compiled(crd)
        return compiled

    def _record(self, item: Unsupported) -> None:
        self.unsupported[item] = None


def _unique(issues: list[Issue]) -> list[Issue]:
    return list(dict.fromkeys(issues))
