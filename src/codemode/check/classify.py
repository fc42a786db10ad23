"""What a change means for its specs: ``classify_change(diff, index, results)``. Pure rules.

Given what the diff analyzer found, the spec index and the verdicts of the specs that ran,
decide each function's verdict for the change: ``stale`` (the spec passes but runs none of
the changed lines), ``missing`` (changed, no spec), ``orphaned`` (the spec names a function
that is gone, or renamed). Git, the staged tree and the worker stay in ``check.run``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from typing import TYPE_CHECKING, NamedTuple

from codemode.report.model import FunctionResult
from codemode.shard import in_shard
from codemode.verdicts import EDITED

if TYPE_CHECKING:
    from codemode.change.diff import ChangedFunction, DiffResult
    from codemode.specs.index import SpecIndex


class ChangeScope(NamedTuple):
    """The function ids a diff names, split the way the verdicts need them."""

    changed: dict[str, ChangedFunction]  # present at head
    removed: set[str]  # removed, or renamed away

    @classmethod
    def of(cls, diff: DiffResult) -> ChangeScope:
        changed = {f.id: f for f in diff.functions if f.status != "removed"}
        removed = {f.id for f in diff.functions if f.status == "removed"} | set(diff.renames)
        return cls(changed, removed)


def to_verify(diff: DiffResult, index: SpecIndex, shard: tuple[int, int] | None = None) -> set[str]:
    """Changed functions that have a spec, and every function of a spec file the change edited."""
    wanted = {fid for fid in ChangeScope.of(diff).changed if index.files_for(fid)}
    edited = set(diff.changed_files)
    for spec in index.files:
        if spec.rel in edited:  # the change is the spec itself: re-verify it whole
            wanted |= {f.id for f in spec.functions}
    return {fid for fid in wanted if in_shard(fid, shard)}


def classify_change(
    diff: DiffResult,
    index: SpecIndex,
    results: Sequence[FunctionResult],
    lines_run: Mapping[str, Set[int]] | None = None,
    *,
    shard: tuple[int, int] | None = None,
    source: Callable[[str], str | None] = lambda path: None,
    regen: str = "codemode regen --staged",
) -> list[FunctionResult]:
    """The verdicts of a change: the verified ``results`` classified, then what has no spec,
    then the specs left behind. ``lines_run``: the target's lines each function's cases ran;
    ``source``: a changed file's text at head, by repo-relative path (None if unreadable);
    ``regen``: the command that writes cases for this same change, for the messages."""
    scope = ChangeScope.of(diff)
    functions = [
        _classify_verified(fr, diff, scope, (lines_run or {}).get(fr.id, set()), source, regen)
        for fr in results
    ]
    verified = {f.id for f in functions}
    functions += _missing(scope, index, verified, shard, regen)
    functions += _left_behind(diff, scope, index, verified, shard, regen)
    return functions


def _classify_verified(
    fr: FunctionResult,
    diff: DiffResult,
    scope: ChangeScope,
    ran: Set[int],
    source: Callable[[str], str | None],
    regen: str,
) -> FunctionResult:
    if fr.id in scope.removed and fr.id not in diff.head_ids:
        return orphan(fr.id, fr.spec, fr.line, diff.renames.get(fr.id), regen)
    cf = scope.changed.get(fr.id)
    if cf is None:
        return fr
    if fr.status == "ok" and cf.status == "modified":
        fr = stale_or_ok(fr, cf, ran, source, regen)
    return fr._replace(path=cf.path, source_line=cf.lineno, impacted_by=cf.impacted_by, via=cf.via)


def _missing(
    scope: ChangeScope,
    index: SpecIndex,
    verified: set[str],
    shard: tuple[int, int] | None,
    regen: str,
) -> list[FunctionResult]:
    out = []
    for fid, cf in sorted(scope.changed.items()):
        if fid in verified or not in_shard(fid, shard):
            continue
        if cf.renamed_from and index.files_for(cf.renamed_from):
            continue  # the orphaned old spec names this rename; one finding, not two
        if cf.status in EDITED and not index.files_for(fid):
            why = f"{cf.status} with no spec; run `{regen}` to write one"
            out.append(
                FunctionResult(
                    fid,
                    "missing",
                    message=why,
                    path=cf.path,
                    source_line=cf.lineno,
                    impacted_by=cf.impacted_by,
                    via=cf.via,
                )
            )
    return out


def _left_behind(
    diff: DiffResult,
    scope: ChangeScope,
    index: SpecIndex,
    verified: set[str],
    shard: tuple[int, int] | None,
    regen: str,
) -> list[FunctionResult]:
    out = []
    for old in sorted(scope.removed):
        if old in verified or not in_shard(old, shard) or old in diff.head_ids:
            continue
        for ref in index.refs_for(old):
            out.append(orphan(old, ref.file, ref.line, diff.renames.get(old), regen))
    return out


def stale_or_ok(
    fr: FunctionResult,
    cf: ChangedFunction,
    ran: Set[int],
    source: Callable[[str], str | None],
    regen: str,
) -> FunctionResult:
    """Stale: the spec passes, yet a changed statement of the function ran in no case."""
    from codemode.change.stale import unexecuted_changes

    if not cf.changed_lines or cf.lineno is None:
        return fr
    text = source(cf.path)
    if text is None:
        return fr
    missed = unexecuted_changes(text, cf.lineno, cf.changed_lines, set(ran), cf.end_lineno)
    if not missed:
        return fr
    lines = ", ".join(str(n) for n in missed[:8])
    return FunctionResult(
        fr.id,
        "stale",
        fr.spec,
        fr.line,
        fr.cases,
        message=f"the spec passes, but no case runs the changed line(s) {cf.path}:{lines}; "
        f"add a case or run `{regen}`",
        path=cf.path,
        source_line=cf.lineno,
    )


def orphan(
    fid: str, spec: str | None, line: int | None, renamed_to: str | None, regen: str
) -> FunctionResult:
    if renamed_to:
        msg = f"the function was renamed to {renamed_to}; rename the spec block (or run `{regen}`)"
    else:
        msg = "the function no longer exists; delete its spec block or point it at the new function"
    return FunctionResult(fid, "orphaned", spec, line, message=msg, renamed_to=renamed_to)
