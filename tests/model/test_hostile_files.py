"""The model loader on hostile files (issue 11): every case is a ModelError with a path and a fix, fast.

One regression test per case the fuzzer found; each read goes through ``load_model`` from
a real file, as the CLI and the Pulumi program read it.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gpufleet.model.loader import MAX_ISSUES, load_model
from gpufleet.yamlin.errors import ModelError

REPO = Path(__file__).resolve().parents[2]
BASE = (REPO / "stacks" / "dev.fleet.yaml").read_text()
QUOTA = "l4: {nominal: 16, borrowingLimit: 8}"
NODE_COUNT_LINE = f"line {BASE[: BASE.index('nodeCount: 4')].count(chr(10)) + 1}"
"""The line of the dev stack's first ``nodeCount: 4`` (the stack's comments move it)."""


def laughs(levels: int = 4) -> str:
    lines = ["x: &a [1,2,3,4,5,6,7,8,9,10]"]
    for i in range(1, levels):
        lines.append(f"x{i}: &{'abcdefgh'[i]} [" + ",".join([f"*{'abcdefgh'[i - 1]}"] * 10) + "]")
    return "\n".join(lines) + "\n"


CASES = {
    "yaml-infinity": (
        BASE.replace(QUOTA, "l4: {nominal: .inf, borrowingLimit: 8}"),
        "teams[0].quota.l4.nominal",
        "out of range",
    ),
    "float-overflow": (
        BASE.replace(QUOTA, "l4: {nominal: 1.0e+400, borrowingLimit: 8}"),
        "teams[0].quota.l4.nominal",
        "out of range",
    ),
    "nan": (BASE.replace(QUOTA, "l4: {nominal: .nan, borrowingLimit: 8}"), "teams[0].quota.l4.nominal", "out of range"),
    "huge-exponent-quantity": (
        BASE.replace(QUOTA, "l4: {nominal: 1e9999999, borrowingLimit: 8}"),
        "teams[0].quota.l4.nominal",
        "largest Kubernetes quantity",
    ),
    "negative-gpus-no-quota": (
        BASE.replace("allocatable: {nvidia.com/gpu: 4,", "allocatable: {nvidia.com/gpu: -4,").replace(
            "      t4: {nominal: 4}\n", ""
        ),
        "pools[1].allocatable.nvidia.com/gpu",
        "negative",
    ),
    "deep-list-in-scalar": (
        BASE.replace("nodeCount: 4", "nodeCount: " + "[" * 1000 + "]" * 1000),
        NODE_COUNT_LINE,
        "nest",
    ),
    "fair-share-weight": (
        BASE.replace(
            "    cohort: dev\n    quota:\n      " + QUOTA,
            "    cohort: dev\n    fairShareWeight: \"1e9999999\"\n    quota:\n      " + QUOTA,
        ),
        "teams[0].fairShareWeight",
        "largest Kubernetes quantity",
    ),
    "4301-digits": (BASE.replace("nodeCount: 4", "nodeCount: " + "9" * 4301), "pools[0].nodeCount", "out of range"),
    "30000-deep": (BASE + "x: " + "[" * 30000 + "]" * 30000 + "\n", "line", "nest"),
    "30000-deep-block": (BASE + "x:\n" + "".join(" " * i + "- \n" for i in range(1, 1200)), "line", "indented"),
    "alias-bomb": (
        BASE.replace("teams:", laughs() + "teams:").replace(
            "namespaces: [alpha]", "namespaces: [" + ",".join(["*d"] * 10) + "]"
        ),
        "(document)",
        "aliases",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_model_is_one_clear_issue_with_its_path_not_a_traceback(tmp_path, name):
    text, path, words = CASES[name]
    file = tmp_path / "fleet.yaml"
    file.write_text(text)
    started = time.perf_counter()
    with pytest.raises(ModelError) as caught:
        load_model(file)
    assert time.perf_counter() - started < 2.0
    issues = caught.value.issues
    assert any(str(i.path).startswith(path) and words in i.message and i.fix for i in issues), caught.value.lines()
    assert not any("could not check this model" in i.message for i in issues), caught.value.lines()


@pytest.mark.parametrize(
    "data, words",
    [
        (BASE.encode("utf-16"), "UTF-16"),
        (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)), "binary"),
        (BASE.replace("Default", "D\u00e9fault").encode("latin-1"), "not UTF-8"),
    ],
    ids=["utf-16", "binary", "latin-1"],
)
def test_a_binary_or_non_utf8_file_says_so_with_a_fix(tmp_path, data, words):
    file = tmp_path / "fleet.yaml"
    file.write_bytes(data)
    with pytest.raises(ModelError) as caught:
        load_model(file)
    (issue,) = caught.value.issues
    assert issue.path == "(file)" and words in issue.message and "UTF-8" in issue.fix + issue.message


def test_many_errors_are_listed_up_to_the_cap_and_then_counted(tmp_path):
    teams = "".join(f"  - name: t{i}\n    namespaces: [n{i}]\n    bogus{i}: 1\n" for i in range(200))
    file = tmp_path / "fleet.yaml"
    file.write_text(BASE.split("teams:")[0] + "teams:\n" + teams)
    with pytest.raises(ModelError) as caught:
        load_model(file)
    issues = caught.value.issues
    assert len(issues) == MAX_ISSUES + 1
    assert issues[-1].path == "(more)" and "more issue(s)" in issues[-1].message


def test_the_real_stacks_still_load(tmp_path):
    for stack in ("dev", "prod"):
        assert load_model(REPO / "stacks" / f"{stack}.fleet.yaml").name == stack
