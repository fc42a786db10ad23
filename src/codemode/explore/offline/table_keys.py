"""The keys of the table entries a change edited, as code points (#32).

A table indexed by position names no key on its lines: a transliteration table split into one
module per block of 256 code points (``pkg/x1f1.py``: ``data = ('0.', '0,', ...)``, loaded by
``__import__('pkg.x%03x' % (cp >> 8))`` and read at ``cp % 256``) changes what the function
returns for U+1F19C when its entry 0x9c is edited, and neither that number nor the character
is written anywhere. The key is found from the change alone:

- the entry's position in a module-level tuple or list of plain values (the entries the
  change wrote: explore/offline/fresh.py);
- in a module whose name a computed import of the function's module (or of a module it
  imports) writes with a number placeholder (``'pkg.x%03x'``, ``f"pkg.x{n:03x}"``), the number
  its name carries (read in the placeholder's base), times the block the table fills (the
  power of two its length fits in: a block cut by a shift or a modulo), plus the position;
- a number too large to be a code point whose two 32-bit halves are code points, start no
  greater than end, is a range packed in one integer (``(start << 32) | end``, the way a
  bisected range table stores its ranges): its bounds and their neighbours.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

from codemode.explore.offline.harvest import kept_once, parsed

MAX_CODE_POINT = 0x10FFFF
MAX_KEYS = 120  # per module: a table rewritten whole names every entry, and those are not news
# a computed module name: its dotted head, then a number placeholder (printf or format)
_COMPUTED = re.compile(
    r"""["']([A-Za-z_][\w]*\.[\w.]*?)(?:%0?\d*([dxX])|\{[^{}:'"]*(?::0?\d*([dxX]))?\})"""
)


def shard_heads(texts: Iterable[str]) -> dict[str, int]:
    """The dotted heads of the module names the code computes with a number, and the
    number's base: ``'pkg.x%03x'`` -> {"pkg.x": 16}."""
    out: dict[str, int] = {}
    for text in texts:
        if "__import__" not in text and "import_module" not in text:
            continue
        for m in _COMPUTED.finditer(text):
            kind = m.group(2) or m.group(3) or "d"
            out.setdefault(m.group(1), 16 if kind in "xX" else 10)
    return out


def shard_number(rel: str, heads: dict[str, int]) -> int | None:
    """The number a module's name carries after one of ``heads`` (``pkg/x1f1.py`` -> 0x1f1),
    or None when no head names it."""
    if not rel.endswith(".py"):
        return None
    parts = rel[:-3].split("/")
    for i in range(len(parts)):  # a layout's leading folders (``src/``) are no part of it
        dotted = ".".join(parts[i:])
        for head, base in heads.items():
            if dotted.startswith(head):
                try:
                    return int(dotted[len(head) :], base)
                except ValueError:
                    continue
    return None


def entry_keys(path: Path, number: int | None) -> list[int]:
    """The keys of the entries the change wrote in ``path``'s flat module-level tables: the
    position, offset by ``number`` blocks in a module of a computed name; once per run."""
    key = f"{path}\0{number}"
    return list(kept_once("table-keys", key, lambda: _entry_keys(path, number)))


def _entry_keys(path: Path, number: int | None) -> list[int]:
    from codemode.explore.offline import fresh

    lines = fresh.lines(path)
    _, tree = parsed(path) if lines else ("", None)  # a module the change left alone
    if tree is None:
        return []
    out: list[int] = []
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if not isinstance(value, (ast.Tuple, ast.List)) or not _flat(value.elts):
            continue
        block = 1 << max(len(value.elts) - 1, 0).bit_length()
        for i, elt in enumerate(value.elts):
            if any(n in lines for n in range(elt.lineno, (elt.end_lineno or elt.lineno) + 1)):
                out.append((number or 0) * block + i)
    return out[:MAX_KEYS]


def _flat(elts: list[ast.expr]) -> bool:
    """A table of plain values (strings, numbers, None), long enough to be indexed."""
    return len(elts) >= 16 and all(isinstance(e, ast.Constant) for e in elts)


def unpacked(n: int) -> list[int]:
    """A range packed in one integer: its bounds and their neighbours; [] for another."""
    if n <= MAX_CODE_POINT:
        return []
    start, end = n >> 32, n & 0xFFFFFFFF
    if not start <= end <= MAX_CODE_POINT:
        return []
    return [start, start - 1, end - 1, end]
