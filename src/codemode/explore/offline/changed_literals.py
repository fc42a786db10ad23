"""The literals a change wrote into the code, as inputs (#32).

A release that updates a table (a Unicode width table, a list of codes, a range of valid
years) changes what a function returns only for the inputs the table's edited entries name,
and neither the tests nor type-directed values reach them: ``(0x02ff0, 0x02ffb)`` became
``(0x02ff0, 0x0303e)``, and ``wcwidth('\\u2ffc')`` went from 1 to 2. The literals on the lines
the change wrote (explore/offline/fresh.py: on either side, compared by their text) of the
function's own module and of the modules it imports are tried, each with its neighbours: a
number for an ``int`` parameter, the character of that code point for a text parameter the
function passes to ``ord``, a short string for a text parameter. The other arguments are a
maintainer's call's, or the defaults.
"""

from __future__ import annotations

import ast
import bisect
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemode.explore.offline.harvest import kept_once, parsed, python_files, read_source
from codemode.explore.offline.table_keys import (
    MAX_CODE_POINT as _MAX_CODE_POINT,
)
from codemode.explore.offline.table_keys import entry_keys, shard_heads, shard_number, unpacked

if TYPE_CHECKING:
    from codemode.explore.offline.input_pool import PoolCall
    from codemode.explore.target import Param, TargetInfo

MAX_VALUES = 120  # per parameter
MAX_TEXT = 40
MAX_CHARS = 24  # per literal: the non-ASCII characters it writes


def changed_literal_calls(
    info: TargetInfo, root: Path, calls: Sequence[PoolCall]
) -> list[PoolCall]:
    """Calls of ``info`` with the literals the change wrote in its module and the modules
    it imports, read at ``root`` (one side); ``calls``: the pool so far."""
    from codemode.explore.offline.input_pool import PoolCall

    ints, texts, keys = _literals(info, root)
    if not ints and not texts and not keys:
        return []
    positional = [p.name for p in info.params if p.kind in ("positional", "positional_only")]
    examples = [c for c in calls if c.source in ("tests", "docstring") and not c.exprs]
    seed = examples[0] if examples else None
    out: list[PoolCall] = []
    for p in info.params:
        if p.kind in ("var_positional", "var_keyword"):
            continue
        shown = _shown(p, positional, examples)
        for value in _values(p, info, (ints, texts, keys), shown):
            args, kwargs = _call(p, value, positional, seed, info.params)
            if args is not None:
                label = f"changed_literal_{p.name}"
                out.append(PoolCall(args, kwargs, "constants", label))
    return out


def _shown(p: Param, positional: list[str], examples: Sequence[PoolCall]) -> str:
    """The one type the maintainers' calls pass ``p`` (``str``, ``int``), or ""."""
    at = positional.index(p.name) if p.name in positional else -1
    kinds = {
        type(c.args[at] if 0 <= at < len(c.args) else c.kwargs[p.name]).__name__
        for c in examples
        if 0 <= at < len(c.args) or p.name in c.kwargs
    }
    return kinds.pop() if len(kinds) == 1 else ""


def _values(
    p: Param, info: TargetInfo, found: tuple[list[int], list[str], list[int]], shown: str = ""
) -> list[Any]:
    """The values ``p`` is tried with: the numbers and their neighbours for an ``int``; for
    text, the characters of the code points the change names (a table's edited keys first,
    explore/offline/table_keys.py), and the short strings; at most ``MAX_VALUES`` of each."""
    ints, texts, keys = found
    # no annotation and no default to say the kind: what the tests and examples pass it
    # (emoji's is_emoji(string), #32)
    default = type(p.default).__name__ if p.has_default and p.default is not None else ""
    kind = (p.annotation or "").split("[")[0] or default or shown
    near = [n + d for n in ints for d in (0, 1, -1)]  # a number's neighbours came with it
    ranges = [u for n in ints for u in unpacked(n)]
    if kind == "int" and p.annotation != "bool":
        return list(dict.fromkeys(near + keys + ranges))[:MAX_VALUES]
    if p.name in _ord_params(info):
        points = keys + ranges + near
        return list(dict.fromkeys(chr(n) for n in points if 0 <= n <= _MAX_CODE_POINT))[:MAX_VALUES]
    if kind == "str":
        # a number of a table's edited line, above ASCII, may be the code point it is about
        # (idna's uts46data: ``(0x1E4D0, 'V')``); ASCII's are the generic values' already
        points = keys + ranges + [n for n in near if n >= 0x80]
        chars = dict.fromkeys(chr(n) for n in points if 0 <= n <= _MAX_CODE_POINT)
        return texts[:MAX_VALUES] + list(chars)[:MAX_VALUES]
    return []


