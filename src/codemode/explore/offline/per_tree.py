"""What a test file's parsed tree says, read once per tree.

The pool of one function reads the test files of its module once for each of its siblings
(explore/offline/near_sources.py: the arguments a sibling's tests pass are tried on the
target), and the trees are shared (``harvest.parsed``): a reading of the whole tree, done
again per sibling, costs a module of 200 functions and a 6,000-line test file tens of
seconds, past the diff's bound on building a pool (behaviour/bounded.py ``POOL_LIMIT``), and
the function is "not compared" (#32). A reading memoised here must not be changed by its
callers: they all share it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

MAX_TREES = 256  # a pool reads a few dozen files; a hook's run ends before this fills


def once_per_tree(read: Callable[[ast.Module], T]) -> Callable[[ast.Module], T]:
    """``read``, memoised by the tree's identity (the tree kept beside its reading, so a
    new tree at a freed address is never given an old one's reading)."""
    memo: dict[int, tuple[ast.Module, T]] = {}

    def memoised(tree: ast.Module) -> T:
        got = memo.get(id(tree))
        if got is None or got[0] is not tree:
            if len(memo) >= MAX_TREES:
                memo.clear()
            got = memo[id(tree)] = (tree, read(tree))
        return got[1]

    memoised.__doc__ = read.__doc__
    memoised.__name__ = read.__name__
    return memoised
