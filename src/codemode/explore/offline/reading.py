"""What the function's own code says about a parameter, read with ``ast``: the indexes and
tables it uses, the options it compares with, the keys it reads, how the body uses the value.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

from codemode.explore.offline.values import (
    DICT_METHODS,
    LIST_METHODS,
    STR_METHODS,
    Value,
    literal_label,
)


def index_bounds(fn: ast.AST | None) -> list[int]:
    """Every index of a short literal tuple or list the body subscripts (``(...)[value]``,
    ``t[n % 10]`` with ``t = (...)``), and the first one past its end."""
    if fn is None:
        return []
    sizes: dict[str, int] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.List)):
            sizes.update(
                {t.id: len(node.value.elts) for t in node.targets if isinstance(t, ast.Name)}
            )
    out: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            seq = node.value
            n = len(seq.elts) if isinstance(seq, (ast.Tuple, ast.List)) else 0
            n = sizes.get(seq.id, 0) if isinstance(seq, ast.Name) else n
            if 2 <= n <= 16:
                out.update(range(n + 1))
    return sorted(out)


_ARITH: dict[type, Any] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Div: lambda a, b: a / b,
}


def _evaluate(node: ast.expr, env: dict[str, Any], depth: int = 0) -> Any:
    """A number, a short text or a (nested) list of them, from literal arithmetic, the
    module's earlier tables, ``zip``/``enumerate``/``list`` and comprehensions; ValueError else."""
    if depth > 8:
        raise ValueError(node)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, env, depth + 1)
    if isinstance(node, ast.BinOp):
        a, b = _evaluate(node.left, env, depth + 1), _evaluate(node.right, env, depth + 1)
        if isinstance(node.op, ast.Pow) and abs(a) <= 10**4 and 0 <= b <= 120:
            return a**b
        if type(node.op) in _ARITH and not isinstance(a, (list, str)):
            return _ARITH[type(node.op)](a, b)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) <= 64:
        return [_evaluate(e, env, depth + 1) for e in node.elts]
    if isinstance(node, ast.Dict) and len(node.values) <= 64:
        return [_evaluate(v, env, depth + 1) for v in node.values]
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        items = _evaluate(node.value, env, depth + 1)
        bounds = [
            _evaluate(b, env, depth + 1) if b else None
            for b in (node.slice.lower, node.slice.upper)
        ]
        if isinstance(items, list) and node.slice.step is None:
            return items[bounds[0] : bounds[1]]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        parts = [_evaluate(a, env, depth + 1) for a in node.args]
        if all(isinstance(p, list) for p in parts) and node.func.id in _BUILDERS:
            return _BUILDERS[node.func.id](*parts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
        return _comprehension(node, node.generators[0], env, depth)
    raise ValueError(node)


_BUILDERS: dict[str, Any] = {
    "zip": lambda *ls: [list(t) for t in zip(*ls)],
    "enumerate": lambda items: [[i, x] for i, x in enumerate(items)],
    "list": list,
    "tuple": list,
    "sorted": sorted,
}


def _comprehension(
    node: ast.ListComp | ast.GeneratorExp, gen: ast.comprehension, env: dict[str, Any], depth: int
) -> Any:
    items = _evaluate(gen.iter, env, depth + 1)
    if gen.ifs or not isinstance(items, list) or len(items) > 64:
        raise ValueError(node)
    out = []
    for x in items:
        if isinstance(gen.target, ast.Name):
            bound = {gen.target.id: x}
        elif (
            isinstance(gen.target, ast.Tuple)
            and isinstance(x, list)
            and len(x) == len(gen.target.elts)
        ):
            bound = {t.id: v for t, v in zip(gen.target.elts, x) if isinstance(t, ast.Name)}
        else:
            raise ValueError(node)
        out.append(_evaluate(node.elt, {**env, **bound}, depth + 1))
    return out


def _flat(value: Any, out: list[Any]) -> None:
    if isinstance(value, list):
        for v in value:
            _flat(v, out)
    elif type(value) in (int, float) and abs(value) <= 10**100 and value not in out:
        out.append(value)


def table_numbers(fn: ast.AST | None, module: ast.Module | None) -> list[Any]:
    """The numbers of the module-level tables (tuples, lists, dicts, comprehensions of
    literal arithmetic) that the body reads by name: the thresholds a loop over them meets."""
    if fn is None or module is None:
        return []
    read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    env: dict[str, Any] = {}  # the module's tables so far: one may be built from another
    out: list[Any] = []
    for node in module.body:
        target = value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if not isinstance(target, ast.Name) or value is None:
            continue
        try:
            env[target.id] = _evaluate(value, env)
        except (ValueError, ArithmeticError, TypeError, OverflowError, IndexError):
            continue
        if target.id in read and isinstance(env[target.id], list):
            _flat(env[target.id], out)
    return out[:48]


def powers(fn: ast.AST | None, literals: Sequence[Any]) -> list[Any]:
    """For a body on a log scale (``exponent = int(math.log10(value))``, then
    ``if exponent >= 33``), ten to the power of each whole-number literal."""
    calls = {
        n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
        for n in (ast.walk(fn) if fn is not None else [])
        if isinstance(n, ast.Call)
    }
    if not calls & {"log10", "log", "log2", "frexp"}:
        return []
    return [10.0**n for n in literals if type(n) is int and -300 <= n <= 300][:12]


def _is_param(node: ast.expr, name: str) -> bool:
    """``name`` itself, or ``name.lower()`` / ``name.upper()`` / ``name.strip()``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
        node = node.func.value if node.func.attr in ("lower", "upper", "strip") else node
    return isinstance(node, ast.Name) and node.id == name


def option_texts(fn: ast.AST | None, name: str, module: ast.Module | None) -> list[Value]:
    """The values a text option is compared with (``if mode == "strict"``, ``in ("a", "b")``)
    or looked up as: an Enum's members by name (``Color[name.upper()]``, the Enum API's
    access by name), so the class's member names. Each is a behaviour, so they come first,
    where the combinations of two options take theirs."""
    if fn is None:
        return []
    found: dict[str, None] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare) and _is_param(node.left, name):
            for c in node.comparators:
                elts = c.elts if isinstance(c, (ast.Tuple, ast.List, ast.Set)) else [c]
                for e in elts:
                    if isinstance(e, ast.Constant) and isinstance(e.value, str):
                        found.setdefault(e.value, None)
        elif (
            isinstance(node, ast.Subscript)
            and _is_param(node.slice, name)
            and isinstance(node.value, ast.Name)
        ):
            for member in class_members(module, node.value.id):
                found.setdefault(member, None)
    return [Value(t, f"option_{literal_label(t)}") for t in list(found)[:12]]


def option_lists(fn: ast.AST | None, name: str, module: ast.Module | None) -> list[Value]:
    """For a list whose items the body compares or looks up (``for item in options:``),
    lists of the values it compares them with."""
    items: dict[str, None] = {}
    for node in ast.walk(fn) if fn is not None else []:
        if (
            isinstance(node, (ast.For, ast.comprehension))
            and isinstance(node.iter, ast.Name)
            and node.iter.id == name
            and isinstance(node.target, ast.Name)
        ):
            items.update((v.value, None) for v in option_texts(fn, node.target.id, module))
    options = list(items)
    if not options:
        return []
    out = [Value([o], f"only_{literal_label(o)}") for o in options[:4]]
    return [*out, Value(options[:3], "several_options")]


def member_names(fn: ast.AST | None, module: ast.Module | None = None) -> list[str]:
    """``Color.RED`` in the body, and the other upper-case members of a module class it
    names: what a text option may be looked up as (``Color[name.upper()]``)."""
    if fn is None:
        return []
    out: dict[str, None] = {}
    classes: set[str] = set()
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id[:1].isupper()
            and node.attr.isupper()
            and len(node.attr) > 1
        ):
            out.setdefault(node.attr.lower(), None)
            classes.add(node.value.id)
    for cls in sorted(classes):
        out.update(dict.fromkeys(class_members(module, cls)))
    return list(out)[:12]


def class_members(module: ast.Module | None, name: str) -> list[str]:
    """The upper-case members of the module's class ``name`` (an Enum's), lower-cased."""
    out: list[str] = []
    for cls in module.body if module is not None else []:
        if isinstance(cls, ast.ClassDef) and cls.name == name:
            for stmt in cls.body:
                for t in stmt.targets if isinstance(stmt, ast.Assign) else []:
                    if isinstance(t, ast.Name) and t.id.isupper() and len(t.id) > 1:
                        out.append(t.id.lower())
    return out


_PRECISION = re.compile(r"\.\d+(?=[fegd%])")


def format_variants(default: Any) -> list[Value]:
    """Other precisions for a text option whose default is a number format (``"%.1f"``)."""
    if not isinstance(default, str) or not _PRECISION.search(default):
        return []
    return [
        Value(_PRECISION.sub(".0", default), "format_no_decimals"),
        Value(_PRECISION.sub(".3", default), "format_three_decimals"),
    ]


def type_aliases(module: ast.Module) -> dict[str, ast.expr]:
    """Module-level ``Name = <type>`` / ``Name: TypeAlias = "<type>"`` (also under
    ``if TYPE_CHECKING:``), so an annotation naming one is read as what it stands for."""
    out: dict[str, ast.expr] = {}
    body = list(module.body)
    for node in module.body:
        if isinstance(node, ast.If):
            body += node.body
    for node in body:
        target = value = None
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            target, value = node.targets[0].id, node.value
        if target is None or value is None:
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            try:
                value = ast.parse(value.value, mode="eval").body
            except SyntaxError:
                continue
        if isinstance(value, (ast.BinOp, ast.Subscript, ast.Name, ast.Attribute)):
            out[target] = value
    return out


def is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def record_keys(fn: ast.AST) -> list[str]:
    """The keys the body reads from a record: ``line["sku"]``, ``row.get("qty")``."""
    keys: dict[str, None] = {}
    for node in ast.walk(fn):
        key: ast.expr | None = None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            key = node.slice
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and isinstance(node.func.value, ast.Name)
            and node.args
        ):
            key = node.args[0]
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value:
            keys.setdefault(key.value, None)
    return list(keys)[:6]


def body_usage(fn: ast.AST, name: str) -> set[str]:
    """Kinds the body implies for ``name``: ``str`` for ``name.lower()``, ``int`` for
    ``name + 1`` or ``range(name)``, ``object`` for a method no plain value has."""
    out: set[str] = set()
    rebound = {
        n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    for node in ast.walk(fn):
        out |= _shape_hints(fn, node, name)
        if (
            isinstance(node, (ast.For, ast.comprehension))
            and isinstance(node.iter, ast.Name)
            and node.iter.id == name
            and isinstance(node.target, ast.Tuple)
            and len(node.target.elts) == 2
        ):
            out.add("pairs")
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
        ):
            if node.attr == "decode":
                out.add("bytes")
            elif node.attr in STR_METHODS:
                out.add("str")
            elif node.attr in LIST_METHODS:
                out.add("list")
            elif node.attr in DICT_METHODS:
                out.add("dict")
            elif not node.attr.startswith("__") and name not in rebound:
                out.add("object")  # (once rebound, ``obj = UUID(obj)``, it is another value)
        elif isinstance(node, (ast.BinOp, ast.Compare)):
            operands = (
                [node.left, node.right]
                if isinstance(node, ast.BinOp)
                else [
                    node.left,
                    *node.comparators,
                ]
            )
            if any(isinstance(o, ast.Name) and o.id == name for o in operands):
                for o in operands:
                    if isinstance(o, ast.Constant) and isinstance(o.value, (int, float)):
                        if not isinstance(o.value, bool):
                            out.add(type(o.value).__name__)
                    elif isinstance(o, ast.Constant) and isinstance(o.value, str):
                        out.add("str")
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            out |= _call_usage(node, name, rebound)
        if (
            isinstance(node, (ast.For, ast.comprehension))
            and isinstance(node.iter, ast.Name)
            and node.iter.id == name
            and not isinstance(node.target, ast.Tuple)
        ):
            out.add("iterable")  # ``for item in seq``: items (a list, or text's characters)
    return out


def _call_usage(node: ast.Call, name: str, rebound: set[str]) -> set[str]:
    """What a call says of ``name``: called itself, or passed to a builtin that wants a kind."""
    out: set[str] = set()
    callee = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
    if isinstance(node.func, ast.Name) and callee == name and name not in rebound:
        out.add("callable")  # ``key(item)``: a function, which no plain value is
    if any(isinstance(a, ast.Name) and a.id == name for a in node.args):
        if callee in ("range", "chr"):
            out.add("int")
        elif callee in ("ord", "sub", "match", "search", "findall", "fullmatch", "split"):
            out.add("str")  # ord: one character of text; re's functions: text
        elif callee in _ITERATING:
            out.add("iterable")
    return out


# Builtins that take any iterable: a parameter passed to them holds items (#23: toolz's
# ``reduceby(key, binop, seq)`` got "Hello World" for every untyped parameter).
_ITERATING = frozenset(
    {
        "iter",
        "sorted",
        "list",
        "tuple",
        "set",
        "frozenset",
        "enumerate",
        "zip",
        "sum",
        "any",
        "all",
        "map",
        "filter",
        "reversed",
    }
)


_BYTES_TYPES = frozenset(["bytes", "bytearray", "str", "memoryview"])


def _checks_bytes(node: ast.AST, name: str) -> bool:
    """Whether ``node`` tells bytes from text in ``name``: ``isinstance(name, bytes)`` (or
    ``str``: the other branch is for what is not text), ``str(name, 'utf-8')``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
        return False
    first = node.args[0]
    if not (isinstance(first, ast.Name) and first.id == name):
        return False
    if node.func.id == "str":
        return len(node.args) >= 2
    if node.func.id == "isinstance" and len(node.args) == 2:
        kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        return any(isinstance(k, ast.Name) and k.id in _BYTES_TYPES for k in kinds)
    return False


