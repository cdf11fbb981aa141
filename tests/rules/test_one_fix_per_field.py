"""One field, one owner, one fix: over every rule fixture, no field of an object gets two different fixes.

Every rule runs on every fixture file (allowed and disallowed, with the fixture's fleet context and
options), as a user's lint run would. Two findings whose fixes set the same field of the same object
(``set <path> to ...``) must ask for the same value: following one must not fail the other. (Findings
at one path whose fixes change different fields, such as ``waitForPodsReady.timeout`` and
``waitForPodsReady.requeuingStrategy``, do not clash.)
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from gpufleet.rules import engine
from tests.rules import fixtures as fx

CASES = sorted(
    (folder.name, name)
    for folder in fx.FIXTURES.iterdir()
    if folder.is_dir()
    for name in ("allowed.yaml", "disallowed.yaml")
    if (folder / name).exists()
)


@pytest.mark.parametrize(("code", "name"), CASES, ids=[f"{c}-{n.removesuffix('.yaml')}" for c, n in CASES])
def test_no_field_is_set_to_two_different_values_by_two_fixes(code, name):
    fixes: dict[tuple[str, str, str], dict[str, str]] = defaultdict(dict)
    for finding in engine.check_objects(fx.documents(code, name), fx.context(code)):
        path = str(finding.path)
        if finding.fix.startswith(f"set {path} "):
            fixes[(finding.kind, str(finding.object_name), path)][finding.code] = finding.fix
    clashes = {where: by_code for where, by_code in fixes.items() if len(set(by_code.values())) > 1}
    assert clashes == {}
