"""The e2e tier's two lanes (tests/e2e/lanes.py): every module runs in exactly one lane, modules that share a
sandbox share a lane, the expected work is balanced with lane 1's head start (the tiers before the e2e tier), and a
module that runs alone has no other module beside it (the lanes' lock, taken here by threads: flock locks an open
file, so two threads conflict as two processes do)."""

from __future__ import annotations

import threading
import time

import pytest

from tests.e2e.lanes import DEFAULT_SECONDS, assign, parse, seconds, turn

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


def test_modules_that_run_alone_go_to_lane_1_with_their_pool_peers():
    modules = [("a.py", None), ("b.py", "dev"), ("c.py", None), ("d.py", "dev"), ("e.py", None)]
    lanes = assign(modules, 2, head=10_000, table=TABLE, alone=frozenset({"d.py"}))
    assert {"b.py", "d.py"} <= set(lanes[0])


def test_the_modules_that_wait_for_the_whole_build_are_balanced_among_themselves():
    """On a cold cache they all run after the build: the lane with less early work must not get all the late."""
    modules = [(n, None) for n in TABLE]
    late = frozenset({"b.py", "e.py"})
    assert assign(modules, 2, head=0, table=TABLE)[1] == ["b.py", "c.py", "e.py"]  # by the totals alone: together
    assert assign(modules, 2, head=0, table=TABLE, late=late) == [["a.py", "b.py"], ["c.py", "d.py", "e.py"]]


def _in_turn(path, alone, entered, leave):
    with turn(path, alone):
        entered.set()
        leave.wait(10)


def _start(path, alone):
    entered, leave = threading.Event(), threading.Event()
    thread = threading.Thread(target=_in_turn, args=(path, alone, entered, leave), daemon=True)
    thread.start()
    return thread, entered, leave


def test_modules_of_both_lanes_run_side_by_side(tmp_path):
    one, two = _start(tmp_path / "lock", False), _start(tmp_path / "lock", False)
    assert one[1].wait(5) and two[1].wait(5)
    one[2].set(), two[2].set()


def test_a_module_that_runs_alone_waits_for_the_other_lanes_module_and_holds_back_its_next(tmp_path):
    running = _start(tmp_path / "lock", False)
    assert running[1].wait(5)
    alone = _start(tmp_path / "lock", True)
    assert not alone[1].wait(0.5)  # the other lane's module is still running
    time.sleep(0.2)
    following = _start(tmp_path / "lock", False)
    running[2].set()
    assert alone[1].wait(5)
    assert not following[1].wait(0.5)  # the next module waits for the one that runs alone
    alone[2].set()
    assert following[1].wait(5)
    following[2].set()


def test_the_seconds_of_a_module_that_runs_alone_count_in_every_lane_for_the_others_wait_meanwhile():
    modules = [("a.py", None), ("b.py", None), ("c.py", None)]
    assert assign(modules, 2, head=0, table=TABLE, alone=frozenset({"a.py"})) == [["a.py", "b.py"], ["c.py"]]
