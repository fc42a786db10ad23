"""Which of many harvested rows a pool keeps: a spread over their shapes, not the first N (#32).

A suite that checks an evaluator through ``self.t(expr, expected)`` 300 times groups its
rows by kind (numbers, then operators, then comparisons), and a release changes one kind;
the first N rows in file order are all of the first kinds. Rows are grouped by the shape
of their arguments (each argument's type and, for text, which classes of characters it
holds: letters, digits, spaces, each other character itself) and taken one group at a time,
in turn, in file order within a group, until the limit: every shape the file shows gets in
before any gets a second row.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
# calls read before a spread keeps its limit of them: a helper's 300 rows all count
MAX_READ = 2000
MAX_CLASSES = 12  # characters of a shape: past this, text is prose and its shape says little


def text_shape(s: str | bytes) -> str:
    classes: dict[str, None] = {}
    for ch in s if isinstance(s, str) else s.decode("latin-1"):
        c = "a" if ch.isalpha() else "0" if ch.isdigit() else " " if ch.isspace() else ch
        classes.setdefault(c, None)
    return "".join(sorted(classes))[:MAX_CLASSES]


def value_shape(value: Any) -> Hashable:
    if isinstance(value, (str, bytes)):
        return (type(value).__name__, text_shape(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(value_shape(v) for v in value[:3]))
    if isinstance(value, dict):
        return ("dict", tuple(sorted(str(k) for k in value))[:6])
    return type(value).__name__


def expr_shape(node: ast.expr) -> Hashable:
    """An argument written in the source: its value's shape when it is a literal, else the
    shape of its text (``date(2024, 1, 31)`` and ``date(2024, 2, 1)`` are one shape)."""
    try:
        return value_shape(ast.literal_eval(node))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return ("expr", text_shape(ast.unparse(node)))


def spread(
    items: Sequence[T],
    limit: int,
    shape: Callable[[T], Hashable],
    first: Callable[[T], bool] | None = None,
) -> list[T]:
    """Up to ``limit`` of ``items``: one of each shape in turn, each shape's in their order.
    ``first``: the items kept before any other (the rows the change wrote: fresh.py)."""
    if len(items) <= limit:
        return list(items)
    if first is not None:
        ahead = [i for i in items if first(i)]
        if ahead:
            rest = [i for i in items if not first(i)]
            return spread(ahead, limit, shape) + spread(rest, max(0, limit - len(ahead)), shape)
    groups: dict[Hashable, list[T]] = {}
    for item in items:
        groups.setdefault(shape(item), []).append(item)
    out: list[T] = []
    depth = 0
    while len(out) < limit:
        row = [g[depth] for g in groups.values() if depth < len(g)]
        if not row:
            break
        room = limit - len(out)
        # more shapes than room: evenly across the file, not its first ones
        out += row if len(row) <= room else [row[i * len(row) // room] for i in range(room)]
        depth += 1
    return out
