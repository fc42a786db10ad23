"""What one case did in the worker, as the parent holds it. Parent side only.

A class with its ``__init__`` written out, not a dataclass: every check builds one per case,
and ``dataclasses`` (with ``inspect``) cost ~7 ms of every check's start (#36).
"""

from __future__ import annotations

from typing import Any, NamedTuple


class TypeMismatch(NamedTuple):
    """The worker's answer to a ``type:`` check that did not hold."""

    message: str
    spec_error: bool = False  # the type expression itself cannot be checked


class Outcome:
    """What one case did in the worker."""

    # The fields in their order (the repr's), and the same names as the slots.
    FIELDS = (
        "case",
        "kind",
        "value",
        "exc",
        "message",
        "duration_ms",
        "types",
        "lines",
        "typed",
        "args",
        "kwargs",
        "clock",
        "blocked",
        "built",
        "after",
        "callable",
    )
    __slots__ = (
        "after",
        "args",
        "blocked",
        "built",
        "callable",
        "case",
        "clock",
        "duration_ms",
        "exc",
        "kind",
        "kwargs",
        "lines",
        "message",
        "typed",
        "types",
        "value",
    )

    def __init__(
        self,
        case: str,
        kind: str,  # returned | raised | error
        value: Any = None,
        exc: dict[str, Any] | None = None,
        message: str = "",
        duration_ms: float | None = None,
        types: list[TypeMismatch | None] | None = None,
        lines: list[int] | None = None,
        typed: Any = None,  # the result with its Python types (Decimal, date...), when asked
        # the arguments the worker built from expressions (docstring and test calls), if any
        args: list[Any] | None = None,
        kwargs: dict[str, Any] | None = None,
        clock: str | None = None,  # the clock read the project's code made while exploring
        blocked: str | None = None,  # the side effect the wall stopped (worker/wall.py)
        built: str | None = None,  # built arguments with no YAML form: a digest (exploring)
        # the receiver's and mutable arguments' state before and after the call, each by
        # name (after.py): the behaviour diff's, when it asked
        after: list[dict[str, Any]] | None = None,
        # it returned a callable (not a class): the behaviour diff calls it next (#32)
        callable: bool = False,
    ) -> None:
        self.case = case
        self.kind = kind
        self.value = value
        self.exc = exc
        self.message = message
        self.duration_ms = duration_ms
        self.types: list[TypeMismatch | None] = [] if types is None else types
        self.lines = lines
        self.typed = typed
        self.args = args
        self.kwargs = kwargs
        self.clock = clock
        self.blocked = blocked
        self.built = built
        self.after = after
        self.callable = callable

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Outcome)
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.FIELDS)
        return f"Outcome({inner})"
