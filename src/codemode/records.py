"""Frozen records without ``dataclasses``, for the spec records every check loads (#36).

``dataclasses`` imports ``inspect`` (and with it ``ast``, ``dis``, ``tokenize``: ~6 ms) and
compiles six methods for each frozen class it makes (~1 ms a class): 13-15 ms of every check
that loads a spec file, before its first case can run. The spec records are built by the
loader and the parsed cache without their ``__init__`` (``specs.types.built``), so nothing
needs methods written for each class: ``record`` gives a class the behaviour of a frozen
dataclass from one shared implementation (construction by position or keyword with defaults
and ``field(default_factory=...)``, equality and hash by field within the class, the same
repr, assignment refused), ``replace`` is ``dataclasses.replace`` and ``field_names`` its
``fields``. For the type checker they are frozen dataclasses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

T = TypeVar("T")


class FrozenRecordError(AttributeError):
    """An assignment to a field of a record (``dataclasses.FrozenInstanceError``'s role)."""


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    cls = type(self)
    names: tuple[str, ...] = cls.__record_fields__
    if len(args) > len(names):
        raise TypeError(f"{cls.__name__}() takes {len(names)} arguments, {len(args)} given")
    values = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {key!r}")
        if key in values:
            raise TypeError(f"{cls.__name__}() got multiple values for argument {key!r}")
        values[key] = value
    for name in names[len(args) :]:
        if name not in values:
            default = cls.__record_defaults__.get(name, _MISSING)
            if default is _MISSING:
                raise TypeError(f"{cls.__name__}() missing argument {name!r}")
            values[name] = default.make() if type(default) is _Factory else default
    self.__dict__.update(values)


_MISSING = object()


def _values(self: Any) -> tuple[Any, ...]:
    d = self.__dict__
    return tuple(d[n] for n in type(self).__record_fields__)


def _eq(self: Any, other: object) -> Any:  # bool, or NotImplemented for another class
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)


def _hash(self: Any) -> int:
    return hash(_values(self))


def _repr(self: Any) -> str:
    d = self.__dict__
    inner = ", ".join(f"{n}={d[n]!r}" for n in type(self).__record_fields__)
    return f"{type(self).__qualname__}({inner})"


def _refuse(self: Any, name: str, value: Any = None) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r}")


def _record(cls: type[T]) -> type[T]:
    # The class's own annotations (inspect.get_annotations would import inspect, the cost
    # this module avoids); with `from __future__ import annotations` they are strings.
    names = tuple(cls.__dict__.get("__annotations__", {}))  # noqa: RUF063
    defaults: dict[str, Any] = {}
    for name in names:
        if name in cls.__dict__:
            defaults[name] = cls.__dict__[name]
            if type(defaults[name]) is _Factory:
                delattr(cls, name)  # a shared default would be every record's one object
    kinds: Any = cls
    kinds.__record_fields__ = names
    kinds.__record_defaults__ = defaults
    kinds.__init__ = _init
    kinds.__eq__ = _eq
    kinds.__hash__ = _hash
    kinds.__repr__ = _repr
    kinds.__setattr__ = _refuse
    kinds.__delattr__ = _refuse
    setattr(kinds, "__match_args__", names)  # noqa: B010  (mypy: a read-only name)
    return cls


def _field(*, default_factory: Callable[[], Any]) -> Any:
    return _Factory(default_factory)


def _replace(obj: T, **changes: Any) -> T:
    """A copy of the record ``obj`` with ``changes``, checked as its construction is."""
    values = dict(zip(type(obj).__record_fields__, _values(obj)))  # type: ignore[attr-defined]
    for key in changes:
        if key not in values:
            raise TypeError(f"{type(obj).__name__} has no field {key!r}")
    values.update(changes)
    out = object.__new__(type(obj))
    out.__dict__.update(values)
    return out


def field_names(cls: type) -> tuple[str, ...]:
    """The fields of a record class, in their order."""
    return cls.__record_fields__  # type: ignore[attr-defined,no-any-return]


if TYPE_CHECKING:
    from dataclasses import field as field
    from dataclasses import replace as replace

    from typing_extensions import dataclass_transform

    @dataclass_transform(frozen_default=True, field_specifiers=(field,))
    def record(cls: type[T]) -> type[T]: ...

else:
    record, field, replace = _record, _field, _replace
