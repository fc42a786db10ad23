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


def regen_command(described: str) -> str | None:
    """The `codemode regen` that writes cases for what a run of this scope found missing or
    stale, from the report's scope (``describe_scope``): the same change, so the command does
    something. None for scopes that name no change (then no function is missing or stale)."""
    import shlex

    if described in ("staged", "worktree"):
        return f"codemode regen --{described}"
    base, sep, head = described.partition("...")
    if not sep or not base:
        return None
    cmd = f"codemode regen --base {shlex.quote(base)}"
    return cmd if head in ("", "HEAD") else f"{cmd} --head {shlex.quote(head)}"
