"""A case whose output lists this checkout's own files (#32).

A function that walks a directory, called with ``''`` or ``'.'``, returns the working
directory's files: the checkout (``.git/config``, ``README.md``, the spec files regen is
writing). Every gate run here agrees, and the case drifts as soon as a file is added or
removed, on this clone or any other: the benchmark's bootstrap wrote such a case and it
failed on the very code it was written from. So a passing case whose output names at least
``MIN_LISTED`` entries of the checkout that its own inputs do not name is left out, with the
names it holds. A path-like string only (a ``/`` or a ``.`` in it): a word that happens to
be a folder's name (``docs``) is not a listing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

MIN_LISTED = 2  # one name may be the function's own answer; two the tree's
MAX_STRINGS = 400  # strings of one output looked at: a listing shows itself early
# a case's keys that hold what it expects, not what it passes
_NOT_INPUTS = frozenset(["id", "expected", "raises", "match", "evals", "checks"])


def _strings(value: Any, depth: int = 0) -> Iterator[str]:
    if depth > 20:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _strings(k, depth + 1)
            yield from _strings(v, depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from _strings(v, depth + 1)


def _entry(root: Path, s: str) -> bool:
    """``s`` names a file or folder of the checkout, relative to its root."""
    if not (0 < len(s) <= 255) or "\n" in s or os.path.isabs(s) or s in (".", ".."):
        return False
    if ("/" not in s and "." not in s) or s.startswith("../"):
        return False
    try:
        return os.path.lexists(root / s)
    except (OSError, ValueError):  # a name the file system cannot hold
        return False


def listed(root: Path, case: Mapping[str, Any], output: Any) -> list[str]:
    """The checkout's entries ``output`` names and ``case``'s inputs do not, when there are
    at least ``MIN_LISTED`` of them; else []."""
    named = "\0".join(_strings({k: v for k, v in case.items() if k not in _NOT_INPUTS}))
    found: list[str] = []
    for n, s in enumerate(_strings(output)):
        if n >= MAX_STRINGS:
            break
        if s not in found and s not in named and _entry(root, s):
            found.append(s)
    return found if len(found) >= MIN_LISTED else []
