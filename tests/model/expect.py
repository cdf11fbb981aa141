"""Shared shape of the rule tests: one failing and one passing model per rule.

Each :class:`Case` edits the default fleet of :mod:`tests.model.builders` twice: ``bad``
breaks one rule, ``good`` is the nearest valid model; :func:`setting` builds the
common case that only sets one field to a bad and a good value. :func:`reported` also breaks an
unrelated field (the *companion*) and checks that both problems come back from one
run, so every rule test also proves that validation accumulates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pytest

from gpufleet.yamlin.errors import Issue
from tests.model.builders import FleetBuilder, fleet

Edit = Callable[[FleetBuilder], FleetBuilder]


def _unsupported_kueue(b: FleetBuilder) -> FleetBuilder:
    return b.set("engines.kueue.chartVersion", "0.18.6")


def _system_namespace(b: FleetBuilder) -> FleetBuilder:
    return b.set("teams[0].namespaces", ["alpha", "kube-system"])


COMPANIONS: dict[str, tuple[Edit, str]] = {
    "chart": (_unsupported_kueue, "engines.kueue.chartVersion"),
    "namespace": (_system_namespace, "teams[0].namespaces[1]"),
}


@dataclass(frozen=True)
class Case:
    id: str
    bad: Edit
    good: Edit
    path: str
    says: str
    """A fragment of the expected message."""
    companion: str = "chart"


def setting(
    id: str, path: str, bad: Any, good: Any, says: str, at: str | None = None, companion: str = "chart"
) -> Case:
    """The case that sets one field of the default fleet: to ``bad``, reported at ``at``
    (the field itself unless given), and to ``good``, the nearest valid value."""
    return Case(id, lambda f: f.set(path, bad), lambda f: f.set(path, good), at or path, says, companion)


def params(cases: list[Case]) -> list:
    return [pytest.param(c, id=c.id) for c in cases]


def _show(issues: list[Issue]) -> str:
    return "\n".join(i.render() for i in issues) or "(no issues)"


def reported(case: Case) -> list[Issue]:
    """Assert the rule fires at its exact path, together with the companion problem."""
    edit, companion_path = COMPANIONS[case.companion]
    issues = edit(case.bad(fleet())).issues()
    at_path = [i for i in issues if i.path == case.path]
    assert at_path, f"nothing reported at {case.path}:\n{_show(issues)}"
    assert any(case.says in i.message for i in at_path), (
        f"no message with {case.says!r} at {case.path}:\n{_show(issues)}"
    )
    assert all(i.fix for i in at_path), "every issue names a fix"
    assert companion_path in {i.path for i in issues}, (
        f"validation stopped early; {companion_path} missing:\n{_show(issues)}"
    )
    return issues


def clean(case: Case) -> None:
    issues = case.good(fleet()).issues()
    assert issues == [], _show(issues)
