"""What a change did to its spec files, case by case: pure comparison of two sides.

``compare(pairs)`` takes each touched spec file at the old side and at the new side (either can
be missing: a file added or deleted whole) and returns, per file, the cases added, removed and
changed (and which part changed), and those moved: the same content under a new id, in a new
file, or under the function's new name after a rename. A moved case is never reported as a
removal plus an addition. It also lists the checks an edit loosened (``expected`` replaced by
``type:``, ``raises: any``, a ``match`` dropped), the function blocks a side dropped, and the
mutation scores the two sides record. Running cases at head is ``check.review``'s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from codemode.specs.types import CaseSpec, FunctionSpec, SpecFile

# What a case holds, by the name a reviewer knows it by (the spec's keys).
_PARTS: dict[str, tuple[str, ...]] = {
    "input": ("input_form", "args", "kwargs", "input_value"),
    "expected": ("has_expected", "expected"),
    "raises": ("raises", "raises_optional"),
    "match": ("match",),
    "evaluator": (
        "duration_ms",
        "has_contains",
        "contains",
        "assertion",
        "pattern",
        "case_sensitive",
        "type",
        "strict_type",
    ),
}
# The checks that still hold something when ``expected`` goes.
_LOOSE = (("type", "type:"), ("contains", "contains:"), ("pattern", "pattern:"))


class FileSide(NamedTuple):
    """A spec file at one side of the change; ``spec`` None when it does not exist there."""

    rel: str | None
    spec: SpecFile | None


class CaseDelta(NamedTuple):
    function: str  # at the new side (the old side's id mapped through renames)
    kind: str  # added | removed | changed | moved
    old: CaseSpec | None
    new: CaseSpec | None
    old_function: str | None = None  # the old side's function id, when it had the case
    old_file: str | None = None
    what: tuple[str, ...] = ()  # changed: the parts that differ (keys of _PARTS)
    loosened: tuple[str, ...] = ()  # changed: the checks the edit made weaker, one phrase each


class BlockDelta(NamedTuple):
    """A function block the old side had and no new spec file of the change has."""

    function: str
    line: int | None
    spec: FunctionSpec  # as it was (its cases can still be run at head)


class FileDelta(NamedTuple):
    file: str  # at the new side (the old side's path for a deleted file)
    status: str  # added | deleted | modified | renamed
    old_file: str | None
    cases: tuple[CaseDelta, ...]
    dropped_blocks: tuple[BlockDelta, ...] = ()
    scores: tuple[tuple[str, float | None, float | None], ...] = ()  # function, before, after
    old_spec: SpecFile | None = None
    new_spec: SpecFile | None = None


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr, allow_nan=True)


def _part(case: CaseSpec, names: tuple[str, ...]) -> str:
    return _key([getattr(case, n) for n in names])


def content(case: CaseSpec) -> str:
    """Everything a case says apart from its id and line: equal contents are one case."""
    return "\x00".join(_part(case, names) for names in _PARTS.values())


def changed_parts(old: CaseSpec, new: CaseSpec) -> tuple[str, ...]:
    return tuple(name for name, names in _PARTS.items() if _part(old, names) != _part(new, names))


def loosened(old: CaseSpec, new: CaseSpec) -> tuple[str, ...]:
    """The checks ``new`` holds less firmly than ``old``, one phrase each."""
    out = []
    if old.has_expected and not new.has_expected:
        kept = [word for attr, word in _LOOSE if getattr(new, attr)]
        kept += ["assertion:"] if new.assertion else []
        out.append(
            f"`expected` replaced by `{'`, `'.join(kept)}`" if kept else "`expected` removed"
        )
    if old.raises and new.raises == "any" and old.raises != "any":
        out.append(f"`raises: {old.raises}` became `raises: any`")
    elif old.raises and not old.raises_optional and new.raises_optional:
        out.append(f"`raises: {new.raises}` made optional")
    elif old.raises and not new.raises and not new.has_expected:
        out.append(f"`raises: {old.raises}` removed")
    if old.match and not new.match and new.raises:
        out.append("`match` removed")
    return tuple(out)


def _cases(spec: SpecFile | None) -> dict[tuple[str, str], tuple[CaseSpec, FunctionSpec]]:
    if spec is None:
        return {}
    return {(f.id, c.id): (c, f) for f in spec.functions if not f.error for c in f.cases}


def compare(
    pairs: Sequence[tuple[FileSide, FileSide]], renames: Mapping[str, str] | None = None
) -> list[FileDelta]:
    """Each (old, new) pair of one spec file, compared case by case; moves across the pairs
    are found together (a case moved from one touched file to another)."""
    renames = renames or {}
    removed: list[_Loose] = []
    added: list[_Loose] = []
    per_file: list[list[CaseDelta]] = [[] for _ in pairs]
    for i, (old, new) in enumerate(pairs):
        before = {
            (renames.get(f, f), c): (f, case) for (f, c), (case, _) in _cases(old.spec).items()
        }
        after = _cases(new.spec)
        for (fid, cid), (old_fid, case) in before.items():
            if (fid, cid) in after:
                per_file[i] += _changed(fid, old_fid, case, after[fid, cid][0])
            else:
                removed.append(_Loose(i, fid, case, old_fid, old.rel))
        added += [
            _Loose(i, fid, c, None, new.rel)
            for (fid, cid), (c, _) in after.items()
            if (fid, cid) not in before
        ]
    moves = _moves(removed, added)
    gone = {id(r.case) for r in moves.values()}
    for r in removed:
        if id(r.case) not in gone:
            per_file[r.pair].append(
                CaseDelta(r.function, "removed", r.case, None, r.old_function, r.file)
            )
    for a in added:
        was = moves.get(id(a.case))
        if was is None:
            per_file[a.pair].append(CaseDelta(a.function, "added", None, a.case))
        else:
            other = was.file if was.file != a.file else None
            per_file[a.pair].append(
                CaseDelta(a.function, "moved", was.case, a.case, was.old_function, other)
            )
    return [_file_delta(p, cases, renames, pairs) for p, cases in zip(pairs, per_file)]


class _Loose(NamedTuple):
    """A case one side has and the other has not (under its function's new-side id)."""

    pair: int
    function: str
    case: CaseSpec
    old_function: str | None
    file: str | None


def _changed(fid: str, old_fid: str, old: CaseSpec, new: CaseSpec) -> list[CaseDelta]:
    what = changed_parts(old, new)
    if not what:
        return []
    return [CaseDelta(fid, "changed", old, new, old_fid, what=what, loosened=loosened(old, new))]


def _moves(removed: list[_Loose], added: list[_Loose]) -> dict[int, _Loose]:
    """id(added case) -> the removed case of the same function and content it replaces
    (first come, first paired; a file's own removals before another file's)."""
    pool: dict[tuple[str, str], list[_Loose]] = {}
    for r in removed:
        pool.setdefault((r.function, content(r.case)), []).append(r)
    out: dict[int, _Loose] = {}
    for a in added:
        candidates = pool.get((a.function, content(a.case)))
        if candidates:
            pick = next((c for c in candidates if c.pair == a.pair), candidates[0])
            candidates.remove(pick)
            out[id(a.case)] = pick
    return out


def _file_delta(
    pair: tuple[FileSide, FileSide],
    cases: list[CaseDelta],
    renames: Mapping[str, str],
    pairs: Sequence[tuple[FileSide, FileSide]],
) -> FileDelta:
    old, new = pair
    if old.spec is None:
        status = "added"
    elif new.spec is None:
        status = "deleted"
    else:
        status = "renamed" if old.rel != new.rel else "modified"
    order = {"removed": 0, "changed": 1, "moved": 2, "added": 3}
    cases.sort(key=lambda d: (order[d.kind], d.function, _case_id(d)))
    everywhere = {f.id for _, n in pairs if n.spec for f in n.spec.functions}
    dropped = tuple(
        BlockDelta(f.id, f.line, f)
        for f in (old.spec.functions if old.spec else ())
        if renames.get(f.id, f.id) not in everywhere and f.id not in everywhere
    )
    return FileDelta(
        new.rel or old.rel or "",
        status,
        old.rel if status == "renamed" else None,
        tuple(cases),
        dropped,
        _scores(old.spec, new.spec, renames),
        old.spec,
        new.spec,
    )


def _scores(
    old: SpecFile | None, new: SpecFile | None, renames: Mapping[str, str]
) -> tuple[tuple[str, float | None, float | None], ...]:
    before = {
        renames.get(f.id, f.id): f.meta.mutation_score for f in (old.functions if old else ())
    }
    after = {f.id: f.meta.mutation_score for f in (new.functions if new else ())}
    out = []
    for fid in sorted(set(before) | set(after)):
        b, a = before.get(fid), after.get(fid)
        if (b is not None or a is not None) and b != a:
            out.append((fid, b, a))
    return tuple(out)


def _case_id(d: CaseDelta) -> str:
    case = d.new or d.old
    return case.id if case else ""
