"""The functions that read a data file a change edited (#32): a table, a word list or a
database shipped inside a package (``pkg/data/iban.dat``, ``pkg/tables.json``) changes what
the code that loads it returns, although no Python changed.

A reader names the file in a string literal: its file name (``"iban.dat"``) or its stem as a
word of the literal (``numdb.get("iban")``, ``"%s.json" % "tables"``). Each such literal in a
function makes the function a reader; at module level, the name its statement assigns (``_DB =
load("iban")``) becomes a binding whose users are impacted in turn. Only files inside a
package of the project count (a folder holding an ``__init__.py`` the analysis knows), so a
README or a changelog beside the code reaches nothing. Over-approximation (a stem that is a
common word) costs diff time only.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from codemode.change.reach import top_assign

if TYPE_CHECKING:
    from codemode.change.impact import Project

_CODE = (".py", ".pyi", ".pyc", ".pyo", ".pyd", ".so")
_COLUMN_0 = re.compile(r"^\S", re.M)


def data_files(project: Project, paths: Iterable[str]) -> list[str]:
    """The changed ``paths`` that are data inside one of the project's packages."""
    packages = {
        posixpath.dirname(mf.path)
        for mf in project.modules.values()
        if mf.path.endswith("__init__.py")
    }
    out = []
    for path in sorted(paths):
        folder = posixpath.dirname(path)
        if path.endswith(_CODE) or not folder:
            continue
        while folder and folder not in packages:
            folder = posixpath.dirname(folder)
        if folder:
            out.append(path)
    return out


def data_readers(project: Project, paths: Iterable[str]) -> dict[str, set[str]]:
    """Reader id (a function, or a module-level name: then a binding) -> the data files among
    ``paths`` whose name a string literal of it writes."""
    readers: dict[str, set[str]] = {}
    for path in paths:
        name = posixpath.basename(path)
        stem = name.split(".")[0]
        if len(stem) < 3 or not re.fullmatch(r"\w+", stem):
            continue
        literal = re.compile(
            r"[\"'][^\"'\n]*(?<![\w-])(?:" + re.escape(name) + "|" + re.escape(stem) + r")(?![\w-])"
        )
        for module in project.mentions({stem.encode()}):
            for reader in _readers_in(project, module, literal):
                readers.setdefault(reader, set()).add(path)
    return readers


def _readers_in(project: Project, module: str, literal: re.Pattern[str]) -> set[str]:
    src = project.source(module)
    if src is None:
        return set()
    out: set[str] = set()
    text = src.text
    for m in literal.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        chunk = src.chunk_at(line)
        if chunk is None:
            continue
        defs = [d for d in src.local(chunk)[1] if not d.is_class and d.start <= line <= d.end]
        if defs:
            out.add(f"{module}.{defs[0].qual}")
            continue
        starts = [s.start() for s in _COLUMN_0.finditer(text, 0, m.start() + 1)]
        bound = top_assign(text, starts[-1]) if starts else None
        if bound is not None:
            out.add(f"{module}.{bound.group(1)}")
            project.bindings.add(f"{module}.{bound.group(1)}")
    return out
