"""quick_init builds the same frozen dataclass as the generated __init__, only faster, and refuses what it cannot build."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpufleet.util.quickinit import quick_init


@dataclass(frozen=True)
class Plain:
    a: int
    b: str
    c: tuple[int, ...] = ()
    d: object = None


@quick_init
@dataclass(frozen=True)
class Quick:
    a: int
    b: str
    c: tuple[int, ...] = ()
    d: object = None


def fields_of(obj: object) -> dict:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}  # type: ignore[arg-type]


values = st.one_of(st.none(), st.integers(), st.text(max_size=5))


@given(
    st.integers(),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=3).map(tuple),
    values,
    st.integers(min_value=2, max_value=4),
    st.booleans(),
)
def test_every_way_of_calling_builds_what_the_generated_init_builds(a, b, c, d, given_args, by_name):
    names = ["a", "b", "c", "d"][:given_args]
    args = dict(zip(names, (a, b, c, d)))
    quick, plain = (Quick(**args), Plain(**args)) if by_name else (Quick(*args.values()), Plain(*args.values()))
    assert fields_of(quick) == fields_of(plain)
    assert repr(quick) == repr(plain).replace("Plain", "Quick")
    assert quick == Quick(**fields_of(plain)) and hash(quick) == hash(Quick(**fields_of(plain)))


def test_the_instance_stays_frozen_and_replace_copy_and_pickle_still_work():
    quick = Quick(1, "x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.a = 2  # type: ignore[misc]
    assert dataclasses.replace(quick, b="y") == Quick(1, "y")
    assert copy.deepcopy(quick) == quick and pickle.loads(pickle.dumps(quick)) == quick


@pytest.mark.parametrize("call", [lambda: Quick(1), lambda: Quick(1, "x", (), None, 5), lambda: Quick(1, "x", e=2)])
def test_missing_or_extra_arguments_raise_as_the_generated_init_does(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize(
    ("fields", "options"),
    [
        pytest.param([("a", int)], {}, id="not frozen"),
        pytest.param([("a", int)], {"frozen": True, "slots": True}, id="slots"),
        pytest.param([("a", int)], {"frozen": True, "namespace": {"__post_init__": lambda self: None}}, id="post init"),
        pytest.param([("a", list, field(default_factory=list))], {"frozen": True}, id="default factory"),
        pytest.param([("a", int)], {"frozen": True, "kw_only": True}, id="keyword only"),
    ],
)
def test_classes_it_cannot_build_faithfully_are_refused(fields, options):
    with pytest.raises(TypeError):
        quick_init(dataclasses.make_dataclass("Refused", fields, **options))


def _engine_records():
    from gpufleet.rules.gang_size._helpers import Minimum
    from gpufleet.rules.gpus.gang403_gang_exceeds_pool import Group
    from gpufleet.rules.run import TemplateDemand
    from gpufleet.workloads.types import PodTemplate, WorkloadView
    from gpufleet.workloads.volcano import Policy

    return [Minimum, Group, TemplateDemand, PodTemplate, WorkloadView, Policy]


@pytest.mark.parametrize("cls", _engine_records(), ids=lambda c: c.__name__)
def test_the_engines_records_take_their_fields_in_order_with_their_defaults(cls):
    import inspect

    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [(p.name, p.default) for p in params] == [
        (f.name, inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default)
        for f in dataclasses.fields(cls)
    ]


def test_a_read_once_property_is_computed_on_first_read_then_kept():
    from gpufleet.util.quickinit import read_once

    calls = []

    @quick_init
    @dataclass(frozen=True)
    class Record:
        value: int

        @read_once
        def double(self) -> int:
            """Twice the value."""
            calls.append(self.value)
            return self.value * 2

    record = Record(3)
    assert (record.double, record.double, calls) == (6, 6, [3])
    assert Record(3) == record and "double" not in repr(record)  # not a field: equality and repr ignore it
    assert Record.double.__doc__ == "Twice the value."
