"""The registry and its meta-test: every registered rule is complete (fixtures, docs, fix hint, code/name match)."""

from __future__ import annotations

import re

import pytest

from gpufleet.rules import registry
from gpufleet.rules.api import Rule, Severity
from tests.rules import fixtures as fx

RULES = registry.all_rules()
SECTIONS = ("What it checks", "Why it is unsafe", "Example", "Preferred form")
FAMILIES = {
    "input",
    "gang-size",
    "routing",
    "restarts",
    "probes",
    "gpus",
    "platform",
    "schema",
    "coscheduling",
    "partition",
    "observability",
}
LINTER_ONLY = {"GANG000"}  # no object to check: fixtures are the linter's business


def ids(rule: Rule) -> str:
    return rule.code


def test_rules_are_sorted_by_code_and_reachable_by_code():
    assert [r.code for r in RULES] == sorted(registry.REGISTRY)
    assert all(registry.get(r.code.lower()) is r for r in RULES)


def test_an_unknown_code_names_the_known_ones():
    with pytest.raises(KeyError, match="GANG001"):
        registry.get("GANG999")


@pytest.mark.parametrize("rule", RULES, ids=ids)
def test_the_module_name_matches_the_rule_code_and_name(rule):
    module = registry.MODULES[rule.code].rsplit(".", 1)[1]
    assert module == f"{rule.code.lower()}_{rule.name.replace('-', '_')}"
    assert re.fullmatch(r"GANG\d{3}", rule.code) and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)


@pytest.mark.parametrize("rule", RULES, ids=ids)
def test_the_doc_has_every_section_and_a_fix_hint(rule):
    lines = {line.strip().lstrip("#").strip() for line in rule.doc.splitlines()}
    assert [s for s in SECTIONS if s not in lines] == []
    assert rule.doc.lstrip().startswith(f"{rule.code} {rule.name}")
    assert rule.fix.strip() and rule.summary.strip()
    assert rule.family in FAMILIES and isinstance(rule.severity, Severity)
    assert rule.kinds or rule.code in LINTER_ONLY


@pytest.mark.parametrize("rule", [r for r in RULES if r.code not in LINTER_ONLY], ids=ids)
def test_every_rule_has_its_three_fixture_files(rule):
    missing = [name for name in fx.FILES if not (fx.FIXTURES / rule.code / name).exists()]
    assert missing == []


@pytest.mark.parametrize("rule", RULES, ids=ids)
def test_the_rule_lives_in_its_family_folder(rule):
    assert registry.MODULES[rule.code].split(".")[-2] == rule.family.replace("-", "_")


def test_discovery_finds_only_gang_modules():
    names = [name.rsplit(".", 1)[1] for name in registry.rule_module_names()]
    assert names and all(registry.MODULE_PATTERN.match(n) for n in names)
    assert len(names) == len(RULES)


RULE_MODULE = '''
from gpufleet.rules.api import Rule, Severity
RULE = Rule(code="{code}", name="x", family="gang-size", severity=Severity.ERROR, summary="s", fix="f",
            kinds=(), check=lambda obj, ctx: [])
'''


def fake_package(tmp_path, monkeypatch, modules):
    import importlib
    import sys

    package = tmp_path / "fakerules"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in modules.items():
        (package / f"{name}.py").parent.mkdir(exist_ok=True)
        (package / f"{name}.py").parent.joinpath("__init__.py").touch()
        (package / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "fakerules", raising=False)
    return importlib.import_module("fakerules")


def test_two_modules_sharing_a_code_fail_discovery(tmp_path, monkeypatch):
    package = fake_package(
        tmp_path,
        monkeypatch,
        {"gang001_a": RULE_MODULE.format(code="GANG001"), "gang001_b": RULE_MODULE.format(code="GANG001")},
    )
    with pytest.raises(registry.RegistryError, match="GANG001 is defined twice"):
        registry.discover(package)


def test_rules_in_family_subpackages_are_found_and_their_helpers_are_not(tmp_path, monkeypatch):
    package = fake_package(
        tmp_path,
        monkeypatch,
        {"gang_size/gang001_a": RULE_MODULE.format(code="GANG001"), "gang_size/_helpers": "Y = 2\n"},
    )
    assert registry.rule_module_names(package) == ["fakerules.gang_size.gang001_a"]
    assert list(registry.discover(package)) == ["GANG001"]


def test_a_rule_module_without_rule_fails_discovery_and_helper_modules_are_ignored(tmp_path, monkeypatch):
    package = fake_package(tmp_path, monkeypatch, {"gang002_empty": "X = 1\n", "gang0_helpers": "Y = 2\n"})
    with pytest.raises(registry.RegistryError, match="gang002_empty defines no module-level RULE"):
        registry.discover(package)


class _Watched(tuple):
    """ctx.objects that records whether a rule looked at it."""

    touched = False

    def _touch(self):
        type(self).touched = True

    def __iter__(self):
        self._touch()
        return super().__iter__()

    def __len__(self):
        self._touch()
        return super().__len__()

    def __bool__(self):
        self._touch()
        return super().__len__() > 0

    def __getitem__(self, index):
        self._touch()
        return super().__getitem__(index)


def _reads_other_objects(rule) -> bool:
    """Run the rule's check over its fixtures with a ctx.objects that records any access."""
    from dataclasses import replace

    watched = type("Watched", (_Watched,), {"touched": False})
    for name in ("allowed.yaml", "disallowed.yaml"):
        if not (fx.FIXTURES / rule.code / name).exists():  # GANG000's fixtures are raw files, not objects
            continue
        objects = fx.documents(rule.code, name)
        ctx = replace(fx.context(rule.code), objects=watched(objects))
        for obj in objects:
            if rule.applies_to(obj):
                list(rule.check(obj, ctx))
    return watched.touched


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_a_rule_that_reads_other_objects_declares_needs_objects(rule):
    reads = _reads_other_objects(rule)
    assert rule.needs_objects == reads, (
        f"{rule.code}: set needs_objects={reads} so the policy pack's stack policy runs it"
    )


@pytest.mark.parametrize("rule", RULES, ids=ids)
def test_every_rule_declares_the_engine_outcomes_it_predicts_in_the_shared_vocabulary(rule):
    from gpufleet.workloads import outcomes

    assert rule.predicts is not None, (
        f"{rule.code}: declare predicts= (outcomes.NOT_JUDGED when no engine outcome shows it)"
    )
    assert isinstance(rule.predicts, frozenset) and rule.predicts <= outcomes.OUTCOMES, rule.predicts
    assert not rule.predicts & {outcomes.RAN_WHOLE, outcomes.RESTARTED_WHOLE}, (
        f"{rule.code} predicts a gang-safe outcome"
    )
