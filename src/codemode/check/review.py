"""The review of the spec files a change touched, as ``Report.reviews``.

``prepare`` reads each touched spec file at both sides of the change (the old side from git's
objects) and compares them case by case (``specs.changes``), before the worker starts; its
``removed_at_head`` are the removed cases, to be run at head with the others, since a removed
case that still passes made the spec weaker and one that fails hides a behaviour change.
``build`` turns the comparison and the verdicts at head into ``SpecReview`` records, each with
the call-outs a reviewer must not miss. Git stays in ``change.git``; printing in the renderers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from typing import TYPE_CHECKING, NamedTuple

from codemode.config import Config
from codemode.report.model import (
    FAILING_CASE_ORDER,
    Callout,
    CaseChange,
    CaseResult,
    FunctionResult,
    SpecReview,
)
from codemode.scope import Scope
from codemode.specs.discover import glob_regex

# The comparison (json, dataclasses) is imported once a spec file is known to have changed:
# a hook run whose change edits no spec pays only for the glob match.
if TYPE_CHECKING:
    from codemode.change.diff import DiffResult
    from codemode.change.git import StagedChange
    from codemode.specs.changes import BlockDelta, CaseDelta, FileDelta, FileSide
    from codemode.specs.types import CaseSpec, SpecFile

WARNING, INFO = "warning", "info"
_EXPECTATION = frozenset({"expected", "raises", "match"})
# Most important first: what the code contradicts or a removal hides, then what got weaker.
_PRIORITY = {
    "contradicted": 0,
    "not_run": 0,
    "hides_change": 1,
    "block_removed": 2,
    "weakened": 3,
    "loosened": 4,
    "mutation_score": 5,
    "with_code": 6,
}


class Plan(NamedTuple):
    deltas: list[FileDelta]
    problems: dict[str, list[str]]  # spec file -> why a side could not be read

    def removed_at_head(self, head_ids: Set[str]) -> list[SpecFile]:
        """The removed cases (and dropped blocks) of functions that still exist, as spec files
        of their old side's fixtures, under each function's id at head."""
        from codemode.records import replace

        out = []
        for d in self.deltas:
            if d.old_spec is None:
                continue
            by_function: dict[str, list[CaseSpec]] = {}
            for c in d.cases:
                if c.kind == "removed" and c.old is not None and c.function in head_ids:
                    by_function.setdefault(c.function, []).append(c.old)
            blocks = []
            for f in d.old_spec.functions:
                cases = tuple(by_function.get(_new_id(d, f.id), ()))
                if cases and not f.error:
                    blocks.append(replace(f, id=_new_id(d, f.id), cases=cases))
            if blocks:
                out.append(replace(d.old_spec, functions=tuple(blocks), problems=()))
        return out


def _new_id(d: FileDelta, old_id: str) -> str:
    for c in d.cases:
        if c.old_function == old_id:
            return c.function
    return old_id


def is_spec_path(config: Config, path: str) -> bool:
    return any(glob_regex(g.removeprefix("./")).match(path) for g in config.specs)


def prepare(
    config: Config,
    scope: Scope,
    analysis: DiffResult,
    staged: StagedChange | None = None,
) -> Plan | None:
    """Both sides of every spec file the change touched, compared; None when it touched none
    (then git is not asked again)."""
    if not scope.is_change or not any(_maybe_spec(config, p) for p in analysis.changed_files):
        return None
    from codemode.change.versions import changed_versions
    from codemode.specs.changes import FileSide, compare
    from codemode.specs.parsed_cache import ParsedSpecs
    from codemode.specs.spec_files import parse_spec_bytes

    versions = changed_versions(config.root, scope, lambda p: is_spec_path(config, p), staged)
    if not versions:
        return None
    pairs: list[tuple[FileSide, FileSide]] = []
    problems: dict[str, list[str]] = {}
    cache = ParsedSpecs(config.root)  # a side parsed on an earlier run is read back
    for v in versions:
        old, new = v.change.old_path, v.change.new_path
        sides = (
            FileSide(
                old,
                parse_spec_bytes(v.old, config.root / old, old, cache)
                if old and v.old is not None
                else None,
            ),
            FileSide(
                new,
                parse_spec_bytes(v.new, config.root / new, new, cache)
                if new and v.new is not None
                else None,
            ),
        )
        pairs.append(sides)
        where = new or old or ""
        for label, side in zip(("before the change", "at head"), sides):
            if side.spec is not None and side.spec.problems:
                first = side.spec.problems[0]
                at = f"line {first.line}: " if first.line else ""
                problems.setdefault(where, []).append(f"{label}: {at}{first.message}")
    return Plan(compare(pairs, analysis.renames), problems)


def _maybe_spec(config: Config, repo_path: str) -> bool:
    """A changed path (repo-relative) that can be a spec file: it matches a glob, or ends in
    one of the globs' last parts (the project may sit below the repository's top)."""
    return is_spec_path(config, repo_path) or any(
        glob_regex("**/" + g.rsplit("/", 1)[-1]).match(repo_path) for g in config.specs
    )


# --- the review records -------------------------------------------------------------------


class _Head(NamedTuple):
    """What ran at head: the verdicts of the new side, and of the removed cases."""

    cases: Mapping[tuple[str, str, str], CaseResult]  # (spec file, function, case) -> result
    removed: Mapping[tuple[str, str, str], CaseResult]
    own_changed: Set[str]  # functions whose own source the change added or modified
    impacted: Mapping[str, tuple[str, ...]]  # the others it reaches: id -> the changed callees
    head_ids: Set[str]


def build(
    plan: Plan,
    verified: Iterable[FunctionResult],
    removed_runs: Iterable[FunctionResult],
    analysis: DiffResult,
) -> tuple[SpecReview, ...]:
    head = _Head(
        _by_case(verified),
        _by_case(removed_runs),
        {f.id for f in analysis.functions if f.status in ("added", "modified")},
        {f.id: f.impacted_by for f in analysis.functions if f.status == "impacted"},
        analysis.head_ids,
    )
    return tuple(_review(d, head, plan.problems.get(d.file, ())) for d in plan.deltas)


def _by_case(results: Iterable[FunctionResult]) -> dict[tuple[str, str, str], CaseResult]:
    return {(f.spec or "", f.id, c.id): c for f in results for c in f.cases}


def _review(d: FileDelta, head: _Head, problems: Sequence[str]) -> SpecReview:
    dropped = {b.function for b in d.dropped_blocks if b.function in head.head_ids}
    changes, callouts = [], []
    for c in d.cases:
        change = _case_change(d, c, head)
        changes.append(change)
        if not (c.kind == "removed" and c.old_function in dropped):
            callouts += _case_callouts(c, change, head)
    for b in d.dropped_blocks:
        callouts += _block_callout(d, b, head)
    callouts += _score_callouts(d)
    callouts.sort(key=lambda k: _PRIORITY.get(k.kind, 9))  # stable: in case order within a kind

    def refs(kind: str) -> tuple[str, ...]:
        return tuple(f"{c.function}[{c.id}]" for c in changes if c.kind == kind)

    return SpecReview(
        file=d.file,
        added=refs("added"),
        removed=refs("removed"),
        changed=refs("changed"),
        moved=refs("moved"),
        status=d.status,
        old_file=d.old_file,
        cases=tuple(changes),
        callouts=tuple(callouts),
        problems=tuple(problems),
    )


def _case_change(d: FileDelta, c: CaseDelta, head: _Head) -> CaseChange:
    case = c.new if c.new is not None else c.old
    assert case is not None
    if c.kind == "removed":
        result = head.removed.get((c.old_file or d.file, c.function, case.id))
    else:
        result = head.cases.get((d.file, c.function, case.id))
    from codemode.report.call import format_call
    from codemode.report.notation import case_pair

    failing = result is not None and result.status in FAILING_CASE_ORDER
    expected = observed = ""
    shown = case_pair(result, 100) if failing and result is not None else None
    if shown is not None:  # in Python's notation, as the whole comment; none for an error (#35)
        expected, observed = shown
    return CaseChange(
        function=c.function,
        id=case.id,
        kind=c.kind,
        status=result.status if result else None,
        line=case.line,
        what=c.what,
        old_id=c.old.id if c.kind == "moved" and c.old and c.old.id != case.id else None,
        old_file=c.old_file if c.kind == "moved" else None,
        call=format_call(c.function, list(case.args), case.kwargs),
        expected=expected,
        observed=observed,
        message=result.message if failing and result else "",
    )


_NOT_RUN = "the case could not run at head (its error is above): not compared with the code"


def _case_callouts(c: CaseDelta, change: CaseChange, head: _Head) -> list[Callout]:
    def say(kind: str, level: str, message: str, verdict: str = "") -> Callout:
        line = None if c.kind == "removed" else change.line  # Callout.line is at head
        return Callout(kind, level, message, change.function, change.id, line, change.call, verdict)

    out = []
    bad = change.status in FAILING_CASE_ORDER
    if c.kind == "changed" and _EXPECTATION & set(c.what):
        # Only the function's own source makes an edit "together with the function" (#35): a
        # changed callee, or nothing at all, leaves an edit the code contradicts a warning.
        if change.status == "error":  # the code never ran: it contradicts nothing (#35)
            out.append(say("not_run", WARNING, f"expectation edited, and {_NOT_RUN}"))
        elif bad:
            out.append(
                say("contradicted", WARNING, _contradicted(change.function, head), "contradicted")
            )
        elif change.function in head.own_changed:
            out.append(say("with_code", INFO, "expectation edited together with the function"))
        elif change.function in head.impacted:
            callees = ", ".join(head.impacted[change.function][:2])
            out.append(
                say(
                    "with_code", INFO, f"expectation edited together with {callees}, which it calls"
                )
            )
    if c.kind == "changed":
        out += [
            say("loosened", WARNING, f"check loosened: {why}", "loosened") for why in c.loosened
        ]
        if change.status == "skipped":
            out.append(
                say("loosened", WARNING, "check loosened: the case is skipped at head", "loosened")
            )
    if c.kind == "removed" and change.status is not None:
        if change.status == "passed":
            out.append(
                say(
                    "weakened",
                    WARNING,
                    "removed, and it still passes at head: the spec got weaker",
                    "weakened",
                )
            )
        elif bad:
            out.append(
                say(
                    "hides_change",
                    WARNING,
                    "removed, and it fails at head: removing it hides a behaviour change",
                    "hides_change",
                )
            )
    return out


def _contradicted(function: str, head: _Head) -> str:
    if function in head.own_changed:
        return "expectation edited together with the function, and the code at head contradicts it"
    callees = head.impacted.get(function)
    if callees:
        return (
            "expectation edited, the function's own code unchanged (only "
            f"{', '.join(callees[:2])}, which it calls), and the code contradicts it"
        )
    return "expectation edited with no change to the function, and the code contradicts it"


def _block_callout(d: FileDelta, b: BlockDelta, head: _Head) -> list[Callout]:
    fid = _new_id(d, b.function)
    if fid not in head.head_ids:
        return []
    ran = [head.removed.get((d.old_file or d.file, fid, c.id)) for c in b.spec.cases]
    passing = sum(1 for r in ran if r is not None and r.status == "passed")
    failing = sum(1 for r in ran if r is not None and r.status in FAILING_CASE_ORDER)
    n = len(b.spec.cases)
    tally = (
        f" ({n} case{'s' if n != 1 else ''}; at head {passing} still pass"
        f"{'es' if passing == 1 else ''}, {failing} fail{'s' if failing == 1 else ''})"
    )
    ran_any = any(r is not None for r in ran)  # none: another shard ran them
    message = "function block removed while the function still exists" + (tally if ran_any else "")
    # as its cases would count one by one: a failing one hides a change, else the spec is weaker
    verdict = ("hides_change" if failing else "weakened") if ran_any else ""
    return [Callout("block_removed", WARNING, message, fid, verdict=verdict)]


def _score_callouts(d: FileDelta) -> list[Callout]:
    out = []
    for fid, before, after in d.scores:
        lower = before is not None and (after is None or after < before)
        message = f"mutation score {_percent(before)} → {_percent(after)}"
        out.append(Callout("mutation_score", WARNING if lower else INFO, message, fid))
    return out


def _percent(score: float | None) -> str:
    return "none" if score is None else f"{score:.0%}"
