"""What a run looks at: the staged change, a PR range, the work tree, everything, or paths."""

from __future__ import annotations

from typing import Literal, NamedTuple

ScopeKind = Literal["staged", "range", "worktree", "all", "paths"]


class Scope(NamedTuple):  # not a dataclass: see config.Config
    kind: ScopeKind
    base: str | None = None  # "range": the PR's base ref (the merge base is taken against head)
    head: str | None = None  # "range": defaults to HEAD
    paths: tuple[str, ...] = ()  # "paths": spec files or directories given on the command line

    @property
    def is_change(self) -> bool:
        """Scopes that look at a change (so missing/stale/orphaned verdicts apply)."""
        return self.kind in ("staged", "range", "worktree")
