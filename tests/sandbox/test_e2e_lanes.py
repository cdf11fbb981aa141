"""The e2e tier's two lanes (tests/e2e/lanes.py): every module runs in exactly one lane, modules that share a
sandbox share a lane, and the expected work is balanced with lane 1's head start (the tiers before the e2e tier)."""

from __future__ import annotations

import pytest

from tests.e2e.lanes import DEFAULT_SECONDS, assign, parse, seconds

TABLE = {"a.py": 300, "b.py": 200, "c.py": 100, "d.py": 100, "e.py": 50}


def test_every_module_runs_in_exactly_one_lane_in_the_order_given():
    modules = [(f"tests/e2e/{n}", None) for n in ("e.py", "a.py", "d.py", "b.py", "c.py")]
    lanes = assign(modules, 2, head=0, table=TABLE)
    assert sorted(n for lane in lanes for n in lane) == sorted(n for n, _ in modules)
    order = [n for n, _ in modules]
    assert all(lane == sorted(lane, key=order.index) for lane in lanes)


def test_the_heaviest_modules_go_to_the_lane_with_the_least_work_and_lane_1_starts_with_its_head():
    modules = [(n, None) for n in TABLE]
    assert assign(modules, 2, head=0, table=TABLE) == [["a.py", "d.py"], ["b.py", "c.py", "e.py"]]
    assert assign(modules, 2, head=1000, table=TABLE) == [[], list(TABLE)]


def test_modules_that_lease_one_sandbox_stay_in_one_lane_whatever_it_costs():
    modules = [("a.py", "dev"), ("b.py", None), ("c.py", "dev"), ("d.py", None)]
    lanes = assign(modules, 2, head=0, table=TABLE)
    assert ["a.py", "c.py"] in [[n for n in lane if n in ("a.py", "c.py")] for lane in lanes]
    assert any({"a.py", "c.py"} <= set(lane) for lane in lanes)


def test_a_module_not_in_the_table_counts_the_default():
    assert seconds("tests/e2e/test_new_e2e.py", TABLE) == DEFAULT_SECONDS
    assert seconds("tests/e2e/a.py", TABLE) == 300


def test_one_lane_runs_everything():
    modules = [(n, None) for n in TABLE]
    assert assign(modules, 1, table=TABLE) == [list(TABLE)]


@pytest.mark.parametrize("text, lane", [(None, None), ("", None), ("1/2", (1, 2)), (" 2 / 2 ", (2, 2))])
def test_the_lane_is_read_as_k_of_n(text, lane):
    assert parse(text) == lane


@pytest.mark.parametrize("text", ["0/2", "3/2", "2", "a/b", "1/0"])
def test_a_lane_outside_1_to_n_is_one_clear_error_naming_the_variable(text):
    with pytest.raises(ValueError, match=r"GPUFLEET_E2E_LANE=.*expected K/N"):
        parse(text)


def test_two_processes_given_the_modules_in_another_order_agree_on_the_split():
    modules = [("a.py", None), ("b.py", "dev"), ("c.py", None), ("d.py", "dev"), ("e.py", None), ("f.py", None)]
    table = {**TABLE, "c.py": 300, "f.py": 50}  # the pool group b+d weighs what c weighs: a tie
    one = assign(modules, 2, head=100, table=table)
    other = assign(list(reversed(modules)), 2, head=100, table=table)
    assert [set(lane) for lane in one] == [set(lane) for lane in other]
