"""The values a change compares its inputs against, read from the lines it wrote (#32).

The inputs that reach a changed line and flip it are written in that line and in the
conditions that guard it: the string a changed ``if`` compares against, the key a new option
tests (``if "new-extra" in self.extras``, ``opts.get("strict")``), the keyword a grammar
table gained, the pattern a changed line compiles, the prefix a ``startswith`` checks, the
bound of a ``len(s) > 10``. This is Redqueen's input-to-state correspondence (Aschermann et
al., "REDQUEEN: Fuzzing with Input-to-State Correspondence", NDSS 2019) and the dictionary
AFL's and libFuzzer's ``-dict`` build from comparison operands, done statically from the
diff: nothing runs, the operands are read from the syntax tree.

A statement is changed when a line of it is fresh (explore/offline/fresh.py: on either side,
compared by its text); for a compound statement, a line of its header. Its guards are the
tests of the ``if``/``elif``/``while`` statements and the ``match`` cases around it. Read
there:

- text (``str`` or ``bytes``) compared with ``==``/``!=``/``in``/``not in``, passed to a text
  method that looks for it (``startswith``, ``split``, ``replace``, ...) or to a mapping's
  ``get``/``pop``, used as a subscript, the items of a literal tuple, list or set and the keys
  of a literal dict;
- a pattern passed to ``re`` (or a string on a fresh line that is plainly one: it compiles
  and writes a class, a group or an escape), as a short string it matches
  (explore/offline/text_forms.py's ``regex_example``), and a second where a class of it
  holds characters of another kind than its first (``%00`` and ``%AA``);
- whole numbers compared with ``<``/``<=``/``>``/``>=``/``==``/``!=``, and whether the other
  side is a ``len(...)``;
- a name a condition tests (``if strict:``, ``mode == "fast"``), with the value it compares
  it to: a parameter of that name is set to it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from codemode.explore.offline.harvest import kept_once, parsed

MAX_TEXT = 60  # longer text is data, not a token to splice
MAX_PER_MODULE = 60
MAX_SPAN = 6  # lines: a larger expression counts only the parts on fresh lines
TRUTH = "<truth>"  # a name tested for its truth: ``if strict:``

# The text methods whose argument the text is looked for by (``str`` and ``bytes``), and the
# mapping methods whose argument is a key: the standard library's names.
_TEXT_METHODS = frozenset(
    [
        "startswith",
        "endswith",
        "find",
        "rfind",
        "index",
        "rindex",
        "count",
        "split",
        "rsplit",
        "partition",
        "rpartition",
        "replace",
        "strip",
        "lstrip",
        "rstrip",
        "removeprefix",
        "removesuffix",
    ]
)
_KEY_METHODS = frozenset(["get", "pop", "setdefault"])
_RE_FUNCTIONS = frozenset(
    ["compile", "match", "search", "fullmatch", "sub", "subn", "split", "findall", "finditer"]
)
_RE_MODULES = frozenset(["re", "regex"])
# a string that is plainly a pattern: a class, a group, an escape of a class or an anchor
_PATTERN_MARKS = re.compile(r"\\[dDwWsSbB]|\(\?|\[[^\]]+\]|[)][?*+]|\\[.()\[\]]")
_ESCAPES = re.compile(r"\\|\(\?")  # a backslash or a group's ``(?``: no plain text
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


class Operand(NamedTuple):
    """One value to splice: ``kind`` "text" (``value`` str or bytes), "number" (an int),
    or "name" (``name`` a condition tests, ``value`` what it compares it to, or ``TRUTH``).
    ``family``: how it was found (``compared``, ``key``, ``item``, ``method``, ``regex``,
    ``length``, ``bound``, ``tested``); ``paired``: for a key, the value the line compares
    what it looks up with (``opts.get("mode") == "fast"``), or None; ``line``: where."""

    kind: str
    value: Any
    family: str
    line: int
    name: str = ""
    paired: Any = None
    scope: str = ""  # the qualified name of the function it is in ("": the module's)


def module_operands(path: Path, fresh: frozenset[int]) -> list[Operand]:
    """The operands of the changed statements of ``path`` and of their guards, in line
    order, once per run and content."""
    if not fresh:
        return []
    key = f"{path}\0{hash(fresh)}"
    return list(kept_once("change-operands", key, lambda: _operands(path, fresh)))


def _operands(path: Path, fresh: frozenset[int]) -> list[Operand]:
    _, tree = parsed(path)
    if tree is None:
        return []
    found: dict[tuple[str, str, str], Operand] = {}
    for op in _walk(tree, fresh):
        if op.kind == "text" and not (0 < len(op.value) <= MAX_TEXT):
            continue
        found.setdefault((op.kind, repr(op.value), op.name), op)
    return sorted(found.values(), key=lambda o: o.line)[:MAX_PER_MODULE]


def _walk(tree: ast.Module, fresh: frozenset[int]) -> Iterator[Operand]:
    """Each changed statement's operands, then its guards'."""
    guards: dict[int, tuple[ast.expr, str]] = {}
    for stmt, chain, scope in _statements(tree, [], ""):
        if not _changed(stmt, fresh):
            continue
        for node in _scanned(stmt, fresh):
            yield from (o._replace(scope=scope) for o in _read(node))
        if isinstance(stmt, (ast.If, ast.While)):
            yield from (o._replace(scope=scope) for o in _truth_tests(stmt.test, stmt.lineno))
        for g in chain:
            guards.setdefault(id(g), (g, scope))
    for g, scope in guards.values():
        line = getattr(g, "lineno", 0)
        found = [*_truth_tests(g, line), *_case_value(g, line)]
        found += [o for node in ast.walk(g) for o in _read(node)]
        yield from (o._replace(scope=scope) for o in found)


def _statements(
    node: ast.AST, chain: list[ast.expr], scope: str
) -> Iterator[tuple[ast.stmt, list[ast.expr], str]]:
    """Every statement with the guard tests around it (outermost first) and the qualified
    name of the function or class it is in."""
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field, None) or ():
            if isinstance(child, ast.match_case):
                yield from _statements(child, [*chain, *_case_values(child)], scope)
                continue
            if isinstance(child, ast.ExceptHandler):
                yield from _statements(child, chain, scope)
                continue
            if not isinstance(child, ast.stmt):
                continue
            yield child, chain, scope
            inner, where = chain, scope
            if isinstance(child, (ast.If, ast.While)):
                inner = [*chain, child.test]
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = []  # a function's guards are its own
                where = f"{scope}.{child.name}" if scope else child.name
            yield from _statements(child, inner, where)


def _case_values(case: ast.match_case) -> list[ast.expr]:
    """A case's patterns' values, as expressions to read."""
    out: list[ast.expr] = []
    for p in ast.walk(case.pattern):
        if isinstance(p, ast.MatchValue):
            out.append(p.value)
        elif isinstance(p, ast.MatchMapping):
            out.append(ast.Set(elts=list(p.keys)))
    return out


def _case_value(value: ast.expr, line: int) -> Iterator[Operand]:
    """A ``match`` case's value: what the subject is compared to."""
    if (t := _text(value)) is not None:
        yield Operand("text", t, "compared", line)
    elif (n := _whole(value)) is not None:
        yield Operand("number", n, "bound", line)


