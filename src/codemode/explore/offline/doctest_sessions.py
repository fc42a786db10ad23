"""Doctest examples read as tests: each session a test function of its own (#32).

pytest runs ``>>>`` examples from the package's docstrings (``--doctest-modules``) and from
text files (``--doctest-glob``, ``*.txt`` by default; ``.rst``, ``.md``, ``.doctest`` by
choice), and an example's call often needs what the earlier lines of its session built::

    >>> bits = Bits('0011')
    >>> bits.as_list()
    [0, 0, 1, 1]

Each session (a docstring, or a whole text file, as doctest runs them) becomes the body of
one function of a module made for it, its imports at the top, every example that parses a
statement of that function. The harvest of test files then reads it as it reads a test:
``calls_in_file`` carries what a call's arguments need from the session's earlier lines,
and a method's calls get their instance's recipe from the line that built it
(``input_pool._method_calls``). Nothing here runs an example.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

from codemode.explore.offline.harvest import (
    doctest_lines,
    kept_once,
    parsed,
    python_files,
    read_source,
)

MAX_SESSION_FILES = 60  # files whose sessions one function's pool reads
_MAX_EXAMPLES = 400  # per file: past this a file of examples is a corpus


def session_files(root: Path, name: str) -> Iterator[Path]:
    """The files under ``root`` with a ``>>>`` example that names ``name``: Python files
    (their docstrings), then doctest text files."""
    from codemode.explore.offline.near_sources import text_files

    count = 0
    for path in [*(p for _, p in python_files(root)), *text_files(root)]:
        text = read_source(path)
        if text is not None and ">>>" in text and name in text:
            yield path
            count += 1
            if count >= MAX_SESSION_FILES:
                return


def session_module(path: Path) -> ast.Module | None:
    """The module made of ``path``'s doctest sessions (None: it has none that parse), once
    per file and run."""
    return kept_once("sessions", str(path), lambda: _module(path))  # type: ignore[no-any-return]


def _module(path: Path) -> ast.Module | None:
    imports: list[str] = []
    functions: list[str] = []
    count = 0
    for n, block in enumerate(_blocks(path)):
        body: list[str] = []
        for prompt, example in doctest_lines(block):
            if not prompt or count >= _MAX_EXAMPLES:
                continue
            try:
                stmts = ast.parse(example).body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            count += 1
            for stmt in stmts:
                kind = (ast.Import, ast.ImportFrom)
                (imports if isinstance(stmt, kind) else body).append(ast.unparse(stmt))
        if body:
            lines = textwrap.indent("\n".join(body), "    ")
            functions.append(f"def test_doctest_{n}():\n{lines}\n")
    if not functions:
        return None
    try:
        return ast.parse("\n".join([*imports, "", *functions]))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _blocks(path: Path) -> list[str]:
    """A Python file's docstrings (each its own session), or a text file's whole text."""
    if path.suffix != ".py":
        text = read_source(path)
        return [text] if text else []
    _, tree = parsed(path)
    if tree is None:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc and ">>>" in doc:
                out.append(doc)
    return out
