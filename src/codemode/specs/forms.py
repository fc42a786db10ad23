"""A value as a spec writes it: YAML data, and the ``schema:`` entry that builds it back.

The worker builds the data back (``worker/builders.py``): a Decimal from its text, an Enum
member from its value, a dataclass, pydantic model or project object from its fields (each
built by its annotation, so a list of models with Decimal fields is one entry,
``list[billing.Line]``), a method's receiver from its constructor's arguments and the calls
made on it before. Values are what the explorers hold: plain data, Decimal, dates, bytes,
tuples, and project objects and Enum members as recipes (anything with ``__codemode_wire__``:
``("new", {cls, args, kwargs, calls})`` or ``("member", [cls, name])``).

``NoForm`` says why a value cannot be written, and what would make it writable: the reason
goes into regen's report and back to the model (#22).
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
from typing import Any

from codemode.specs.write import yaml_safe

Form = tuple[Any, str | None]  # (YAML data, schema entry or None when the data is the value)
_DEPTH = 20


class NoForm(ValueError):
    """No spec form: ``reason`` says why, ``remedy`` what would make the value writable; the
    message is both, as the model reads it (#22)."""

    def __init__(self, reason: str, remedy: str = "") -> None:
        super().__init__(f"{reason}; {remedy}" if remedy else reason)
        self.reason = reason
        self.remedy = remedy


def to_spec(value: Any, depth: int = 0) -> Form:
    """``value`` as (YAML data, schema entry); NoForm when it has none."""
    if depth > _DEPTH:
        raise NoForm("the value is nested too deeply to write", "pass a flatter value")
    if value is None or type(value) in (bool, int, float, str):
        if yaml_safe(value):
            return value, None
        raise NoForm(
            f"{value!r} does not read back the same from YAML", "pass a value YAML holds as it is"
        )
    if isinstance(value, decimal.Decimal):
        return str(value), "decimal.Decimal"
    if isinstance(value, (dt.date, dt.time)) and yaml_safe(value):
        return value, None
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat(), f"datetime.{type(value).__name__}"
    if isinstance(value, dt.timedelta):
        return {"seconds": value.total_seconds()}, "datetime.timedelta"
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii"), "bytes"
    wire = getattr(value, "__codemode_wire__", None)
    if callable(wire) and not isinstance(value, type):
        return _project(value, wire(), depth)
    if type(value) in (list, tuple):
        return _sequence(value, depth)
    if type(value) is dict and all(type(k) is str for k in value):
        data, types = {}, set()
        for k, v in value.items():
            data[k], t = to_spec(v, depth + 1)
            types.add(t)
        return data, _one("dict", types, "str, ")
    raise NoForm(
        f"a {type(value).__name__} has no spec form",
        "build it from the project's classes, or add a fixture that builds it",
    )


def top_level(form: Form) -> Form:
    """A parameter's own form: bytes keep vowel's builder (``base64.b64decode``), a tuple
    ``builtins.tuple``, as codemode wrote them before type expressions."""
    data, t = form
    return data, {"bytes": "base64.b64decode", "tuple": "builtins.tuple"}.get(t or "", t)


def _sequence(value: list[Any] | tuple[Any, ...], depth: int) -> Form:
    data, types = [], set()
    for v in value:
        d, t = to_spec(v, depth + 1)
        data.append(d)
        types.add(t)
    if type(value) is tuple:
        inner = _one("tuple", types, "")
        return data, "tuple" if inner is None else inner[:-1] + ", ...]"
    return data, _one("list", types, "")


def _one(kind: str, types: set[str | None], key: str) -> str | None:
    """``list[T]`` for items all built by ``T``; None when none needs building."""
    if types <= {None}:
        return None
    built = types - {None}
    if len(built) > 1 or None in types:
        raise NoForm(
            f"a {kind} of values of different kinds ({', '.join(sorted(map(str, built)))})",
            "pass one kind per call",
        )
    return f"{kind}[{key}{built.pop()}]"


def _project(value: Any, wire: tuple[str, Any], depth: int) -> Form:
    kind, body = wire
    if kind == "member":
        cls, _name = body
        member_value = getattr(value, "value", None)
        if not yaml_safe(member_value):
            raise NoForm(f"{cls}.{_name} has a value YAML cannot hold", "add a fixture")
        return member_value, str(cls)
    if body.get("calls"):
        raise NoForm(
            f"a {body['cls'].rsplit('.', 1)[-1]} changed by method calls before it was passed "
            "has no spec form",
            "pass one built by its constructor",
        )
    return _fields(value, body, depth), str(body["cls"])


def _fields(value: Any, body: dict[str, Any], depth: int) -> dict[str, Any]:
    """The constructor's arguments as a mapping: positional ones named by its parameters
    (read from the source), else by the object's fields (a dataclass's order is its
    constructor's); the gate replays what is written, so a wrong name is never kept."""
    args, kwargs = list(body.get("args") or ()), dict(body.get("kwargs") or {})
    own = vars(value)
    names = list(own.get("_params") or ()) or [
        k for k in own.get("_state") or {} if not str(k).startswith("$")
    ]
    names = names[: len(args)]  # positional arguments fill the first parameters
    if len(args) > len(names) or set(names) & set(kwargs):
        raise NoForm(
            f"{body['cls']}(...) was built with {len(args)} positional arguments and no names "
            "for them",
            "build it with keyword arguments",
        )
    named = {**dict(zip(names, args)), **kwargs}
    return {k: to_spec(v, depth + 1)[0] for k, v in named.items()}


_NO_RECIPE = "the method's instance has no recipe"
_BUILD_IT = "build the instance in the snippet with the class's constructor"


def receiver(value: Any) -> Form:
    """A method's receiver: its constructor's arguments, then each call made on it before."""
    wire = getattr(value, "__codemode_wire__", None)
    if not callable(wire):
        raise NoForm(_NO_RECIPE, _BUILD_IT)
    kind, body = wire()
    if kind != "new":
        raise NoForm(_NO_RECIPE, _BUILD_IT)
    ctor = _fields(value, body, 1)
    steps: list[Any] = [ctor]
    for name, args, kwargs in body.get("calls") or ():
        if args and kwargs:
            raise NoForm(
                f"the call .{name}(...) before mixes positional and keyword arguments",
                "pass its arguments all by position or all by name",
            )
        data = {k: to_spec(v, 1)[0] for k, v in kwargs.items()} if kwargs else None
        steps.append({name: data if data is not None else [to_spec(a, 1)[0] for a in args]})
    return (steps if len(steps) > 1 else ctor), str(body["cls"])
