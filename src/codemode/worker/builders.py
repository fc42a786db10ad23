"""The spec forms of values real code passes and returns (stdlib only, loaded by the worker).

A vowel serializer's ``schema:`` names, per parameter, what builds the YAML data into the value
the function takes. vowel calls the builder with the data (``Decimal("2.50")``,
``Model.model_validate({...})``, ``Class(**{...})``). codemode extends that, and every spec
that ran under vowel runs the same (#22):

- a schema entry may be a **type expression**: ``list[billing.Line]``, ``dict[str, Decimal]``,
  ``tuple[int, ...]``, ``billing.Charge | None``; the data is built item by item;
- a dataclass or a class built from a mapping gets each field **built by its annotation**
  (a Decimal field from its text, a date from ISO text, an Enum from its value, a nested
  dataclass or pydantic model from its mapping, a list of them), where vowel passes the field's
  data as written; a pydantic model validates its own fields, as in vowel;
- the parameter ``self`` of a method is a **receiver recipe**: the constructor's arguments (a
  mapping), or a list of them followed by the calls made on the instance before, one mapping
  each (``[{owner: ada, balance: '100'}, {deposit: ['50']}]``), their arguments built by the
  method's annotations.

And an outcome: a generator or iterator a function returns is **consumed** (at most
``MAX_ITEMS`` items): its items are the output, an exception raised while iterating is what
the call raised (``consume``).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_ITEMS = 1000  # items of a returned generator or iterator taken as the output
_MAX_DEPTH = 30
RECEIVER = "self"  # the inputs key that holds a method's receiver recipe


class FormError(ValueError):
    """The data does not build into the value the schema names."""


# --------------------------------------------------------------------------------------
# Type expressions in a schema.
# --------------------------------------------------------------------------------------


def resolve(text: str, import_object: Callable[[str], Any]) -> Any:
    """``list[billing.Line]`` as a typing form; dotted names go through ``import_object``
    (the worker's allowlist), bare names are builtins or ``typing`` names."""
    import ast

    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise FormError(f"schema {text!r} is not a type expression") from exc
    return _resolve(node, import_object)


def _resolve(node: Any, import_object: Callable[[str], Any]) -> Any:
    import ast
    import builtins
    import typing

    if isinstance(node, ast.Constant) and node.value is None:
        return type(None)
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return Ellipsis
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = ast.unparse(node)
        if "." in name:
            return import_object(name)
        found = getattr(builtins, name, None)
        if isinstance(found, type):
            return found
        if hasattr(typing, name):
            return getattr(typing, name)
        raise FormError(f"unknown type name {name!r} in a schema")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _resolve(node.left, import_object), _resolve(node.right, import_object)
        return typing.Union[left, right]  # noqa: UP007 - any two forms, on Python 3.10 too
    if isinstance(node, ast.Subscript):
        base = _resolve(node.value, import_object)
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        args = tuple(_resolve(e, import_object) for e in elts)
        return base[args if len(args) > 1 else args[0]]
    raise FormError(f"unsupported type expression {ast.unparse(node)!r} in a schema")


# --------------------------------------------------------------------------------------
# Building data into values.
# --------------------------------------------------------------------------------------


def build(t: Any, data: Any, depth: int = 0) -> Any:
    """``data`` built as ``t`` (a class, a typing form or a builder function)."""
    import typing

    if depth > _MAX_DEPTH or t is typing.Any or t is object:
        return data
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is not None:
        return _generic(origin, args, data, depth)
    if not isinstance(t, type):
        return t(data)  # a builder function (``base64.b64decode``), as in vowel
    if data is None or (isinstance(data, t) and not _lossy(t, data)):
        return data
    return _instance(t, data, depth)


def _lossy(t: type, data: Any) -> bool:
    return t is int and isinstance(data, bool)


def _generic(origin: Any, args: tuple[Any, ...], data: Any, depth: int) -> Any:
    import collections.abc as abc
    import typing

    if origin is typing.Union or type(origin).__name__ == "UnionType" or _is_union(origin):
        return _union(args, data, depth)
    if origin is typing.Literal:
        return data
    if origin in (list, abc.Sequence, abc.Iterable, abc.Collection, abc.MutableSequence):
        item = args[0] if args else typing.Any
        return [build(item, d, depth + 1) for d in _items(data)]
    if origin in (set, frozenset, abc.Set, abc.MutableSet):
        item = args[0] if args else typing.Any
        kind = frozenset if origin is frozenset else set
        return kind(build(item, d, depth + 1) for d in _items(data))
    if origin is tuple:
        items = _items(data)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(build(args[0], d, depth + 1) for d in items)
        if args and len(args) != len(items):
            raise FormError(f"{len(items)} items for a tuple of {len(args)}")
        return tuple(
            build(a, d, depth + 1) for a, d in zip(args or [typing.Any] * len(items), items)
        )
    if origin in (dict, abc.Mapping, abc.MutableMapping):
        if not isinstance(data, dict):
            raise FormError(f"a mapping is needed, not {type(data).__name__}")
        k, v = args if len(args) == 2 else (typing.Any, typing.Any)
        return {build(k, key, depth + 1): build(v, val, depth + 1) for key, val in data.items()}
    if isinstance(origin, type):
        return build(origin, data, depth)
    return data


def _is_union(origin: Any) -> bool:
    types_mod = sys.modules.get("types")
    return types_mod is not None and origin is getattr(types_mod, "UnionType", None)


def _union(args: tuple[Any, ...], data: Any, depth: int) -> Any:
    if data is None:
        return None
    last: Exception | None = None
    for arm in args:
        if arm is type(None):
            continue
        try:
            return build(arm, data, depth + 1)
        except Exception as exc:
            last = exc
    raise FormError(f"no arm of the union builds {data!r}") from last


def _items(data: Any) -> list[Any]:
    if not isinstance(data, (list, tuple, set, frozenset)):
        raise FormError(f"a list is needed, not {type(data).__name__}")
    return list(data)


def _instance(t: Any, data: Any, depth: int) -> Any:
    """An instance of class ``t`` from its data: by value, by text, or by its fields."""
    import datetime as dt
    import enum

    if issubclass(t, enum.Enum):
        try:
            return t(data)
        except ValueError:
            if isinstance(data, str) and data in t.__members__:
                return t.__members__[data]
            raise
    if isinstance(data, str) and t in (dt.date, dt.datetime, dt.time):
        return t.fromisoformat(data)
    if t is bytes and isinstance(data, str):
        import base64

        return base64.b64decode(data.encode("ascii"), validate=True)
    if t in (list, tuple, set, frozenset):
        return t(data)
    if isinstance(data, dict):
        validate = getattr(t, "model_validate", None)
        if callable(validate):  # pydantic builds its own fields, as in vowel
            return validate(data)
        hints = _hints(t)
        try:
            return t(**{k: build(hints.get(k, object), v, depth + 1) for k, v in data.items()})
        except TypeError:
            return t(data)  # vowel's fallback: the mapping itself
    return t(data)


def _hints(obj: Any) -> dict[str, Any]:
    """The annotations of a dataclass's fields or of a callable's parameters, resolved; those
    that cannot be resolved are left out (their data is passed as written)."""
    import typing

    target: Any = obj
    if isinstance(obj, type) and not hasattr(obj, "__dataclass_fields__"):
        target = target.__init__
    try:
        return typing.get_type_hints(target)
    except Exception:  # a name the module cannot resolve: its data is passed as written
        return {}


# --------------------------------------------------------------------------------------
# A method's receiver.
# --------------------------------------------------------------------------------------


def receiver(cls: type, data: Any) -> Any:
    """The instance a method runs on: built from its constructor's arguments, then the calls
    made on it before (each ``{method: [args]}`` or ``{method: {name: arg}}``), in order."""
    steps = data if isinstance(data, list) else [data]
    if not steps or not isinstance(steps[0], dict):
        raise FormError(
            f"{RECEIVER}: write the constructor's arguments as a mapping, then the calls made "
            "before, e.g. [{owner: ada}, {deposit: ['50']}]"
        )
    obj = build(cls, steps[0])
    for step in steps[1:]:
        if not (isinstance(step, dict) and len(step) == 1):
            raise FormError(f"{RECEIVER}: each call made before is one mapping, {{method: [args]}}")
        [(name, args)] = step.items()
        method = getattr(obj, str(name))
        hints = _hints(method)
        params = [p for p in _param_names(method) if p != "return"]
        if isinstance(args, dict):
            method(**{k: build(hints.get(k, object), v) for k, v in args.items()})
        else:
            values = args if isinstance(args, list) else [args]
            method(
                *[
                    build(hints.get(p, object), v)
                    for p, v in zip(params + [""] * len(values), values)
                ]
            )
    return obj


def _param_names(method: Any) -> list[str]:
    code = getattr(getattr(method, "__func__", method), "__code__", None)
    if code is None:
        return []
    names = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    return names[1:] if getattr(method, "__self__", None) is not None else names


# --------------------------------------------------------------------------------------
# Outcomes: generators and iterators consumed.
# --------------------------------------------------------------------------------------


def is_iterator(value: Any) -> bool:
    """A generator, or an iterator that is its own ``iter()`` (map, zip, a custom one): not a
    list, a dict or a text, which are iterable but are their own data."""
    if isinstance(value, (str, bytes, bytearray, list, tuple, dict, set, frozenset)):
        return False
    try:
        return hasattr(value, "__next__") and iter(value) is value
    except Exception:
        return False


def is_async_iterator(value: Any) -> bool:
    return hasattr(value, "__anext__") and hasattr(value, "__aiter__")


def consume(value: Any, limit: int = MAX_ITEMS) -> list[Any]:
    """The first ``limit`` items; an exception raised while iterating propagates."""
    import itertools

    return list(itertools.islice(value, limit))


async def consume_async(value: Any, limit: int = MAX_ITEMS) -> list[Any]:
    out: list[Any] = []
    async for item in value:
        out.append(item)
        if len(out) >= limit:
            break
    return out
