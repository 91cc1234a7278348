"""`NamedTuple` for the package's records: the classes `typing.NamedTuple` makes, made
without compiling code for each one.

`typing.NamedTuple` builds a class with `collections.namedtuple`, which compiles the class's
`__new__` from source, and it compiles every string annotation into a `ForwardRef`: about
0.6M instructions a class, a fifth of a run on a small tree for the hundred classes a run
defines. Here a class's `__new__` is a copy of one compiled function per number of fields,
its parameters renamed to the fields; the rest is what `collections.namedtuple` and
`typing.NamedTuple` set (tests/test_records.py compares the two on every record class of
the package). Annotations are kept as written (strings under `from __future__ import
annotations`), as on any other class. Type checkers see `typing.NamedTuple` itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    import sys
    import typing
    from collections import _tuplegetter  # the field accessor namedtuple itself uses
    from keyword import iskeyword
    from types import CodeType, FunctionType

    # what a record class may not define itself, and what it defines that is not copied
    # onto the class (as typing.NamedTuple)
    _RESERVED = frozenset(
        {
            "__new__",
            "__init__",
            "__slots__",
            "__getnewargs__",
            "_fields",
            "_field_defaults",
            "_make",
            "_replace",
            "_asdict",
            "_source",
        }
    )
    _NOT_COPIED = frozenset({"__module__", "__name__", "__annotations__"})
    _new_codes: dict[int, CodeType] = {}

    def _new_code(arity: int) -> CodeType:
        """`__new__`'s code for `arity` fields: `(_cls, f0, f1, ...)` to the tuple."""
        code = _new_codes.get(arity)
        if code is None:
            args = ", ".join(f"f{i}" for i in range(arity)) + ("," if arity == 1 else "")
            # the lambda is compiled, not run: its code is a constant of the expression's
            # (field names never reach the source; they replace the parameters' names)
            source = f"lambda _cls, {args}: _tuple_new(_cls, ({args}))"
            outer = compile(source, "<string>", "eval")
            code = next(c for c in outer.co_consts if isinstance(c, CodeType))
            _new_codes[arity] = code
        return code

    def _methods(typename: str, fields: tuple[str, ...]) -> dict[str, object]:
        """The methods `collections.namedtuple` gives a class, with its docs and names."""
        count = len(fields)
        shown = "(" + ", ".join(f"{name}=%r" for name in fields) + ")"
        new_tuple = tuple.__new__

        @classmethod
        def _make(cls, iterable):
            result = new_tuple(cls, iterable)
            if len(result) != count:
                raise TypeError(f"Expected {count} arguments, got {len(result)}")
            return result

        def _replace(self, /, **kwds):
            result = self._make(map(kwds.pop, fields, self))
            if kwds:
                raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
            return result

        def __repr__(self):
            "Return a nicely formatted representation string"
            return self.__class__.__name__ + shown % self

        def _asdict(self):
            "Return a new dict which maps field names to their values."
            return dict(zip(self._fields, self, strict=False))

        def __getnewargs__(self):
            "Return self as a plain tuple.  Used by copy and pickle."
            return tuple(self)

        _make.__func__.__doc__ = f"Make a new {typename} object from a sequence or iterable"
        _replace.__doc__ = (
            f"Return a new {typename} object replacing specified fields with new values"
        )
        methods = {
            "_make": _make,
            "_replace": _replace,
            "__repr__": __repr__,
            "_asdict": _asdict,
            "__getnewargs__": __getnewargs__,
        }
        for method in (_make.__func__, _replace, __repr__, _asdict, __getnewargs__):
            method.__qualname__ = f"{typename}.{method.__name__}"
        return methods

    def _record(typename: str, namespace: dict[str, object]) -> type:
        """The class a `class typename(NamedTuple)` statement with this body defines."""
        annotations = namespace.get("__annotations__", {})
        fields = tuple(map(sys.intern, annotations))
        for name in (typename, *fields):
            if not name.isidentifier() or iskeyword(name):
                raise ValueError(f"not a valid record or field name: {name!r}")
        defaults = tuple(namespace[f] for f in fields if f in namespace)
        with_defaults = fields[len(fields) - len(defaults) :]
        if any(f not in namespace for f in with_defaults):
            raise TypeError(f"{typename}: a field without a default follows one with a default")
        for name in fields:
            if name.startswith("_"):
                raise ValueError(f"Field names cannot start with an underscore: {name!r}")
        args = ", ".join(fields) + ("," if len(fields) == 1 else "")
        new = FunctionType(
            _new_code(len(fields)).replace(co_varnames=("_cls", *fields)),
            {"_tuple_new": tuple.__new__, "__builtins__": {}, "__name__": f"namedtuple_{typename}"},
            "__new__",
        )
        new.__defaults__ = defaults
        new.__doc__ = f"Create new instance of {typename}({args})"
        new.__qualname__ = f"{typename}.__new__"
        new.__annotations__ = annotations
        body: dict[str, object] = {
            "__doc__": f"{typename}({args})",
            "__slots__": (),
            "_fields": fields,
            "_field_defaults": dict(zip(with_defaults, defaults, strict=True)),
            "__new__": new,
            **_methods(typename, fields),
            "__match_args__": fields,
        }
        for index, name in enumerate(fields):
            body[name] = _tuplegetter(index, sys.intern(f"Alias for field number {index}"))
        for key, value in namespace.items():
            if key in _RESERVED:
                raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
            if key not in _NOT_COPIED and key not in fields:
                body[key] = value
        body["__module__"] = namespace["__module__"]
        body["__annotations__"] = annotations
        body["__orig_bases__"] = (typing.NamedTuple,)
        return type(typename, (tuple,), body)

    class _RecordMeta(type):
        """Makes `class X(NamedTuple)` a plain tuple subclass, as typing's metaclass does."""

        def __new__(cls, typename, bases, namespace):
            if bases != (NamedTuple,):
                raise TypeError("a record class derives from NamedTuple alone")
            return _record(typename, namespace)

    NamedTuple = type.__new__(_RecordMeta, "NamedTuple", (), {"__module__": __name__})
