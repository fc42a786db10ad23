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

    def describe(self) -> str:
        """For people and for the JSON report: "staged", "origin/main...HEAD", "all", paths."""
        if self.kind == "range":
            return f"{self.base}...{self.head or 'HEAD'}"
        if self.kind == "paths":
            return " ".join(self.paths)
        return self.kind

    @classmethod
    def from_description(cls, text: str) -> Scope | None:
        """``describe`` read back, for a report loaded from JSON (a merge, a ``workflow_run``
        job): the one place a scope is parsed from its description."""
        for kind in ("staged", "worktree", "all"):
            if text == kind:
                return cls(kind)
        base, sep, head = text.partition("...")
        if sep and base:
            return cls("range", base, head or None)
        return cls("paths", paths=tuple(text.split())) if text else None


def regen_command(scope: Scope | None, *, on_head: bool = False) -> str | None:
    """The `codemode regen` that writes cases for what a run of this scope found missing or
    stale: the same change, so the command does something. None for scopes that name no
    change (then no function is missing or stale). ``on_head``: the reader has the head
    checked out (a PR comment, an annotation), so ``--head`` is left out. The one builder of
    this command: the terminal, the PR comment and the annotations all say it alike."""
    if scope is None:
        return None
    if scope.kind in ("staged", "worktree"):
        return f"codemode regen --{scope.kind}"
    if scope.kind != "range" or not scope.base:
        return None
    import shlex

    cmd = f"codemode regen --base {shlex.quote(scope.base)}"
    head = scope.head
    if on_head or head in (None, "", "HEAD"):
        return cmd
    return f"{cmd} --head {shlex.quote(str(head))}"
