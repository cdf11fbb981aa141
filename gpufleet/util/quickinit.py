"""``quick_init``: a frozen dataclass's ``__init__`` that stores its fields straight into ``__dict__``;
``read_once``: a property computed on first use and then kept in the instance's ``__dict__``.

A frozen dataclass's generated ``__init__`` sets each field with ``object.__setattr__``
(one C call per field, the price of refusing assignment afterwards): building a
:class:`~gpufleet.workloads.types.WorkloadView` (14 fields) cost ~2.8 µs, five times what
storing the same values into the instance's ``__dict__`` costs. The rule engine builds
views, pod templates and their per-template records for every object it checks (the
admission controller, for every review), so the hot records use this one instead.

Only the constructor changes: the instance is the same frozen dataclass (assignment
still raises ``FrozenInstanceError``; ``==``, ``hash``, ``repr``, ``dataclasses.replace``
and pickling are the dataclass's own). It accepts what the generated one accepts: the
fields in order, positionally or by name, defaults included. Classes with ``slots``,
``__post_init__``, ``default_factory``, ``InitVar`` or keyword-only fields are refused:
keep the generated ``__init__`` for those. ``tests/test_quickinit.py`` compares the two.

``read_once`` is ``functools.cached_property`` without its lock (Python 3.11 takes an
``RLock`` on every first read, which cost more than the property it saved): two threads
reading the same instance at once may both compute the value, which is harmless for a
pure function of an immutable record, what it is used for (the view's metadata).
Standard library only (the core's bottom layer).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Generic, TypeVar, overload

T = TypeVar("T")
R = TypeVar("R")
_SELF, _DICT = "__quick_init_self__", "__quick_init_dict__"  # the generated code's own names: never a field's


def quick_init(cls: type[T]) -> type[T]:
    """Replace the ``__init__`` of the frozen dataclass ``cls`` (apply above ``@dataclass(frozen=True)``)."""
    if not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]  # dataclasses sets __dataclass_params__; typeshed does not declare it
        raise TypeError(f"{cls.__name__}: quick_init is for frozen dataclasses")
    if "__slots__" in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: quick_init needs a __dict__ and no __post_init__")
    fields = dataclasses.fields(cls)
    if len(fields) != len(cls.__dataclass_fields__):
        raise TypeError(f"{cls.__name__}: quick_init does not handle InitVar or ClassVar pseudo-fields")
    defaults: dict[str, Any] = {}
    params = []
    for f in fields:
        if not f.init or f.kw_only or f.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: quick_init needs plain positional fields")
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            defaults[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
    if {f.name for f in fields} & {_SELF, _DICT}:
        raise TypeError(f"{cls.__name__}: a field is named {_SELF} or {_DICT}")
    body = "".join(f"    {_DICT}[{f.name!r}] = {f.name}\n" for f in fields)
    source = f"def __init__({', '.join([_SELF, *params])}):\n    {_DICT} = {_SELF}.__dict__\n{body}"
    namespace: dict[str, Any] = {}
    exec(source, defaults, namespace)  # noqa: S102 - the source is built from the class's own field names
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]  # the generated __init__ replaces the dataclass's
    return cls


class read_once(Generic[R]):  # noqa: N801 - used as a decorator, like property
    """A property computed on first read and stored in the instance's ``__dict__`` (a plain attribute after that)."""

    def __init__(self, fn: Callable[[Any], R]) -> None:
        self.fn, self.name = fn, fn.__name__
        self.__doc__ = fn.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> read_once[R]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> R: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> R | read_once[R]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.fn(instance)
        return value
