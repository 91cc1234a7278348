"""`drift_check.records.NamedTuple` makes the classes `typing.NamedTuple` makes.

Every record class of the package is rebuilt with `typing.NamedTuple` from the same class
body, and the two are compared: their attributes, their methods' names and docs, and what
instances do (construction by position and keyword, defaults, errors, repr, `_replace`,
`_asdict`, `_make`, pickling, copying, equality and hashing).
"""

from __future__ import annotations

import copy
import importlib
import inspect
import pickle
import pkgutil
import sys
import types
import typing
from typing import Any

import pytest

import drift_check
from drift_check.records import NamedTuple

# what a record class's namedtuple defines, as opposed to what its body defines
GENERATED = {
    "__doc__",
    "__slots__",
    "_fields",
    "_field_defaults",
    "__new__",
    "_make",
    "_replace",
    "__repr__",
    "_asdict",
    "__getnewargs__",
    "__match_args__",
    "__module__",
    "__annotations__",
    "__orig_bases__",
}


def record_classes() -> list[type]:
    """Every class of the package made with `records.NamedTuple`."""
    for info in pkgutil.walk_packages(drift_check.__path__, "drift_check."):
        if not info.name.endswith(".__main__"):
            importlib.import_module(info.name)
    found = {
        id(value): value
        for name, module in sorted(sys.modules.items())
        if name == "drift_check" or name.startswith("drift_check.")
        for value in vars(module).values()
        if isinstance(value, type)
        and value.__module__ == name
        and getattr(value, "__orig_bases__", None) == (typing.NamedTuple,)
    }
    return sorted(found.values(), key=lambda c: (c.__module__, c.__qualname__))


def body_of(cls: type) -> dict[str, Any]:
    """The namespace the class statement of `cls` gave its metaclass."""
    body = {k: v for k, v in vars(cls).items() if k not in GENERATED and k not in cls._fields}
    body.update(cls._field_defaults)
    body["__module__"] = cls.__module__
    body["__qualname__"] = cls.__qualname__
    body["__annotations__"] = dict(cls.__annotations__)
    if cls.__doc__ != f"{cls.__name__}({', '.join(cls._fields)}{',' * (len(cls._fields) == 1)})":
        body["__doc__"] = cls.__doc__
    return body


def with_typing(cls: type) -> type:
    """`cls` made again by `typing.NamedTuple` from the same body."""
    body = body_of(cls)
    return types.new_class(cls.__name__, (typing.NamedTuple,), {}, lambda ns: ns.update(body))


def synthetic(base: Any) -> list[type]:
    """Shapes the package may not have: no field, one field, only defaults, a method."""

    class Empty(base):
        pass

    class One(base):
        only: int

    class Defaults(base):
        """All defaulted."""

        a: int = 1
        b: str = "b"

    class Method(base):
        x: int
        y: list[int] = []  # noqa: RUF012

        def total(self) -> int:
            return self.x + sum(self.y)

        def __str__(self) -> str:
            return f"<{self.x}>"

    return [Empty, One, Defaults, Method]


def methods(cls: type) -> dict[str, tuple[object, ...]]:
    out = {}
    for name, value in vars(cls).items():
        func = getattr(value, "__func__", value)
        if isinstance(func, types.FunctionType):
            out[name] = (func.__name__, func.__qualname__, func.__doc__, func.__defaults__)
        elif name in cls._fields:
            out[name] = (repr(value), value.__doc__)
    return out


def parameters(cls: type) -> list[tuple[str, object, object]]:
    """The signature, without annotations: `typing.NamedTuple` turns strings into
    `ForwardRef`s, records keep them as written."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


def outcome(call: Any, *args: Any) -> object:
    try:
        return call(*args)
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def compare(ours: type, theirs: type) -> None:
    assert set(vars(ours)) == set(vars(theirs))
    for name in ("_fields", "_field_defaults", "__match_args__", "__slots__", "__doc__"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert (ours.__module__, ours.__qualname__, ours.__name__) == (
        theirs.__module__,
        theirs.__qualname__,
        theirs.__name__,
    )
    assert ours.__bases__ == theirs.__bases__ == (tuple,)
    assert type(ours) is type(theirs) is type
    assert ours.__orig_bases__ == theirs.__orig_bases__
    assert list(ours.__annotations__) == list(theirs.__annotations__) == list(ours._fields)
    assert parameters(ours) == parameters(theirs)
    assert methods(ours) == methods(theirs)
    new_ours, new_theirs = ours.__new__, theirs.__new__
    for name in ("__name__", "__qualname__", "__doc__", "__defaults__", "__module__"):
        assert getattr(new_ours, name) == getattr(new_theirs, name), name
    values = [f"v{i}" for i in range(len(ours._fields))]
    keywords = dict(zip(ours._fields, values, strict=True))
    calls = [
        lambda c: c(*values),
        lambda c: c(**keywords),
        lambda c: c(*values[: len(values) - len(c._field_defaults)]),
        lambda c: c(*values, "extra"),
        lambda c: c(unknown=1),
        lambda c: c(),
        lambda c: c._make(values),
        lambda c: c._make([*values, "extra"]),
    ]
    for call in calls:
        assert repr(outcome(call, ours)) == repr(outcome(call, theirs))
    a, b = ours(*values), theirs(*values)
    assert tuple(a) == tuple(b) and hash(a) == hash(b) and a == b
    assert repr(a) == repr(b) and outcome(lambda: str(a)) == outcome(lambda: str(b))
    assert a._asdict() == b._asdict()
    assert outcome(lambda: a._replace(nope=1)) == outcome(lambda: b._replace(nope=1))
    if ours._fields:
        changed = {ours._fields[0]: "changed"}
        assert tuple(a._replace(**changed)) == tuple(b._replace(**changed))
        assert type(a._replace(**changed)) is ours
    for name in ours._fields:
        assert getattr(a, name) == getattr(b, name)
    assert copy.copy(a) == a and type(copy.deepcopy(a)) is ours


RECORDS = record_classes()


def test_the_package_has_record_classes() -> None:
    assert len(RECORDS) > 100


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_records_are_typing_named_tuples(cls: type) -> None:
    compare(cls, with_typing(cls))


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_records_pickle(cls: type) -> None:
    value = cls(*[f"v{i}" for i in range(len(cls._fields))])
    again = pickle.loads(pickle.dumps(value))
    assert again == value and type(again) is cls


@pytest.mark.parametrize("index", range(4))
def test_shapes(index: int) -> None:
    compare(synthetic(NamedTuple)[index], synthetic(typing.NamedTuple)[index])


@pytest.mark.parametrize(
    "body",
    [
        "class Bad(NamedTuple):\n    a: int = 1\n    b: int\n",
        "class Bad(NamedTuple):\n    _a: int\n",
        "class Bad(NamedTuple):\n    a: int\n    def _replace(self): pass\n",
        "class Bad(NamedTuple):\n    a: int\n    _fields = ()\n",
    ],
)
def test_bad_bodies_fail_as_with_typing(body: str) -> None:
    for base in (NamedTuple, typing.NamedTuple):
        with pytest.raises((TypeError, ValueError, AttributeError)):
            exec(body, {"NamedTuple": base, "__name__": "bad"})