def _isinstance_of(node: ast.AST, name: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and bool(node.args)
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == name
    )


def none_checked(fn: ast.AST, name: str) -> bool:
    """Whether the body tells None apart in ``name`` (``ending is None``)."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) for op in node.ops
        ):
            sides = [node.left, *node.comparators]
            if any(isinstance(x, ast.Name) and x.id == name for x in sides) and any(
                isinstance(x, ast.Constant) and x.value is None for x in sides
            ):
                return True
    return False


TEMPLATES = (
    Value("{noun} is {1:d} years old{punct}", "format_fields"),
    Value("{0.name} {items[0]!r:>10} {}", "format_compound_fields"),
    Value("{{not a field}} {x}", "format_escaped_braces"),
)


def reads_templates(fn: ast.AST) -> bool:
    """Whether the body reads format templates (``string.Formatter().parse``,
    ``.format_map``, ``.format(`` on a parameter): then text holds replacement fields."""
    params = {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == "Formatter":
            return True
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("format", "format_map", "vformat")
            and isinstance(node.value, ast.Name)
            and node.value.id in params
        ):
            return True
    return False


def _shape_hints(fn: ast.AST, node: ast.AST, name: str) -> set[str]:
    """``bytes`` where ``node`` tells bytes from text in ``name``, ``dispatch`` where it
    checks its type, ``list`` where it loops over words (``for part in parts: part == '..'``)."""
    hints = {
        "bytes": _checks_bytes(node, name),
        "dispatch": _isinstance_of(node, name),
        "list": _items_compared_with_words(fn, node, name),
    }
    return {k for k, v in hints.items() if v}


def _items_compared_with_words(fn: ast.AST, node: ast.AST, name: str) -> bool:
    """Whether ``node`` loops over ``name`` and the body compares each item with a string of
    two characters or more: no character of a text is one, so ``name`` holds words."""
    if not (
        isinstance(node, (ast.For, ast.comprehension))
        and isinstance(node.iter, ast.Name)
        and node.iter.id == name
        and isinstance(node.target, ast.Name)
    ):
        return False
    item = node.target.id
    for cmp in ast.walk(fn):
        if isinstance(cmp, ast.Compare) and any(
            isinstance(op, (ast.Eq, ast.NotEq)) for op in cmp.ops
        ):
            sides = [cmp.left, *cmp.comparators]
            if any(isinstance(x, ast.Name) and x.id == item for x in sides) and any(
                isinstance(x, ast.Constant) and isinstance(x.value, str) and len(x.value) > 1
                for x in sides
            ):
                return True
    return False
