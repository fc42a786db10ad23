"""Which changed lines of a function a case could execute, and which no case did.

A diff's changed lines include blanks, comments, ``else:`` and continuation lines, which
never produce a line event; the tracer reports the first line of each statement. So a
changed line is mapped to the statement that owns it (a compound statement owns only its
header), and the function is stale when one of those statements never ran.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable


def _owner_lines(func: ast.AST, changed: set[int]) -> set[int]:
    required: set[int] = set()
    body0 = getattr(func, "body", [])
    docstring = (
        body0[0]
        if body0
        and isinstance(body0[0], ast.Expr)
        and isinstance(body0[0].value, ast.Constant)
        and isinstance(body0[0].value.value, str)
        else None
    )
    for node in ast.walk(func):
        if node is func or not isinstance(node, ast.stmt) or node is docstring:
            continue
        start = node.lineno
        end = node.end_lineno or start
        children = [
            c
            for field in ("body", "orelse", "finalbody", "handlers")
            for c in getattr(node, field, []) or []
            if isinstance(c, ast.AST) and hasattr(c, "lineno")
        ]
        if isinstance(node, (ast.Match,)):
            children += [s for case in node.cases for s in case.body]
        if children:
            end = min(c.lineno for c in children) - 1  # the header only
        if any(start <= line <= end for line in changed):
            required.add(start)
    return required


def _find_function(tree: ast.AST, lineno: int) -> ast.AST | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first == lineno or node.lineno == lineno:
                return node
    return None


def _parse_span(source: str, first: int, last: int | None) -> ast.AST | None:
    """The function's own lines (``first``..``last``) parsed alone, at their line numbers:
    the diff analyzer knows its span, so a change in a large module parses one function, not
    the file (#23); the whole file only when the span does not parse alone."""
    if last is not None and last >= first:
        import textwrap

        chunk = "".join(source.splitlines(keepends=True)[first - 1 : last])
        try:
            tree = ast.parse(textwrap.dedent(chunk))
        except SyntaxError:  # a string with less indentation than the def, say
            pass
        else:
            return ast.increment_lineno(tree, first - 1)
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def unexecuted_changes(
    source: str,
    func_lineno: int,
    changed_lines: Iterable[int],
    executed: set[int],
    end_lineno: int | None = None,
) -> list[int]:
    """Lines of changed statements in the function at ``func_lineno`` that no case ran."""
    tree = _parse_span(source, func_lineno, end_lineno)
    if tree is None:
        return []
    func = _find_function(tree, func_lineno)
    if func is None:
        return []
    required = _owner_lines(func, set(changed_lines))
    return sorted(required - executed)