def _call(
    p: Param,
    value: Any,
    positional: list[str],
    seed: PoolCall | None,
    params: Sequence[Param],
) -> tuple[tuple[Any, ...] | None, dict[str, Any]]:
    """The seed call (or the defaults) with ``p`` set to ``value``; (None, {}) when a
    required argument would be missing."""
    args = list(seed.args) if seed is not None else []
    kwargs = dict(seed.kwargs) if seed is not None else {}
    at = positional.index(p.name) if p.name in positional else -1
    if 0 <= at < len(args):
        args[at] = value
    elif at == len(args):
        args.append(value)
    else:
        kwargs[p.name] = value
    given = set(positional[: len(args)]) | set(kwargs)
    variadic = ("var_positional", "var_keyword")
    required = {q.name for q in params if not q.has_default and q.kind not in variadic}
    return (tuple(args), kwargs) if required <= given else (None, {})


def _ord_params(info: TargetInfo) -> set[str]:
    """The parameters the function passes to ``ord``: text it reads as code points."""
    try:
        fn = ast.parse(textwrap.dedent(info.source))
    except (SyntaxError, ValueError):
        return set()
    return {
        n.args[0].id
        for n in ast.walk(fn)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "ord"
        and n.args
        and isinstance(n.args[0], ast.Name)
    }


def _literals(info: TargetInfo, here: Path) -> tuple[list[int], list[str], list[int]]:
    """The numbers and short strings on the fresh lines of the function's module and of
    the changed modules it imports, once per module and run; and the keys of the table
    entries those lines are, with those of the modules they import by a computed name."""
    names = imported_names(info.path)
    # and what a package it imports imports in turn (``from pkg import tables``, whose
    # ``__init__`` imports the data module the release edited: emoji's ``data_dict``)
    for rel, path in python_files(here):
        parts = Path(rel).parts
        if path.name == "__init__.py" and len(parts) > 1 and parts[-2] in names:
            names |= imported_names(path)
    ints: dict[int, None] = {}
    texts: dict[str, None] = {}
    keys: dict[int, None] = {}
    mine = [p for rel, p in python_files(here) if _reads(p, rel, info, names)]
    heads = shard_heads(read_source(p) or "" for p in [info.path, *mine])
    for rel, path in python_files(here):
        number = shard_number(rel, heads) if heads else None
        if number is None and path not in mine:
            continue
        keys.update(dict.fromkeys(entry_keys(path, number)))
        got = kept_once("changed-literals", str(path), lambda p=path: _fresh_literals(p))
        for v in got:
            if _number(v):
                ints.setdefault(v, None)
            else:
                texts.setdefault(v, None)
    return list(ints), list(texts), list(keys)


def _reads(path: Path, rel: str, info: TargetInfo, names: set[str]) -> bool:
    """``path`` is the function's module or one it imports."""
    return path.resolve() == info.path.resolve() or Path(rel).stem in names


def imported_names(path: Path) -> set[str]:
    """The last parts of the module names ``path`` imports from, and the names it imports."""
    _, tree = parsed(path)
    out: set[str] = set()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.ImportFrom):
            out.update((node.module or "").split("."))
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(part for a in node.names for part in a.name.split("."))
    return out


def _fresh_literals(path: Path) -> list[Any]:
    """The literals on the fresh lines of ``path``, in order; after each number, the
    module's numbers just below and above it: where a table's entry moved, the old bound
    is its neighbour (a range merged with the next one changes what lies between)."""
    from codemode.explore.offline import fresh

    lines = fresh.lines(path)
    _, tree = parsed(path) if lines else ("", None)  # a table module the change left alone
    if tree is None:
        return []
    constants = [n for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    numbers = sorted({n.value for n in constants if _number(n.value)})
    out: list[Any] = []
    for node in constants:
        v = node.value
        if node.lineno not in lines:
            continue
        if _number(v):
            at = bisect.bisect_left(numbers, v)
            out += [v, *numbers[max(0, at - 1) : at], *numbers[at + 1 : at + 2]]
        elif isinstance(v, str):
            if 0 < len(v) <= MAX_TEXT and "\n" not in v:
                out.append(v)
            # the characters a long literal lists (an alphabet, a set of separators)
            out += list(dict.fromkeys(c for c in v if ord(c) >= 0x80))[:MAX_CHARS]
    return out


def _number(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)