def _header(stmt: ast.stmt) -> tuple[int, int]:
    """The lines of a statement's own text: a compound statement's header only."""
    body = getattr(stmt, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        return stmt.lineno, max(stmt.lineno, body[0].lineno - 1)
    if isinstance(stmt, ast.Match):
        return stmt.lineno, stmt.subject.end_lineno or stmt.lineno
    return stmt.lineno, stmt.end_lineno or stmt.lineno


def _changed(stmt: ast.stmt, fresh: frozenset[int]) -> bool:
    start, end = _header(stmt)
    return any(n in fresh for n in range(start, end + 1))


def _scanned(stmt: ast.stmt, fresh: frozenset[int]) -> Iterator[ast.AST]:
    """The nodes of a changed statement's own text: all of a short one; of a long one (a
    table of many lines), those whose lines are fresh."""
    start, end = _header(stmt)
    roots: list[ast.AST] = [stmt]
    if isinstance(stmt, (ast.If, ast.While)):
        roots = [stmt.test]
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        roots = [stmt.iter]
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        roots = [i.context_expr for i in stmt.items]
    elif isinstance(stmt, ast.Match):
        roots = [stmt.subject]
    elif getattr(stmt, "body", None):
        return  # a def, a class, a try: its header compares nothing
    for root in roots:
        for node in ast.walk(root):
            if end - start < MAX_SPAN or _on(node, fresh):
                yield node


def _on(node: ast.AST, fresh: frozenset[int]) -> bool:
    first = getattr(node, "lineno", None)
    if first is None:
        return False
    last = getattr(node, "end_lineno", None) or first
    return last - first < MAX_SPAN and any(n in fresh for n in range(first, last + 1))


def _read(node: ast.AST) -> Iterator[Operand]:
    line = getattr(node, "lineno", 0)
    if isinstance(node, ast.Compare):
        yield from _compared(node, line)
    elif isinstance(node, ast.Call):
        yield from _called(node, line)
    elif isinstance(node, ast.Subscript):
        key = _text(node.slice)
        if key is not None:
            yield Operand("text", key, "key", line)
    elif isinstance(node, ast.Dict):
        for k in node.keys:
            if (t := _text(k)) is not None:
                yield Operand("text", t, "key", line)
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for e in node.elts:
            if (t := _text(e)) is not None:
                yield from _text_or_pattern(t, "item", getattr(e, "lineno", line))
    elif isinstance(node, ast.IfExp):
        yield from _truth_tests(node.test, line)
    elif isinstance(node, ast.comprehension):
        for test in node.ifs:
            yield from _truth_tests(test, getattr(test, "lineno", line))


def _text_or_pattern(t: str | bytes, family: str, line: int) -> Iterator[Operand]:
    """A string on a changed line: itself, and what it matches when it looks like a pattern;
    only the match when it writes a backslash or a group's ``(?``."""
    marked = isinstance(t, str) and _PATTERN_MARKS.search(t)
    if not marked or not _ESCAPES.search(t):  # type: ignore[arg-type]
        yield Operand("text", t, family, line)
    if marked:
        yield from (Operand("text", got, "regex", line) for got in _examples(t) if got != t)


def _examples(pattern: str | bytes) -> list[str | bytes]:
    """Short strings the pattern matches, each repeat its least: each class's first member,
    then, where a class has members of another kind, one of those (``%[0-9A-Fa-f]{2}``:
    ``%00``, ``%AA``)."""
    from codemode.explore.offline.text_forms import regex_example

    text = pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern
    found = [regex_example(text, least=True, other=other) for other in (False, True)]
    got = [g for g in dict.fromkeys(found) if g]
    if isinstance(pattern, bytes):
        return [g.encode("latin-1", "replace") for g in got]
    return list(got)


def _compared(node: ast.Compare, line: int) -> Iterator[Operand]:
    left = node.left
    for op, right in zip(node.ops, node.comparators):
        for this, other in ((left, right), (right, left)):
            t = _text(this)
            if t is not None:
                # ``"x" in opts``: a key or an item of what the other side holds
                family = (
                    "key" if isinstance(op, (ast.In, ast.NotIn)) and this is left else "compared"
                )
                yield Operand("text", t, family, line)
                if (name := _name(other)) and isinstance(op, (ast.Eq, ast.NotEq)):
                    yield Operand("name", t, "tested", line, name)
                if isinstance(other, ast.Call) and (key := _looked_up(other)) is not None:
                    yield Operand("text", key, "key", line, paired=t)
            n = _whole(this)
            if n is not None and isinstance(op, _ORDER):
                measured = _measured(other)
                target = _name(measured if measured is not None else other)
                family = "bound" if measured is None else "length"
                yield Operand("number", n, family, line, target or "")
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(
            right, (ast.Tuple, ast.List, ast.Set)
        ):
            name = _name(left)
            for e in right.elts[:12]:
                if (t := _text(e)) is not None and name:
                    yield Operand("name", t, "tested", line, name)
        left = right


def _called(node: ast.Call, line: int) -> Iterator[Operand]:
    func = node.func
    first = node.args[0] if node.args else None
    if isinstance(func, ast.Attribute):
        if (
            func.attr in _RE_FUNCTIONS
            and isinstance(func.value, ast.Name)
            and func.value.id in _RE_MODULES
            and (pattern := _text(first)) is not None
        ):
            yield from (Operand("text", got, "regex", line) for got in _examples(pattern))
            return
        if func.attr in _TEXT_METHODS:
            items = first.elts if isinstance(first, ast.Tuple) else [first]
            for e in items:
                if (t := _text(e)) is not None:
                    yield Operand("text", t, "method", line)
        elif func.attr in _KEY_METHODS and (t := _text(first)) is not None:
            yield Operand("text", t, "key", line)


def _truth_tests(test: ast.expr, line: int) -> Iterator[Operand]:
    """A bare name a condition tests for its truth (``if strict``, ``not quiet``)."""
    parts = test.values if isinstance(test, ast.BoolOp) else [test]
    for part in parts:
        if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not):
            part = part.operand
        if (name := _name(part)) is not None:
            yield Operand("name", TRUTH, "tested", line, name)


def _looked_up(call: ast.Call) -> str | bytes | None:
    """The key of ``opts.get("mode")``: the call's first argument, for a mapping method."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _KEY_METHODS and call.args:
        return _text(call.args[0])
    return None


def _measured(node: ast.AST) -> ast.expr | None:
    """What ``len(x)`` measures: ``x``; None for anything else."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
    ):
        return node.args[0]
    return None


def _name(node: ast.AST | None) -> str | None:
    """The name a condition tests: ``mode``, or ``self.mode``'s ``mode``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr
    return None


def _text(node: ast.AST | None) -> str | bytes | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        return node.value
    return None


def _whole(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None
