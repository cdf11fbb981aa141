"""The rule registry: every ``gpufleet/rules/<family>/gangNNN_<name>.py`` module's ``RULE``.

Imported by the engine, the linter (``gpufleet rules``), the policy pack and the
admission controller. Discovery walks this package and its family subpackages
(:func:`pkgutil.walk_packages`), so adding a rule is adding a module to its family's
folder; underscore modules (``_helpers.py``) are the family's helpers, never rules. Importing raises :class:`RegistryError` when two modules
share a code or a rule module has no ``RULE``: a broken registry must never load
silently half-empty.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from types import ModuleType

import gpufleet.rules as _package
from gpufleet.rules.api import Rule

MODULE_PATTERN = re.compile(r"^gang[0-9]{3}_[a-z0-9_]+$")


class RegistryError(ImportError):
    """A rule module is malformed or two rules share a code."""


def rule_module_names(package: ModuleType = _package) -> list[str]:
    """Fully qualified names of the rule modules of ``package`` and its subpackages, sorted by module name."""
    found = [
        info.name
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}.")
        if not info.ispkg and MODULE_PATTERN.match(info.name.rsplit(".", 1)[1])
    ]
    return sorted(found, key=lambda name: name.rsplit(".", 1)[1])


def discover(package: ModuleType = _package) -> dict[str, tuple[Rule, str]]:
    """``{code: (rule, module name)}`` for every rule module of ``package``, sorted by code."""
    found: dict[str, tuple[Rule, str]] = {}
    for name in rule_module_names(package):
        rule = getattr(importlib.import_module(name), "RULE", None)
        if not isinstance(rule, Rule):
            raise RegistryError(f"{name} defines no module-level RULE = Rule(...)")
        if rule.code in found:
            raise RegistryError(f"rule code {rule.code} is defined twice: in {found[rule.code][1]} and {name}")
        found[rule.code] = (rule, name)
    return {code: found[code] for code in sorted(found)}


_FOUND = discover()
REGISTRY: dict[str, Rule] = {code: rule for code, (rule, _) in _FOUND.items()}
MODULES: dict[str, str] = {code: module for code, (_, module) in _FOUND.items()}


def get(code: str) -> Rule:
    """The rule with ``code``; raises KeyError naming the known codes otherwise."""
    try:
        return REGISTRY[code.upper()]
    except KeyError:
        raise KeyError(f"unknown rule code {code!r} (known: {', '.join(REGISTRY)})") from None


def all_rules() -> list[Rule]:
    """Every registered rule, sorted by code."""
    return list(REGISTRY.values())
