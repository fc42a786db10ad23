"""Type expressions (``type: list[int] | None``), parsed without eval (stdlib only)."""

from __future__ import annotations

import importlib
import sys

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~4 ms of every start
if TYPE_CHECKING:
    from typing import Any

_BUILTIN_TYPES = {
    name: obj
    for name, obj in __import__("builtins").__dict__.items()
    if isinstance(obj, type) and not name.startswith("_")
}


# Stdlib value types a spec names without importing them (``type: date``), whatever the
# target module's own imports (``import datetime as dt`` leaves no ``date`` in its namespace).
_STDLIB_TYPES = {  # name -> its module, imported when a type expression names it
    "date": "datetime",
    "datetime": "datetime",
    "time": "datetime",
    "timedelta": "datetime",
    "timezone": "datetime",
    "Decimal": "decimal",
    "Fraction": "fractions",
    "UUID": "uuid",
    "Path": "pathlib",
    "PurePath": "pathlib",
}


class _Any:
    pass


def _resolve_name(name: str, namespace: dict[str, Any]) -> Any:
    import typing

    if name == "Any":
        return _Any
    if name == "None":
        return type(None)
    if name in _BUILTIN_TYPES:
        return _BUILTIN_TYPES[name]
    if name in namespace:
        return namespace[name]
    if hasattr(typing, name):
        return getattr(typing, name)
    if name in _STDLIB_TYPES:
        return getattr(importlib.import_module(_STDLIB_TYPES[name]), name)
    raise ValueError(f"unknown type name {name!r}")


def _resolve_attribute(node: Any, namespace: dict[str, Any]) -> Any:
    import ast
    import typing

    parts = []
    cur: Any = node
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
    if not isinstance(cur, ast.Name):
        raise ValueError("unsupported type expression")
    parts.append(cur.id)
    parts.reverse()
    # Only modules already imported are looked into: a type never imports code.
    obj = namespace.get(parts[0]) or sys.modules.get(parts[0])
    if obj is None:
        raise ValueError(f"unknown name {parts[0]!r} in type")
    for p in parts[1:]:
        obj = getattr(obj, p)
    if obj is typing.Any:
        return _Any
    return obj


def _resolve_type(node: Any, namespace: dict[str, Any]) -> Any:
    import ast
    import typing

    if isinstance(node, ast.Constant):
        if node.value is None:
            return type(None)
        if isinstance(node.value, str):
            return _resolve_type(ast.parse(node.value, mode="eval").body, namespace)
        raise ValueError(f"unsupported constant {node.value!r} in type")
    if isinstance(node, ast.Name):
        return _resolve_name(node.id, namespace)
    if isinstance(node, ast.Attribute):
        return _resolve_attribute(node, namespace)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return (
            "union",
            [_resolve_type(node.left, namespace), _resolve_type(node.right, namespace)],
        )
    if isinstance(node, ast.Subscript):
        base = _resolve_type(node.value, namespace)
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if base is typing.Literal:
            return ("literal", [e.value for e in elts if isinstance(e, ast.Constant)])
        args = [
            "..."
            if isinstance(e, ast.Constant) and e.value is Ellipsis
            else _resolve_type(e, namespace)
            for e in elts
        ]
        return ("generic", base, args)
    if isinstance(node, ast.Tuple):
        return ("union", [_resolve_type(e, namespace) for e in node.elts])
    raise ValueError("unsupported type expression")


def _origin(t: Any) -> Any:
    return getattr(t, "__origin__", None) or t


def type_matches(value: Any, t: Any, strict: bool = False) -> bool:
    import typing

    if t is _Any:
        return True
    if isinstance(t, tuple):
        kind = t[0]
        if kind == "union":
            return any(type_matches(value, x, strict) for x in t[1])
        if kind == "literal":
            return value in t[1]
        base, args = t[1], t[2]
        if base in (typing.Optional,):
            return value is None or type_matches(value, args[0], strict)
        if base in (typing.Union,):
            return any(type_matches(value, a, strict) for a in args)
        origin = _origin(base)
        if not type_matches(value, origin, strict):
            return False
        if origin in (list, set, frozenset) or (
            isinstance(origin, type) and issubclass(origin, (list, set, frozenset))
        ):
            return all(type_matches(v, args[0], strict) for v in value)
        if origin is tuple:
            if len(args) == 2 and args[1] == "...":
                return all(type_matches(v, args[0], strict) for v in value)
            return len(value) == len(args) and all(
                type_matches(v, a, strict) for v, a in zip(value, args)
            )
        if origin is dict or (isinstance(origin, type) and issubclass(origin, dict)):
            return all(
                type_matches(k, args[0], strict) and type_matches(v, args[1], strict)
                for k, v in value.items()
            )
        return True
    if t is typing.Any:
        return True
    t = _origin(t)
    if not isinstance(t, type):
        raise ValueError(f"{t!r} is not a type")
    if strict:
        return type(value) is t
    if t is float and isinstance(value, int) and not isinstance(value, bool):
        return False
    return isinstance(value, t)


_RESOLVED: dict[tuple[str, int], tuple[dict[str, Any], Any]] = {}


def type_answer(
    value: Any, expr: str, strict: bool, namespace: dict[str, Any]
) -> str | dict[str, str] | None:
    """As the wire carries it: None when ``value`` is of type ``expr``, a one-line reason when
    it is not, ``{"spec_error": reason}`` when the spec's type expression cannot be checked."""
    import ast

    try:
        key = (expr, id(namespace))
        cached = _RESOLVED.get(key)
        if cached is None or cached[0] is not namespace:
            # parsed and resolved once per expression and module, not once per case
            cached = (
                namespace,
                _resolve_type(ast.parse(expr.strip(), mode="eval").body, namespace),
            )
            _RESOLVED[key] = cached
        ok = type_matches(value, cached[1], strict)
    except Exception as exc:  # a bad type expression is the spec's problem, said plainly
        return {"spec_error": f"cannot check type {expr!r}: {exc}"}
    if ok:
        return None
    return f"expected type {expr}{' (strict)' if strict else ''}, got {type(value).__name__}"
