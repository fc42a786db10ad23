"""The lines of a test file the change wrote: its rows survive every cut of the harvest (#32).

A table of 82 rows of one shape (``("fox", "foxes")``) is cut to its first rows per shape
before the pool ranks its calls, and the row the change added at the end (the one its new
behaviour is about) was never tried. The behaviour diff reads both sides' files: a line of
one side whose text the other side's file lacks is fresh, and wherever the harvest keeps
some rows of many (a ``parametrize`` table, a loop's table, a file's calls), fresh rows are
kept first. Lines are compared by their stripped text, not by position: a row moved within
the table is not fresh, a row edited is (on both sides).

``compared(root, other)`` says, for the harvest of one function's pool, which folder holds
the other side of the files under ``root``; outside it (regen, a plain harvest) no line is
fresh. A file the other side lacks is the same on both sides (the old side's folder holds
only the files the change touched), so none of its lines are fresh either.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import functools
from collections.abc import Iterator, Mapping
from pathlib import Path

# (root, the folder that holds the other side of its files), for this thread's harvest
_PAIRS: contextvars.ContextVar[tuple[tuple[Path, Path], ...]] = contextvars.ContextVar(
    "codemode_fresh_pairs", default=()
)


@contextlib.contextmanager
def compared(*pairs: tuple[Path, Path]) -> Iterator[None]:
    token = _PAIRS.set(tuple((r.resolve(), o.resolve()) for r, o in pairs))
    try:
        yield
    finally:
        _PAIRS.reset(token)


def lines(path: Path) -> frozenset[int]:
    """The numbers (from 1) of the lines of ``path`` the other side's file lacks."""
    from codemode.explore.offline.harvest import kept_once

    for root, other in _PAIRS.get():
        try:
            rel = path.resolve().relative_to(root)
        except ValueError:
            continue
        there = other / rel
        return kept_once("fresh", f"{path}\0{there}", functools.partial(_diff, path, there))  # type: ignore[no-any-return]
    return frozenset()


def other_root(root: Path) -> Path | None:
    """The folder that holds the other side of the files under ``root``, in this thread's
    comparison; None outside one."""
    mine = root.resolve()
    return next((o for r, o in _PAIRS.get() if r == mine), None)


def _diff(path: Path, there: Path) -> frozenset[int]:
    from codemode.explore.offline.harvest import read_source

    if not there.is_file():
        return frozenset()
    mine, theirs = read_source(path), read_source(there)
    if mine is None or theirs is None or mine == theirs:
        return frozenset()
    known = {line.strip() for line in theirs.splitlines()}
    return frozenset(n for n, line in enumerate(mine.splitlines(), 1) if line.strip() not in known)


def is_fresh(row: Mapping[str, ast.expr], fresh: frozenset[int]) -> bool:
    """A row one of whose values is written on a fresh line."""
    return any(getattr(v, "lineno", None) in fresh for v in row.values())


def fresh_first(
    rows: list[dict[str, ast.expr]], fresh: frozenset[int]
) -> list[dict[str, ast.expr]]:
    """The rows in their order, the fresh ones first (before a cut keeps the first N)."""
    if not fresh:
        return rows
    return sorted(rows, key=lambda r: not is_fresh(r, fresh))
