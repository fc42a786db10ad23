"""How benchmarks/upgrade_detection.py scores one upgrade and prints a set's figures.

The truth is the changelog's: the functions with at least one announced change that running
both releases confirmed (benchmarks/_changelog.py). The differential run over the tests' pool
(benchmarks/_differential.py) is a second source: a changelog function it also found is in the
"both sources" column, one it did not find in the "changelog alone" column, and the functions
only it found are a column of their own, never part of the headline figure.

A function is caught in a scope when codemode flags it (``drifted`` or ``changed``) and one of
the flag's calls, re-run on both releases, differs in value or exception type: a message-only
difference is no change (as in codemode's default ``fail_on``). A flag on a function neither
source calls changed, with no such call, is a false alarm. Each changelog function that is not
caught gets one cause, read from the check's JSON report."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from _changelog import CONFIRMED, Announced
from _differential import Change
from _releases import Library
from _witness import NOT_RECHECKABLE, Witness

SCOPES = ("base", "staged")
TARGET = 0.90
# The causes of a miss, in the order they are checked (``miss_cause``).
CAUSES = (
    "flagged without a correct witness",
    "scope",
    "not defined in the old release",
    "error",
    "budget",
    "message only",
    "spec form",
    "not compared",
    "pool",
)


@dataclass
class Scope:
    """What one check of the new release (staged, or against the base) flagged."""

    flagged: dict[str, str] = field(default_factory=dict)  # function -> verdict
    errors: list[str] = field(default_factory=list)  # functions whose verdict is error
    witnesses: dict[str, list[tuple[Witness, str]]] = field(default_factory=dict)
    report: dict[str, dict[str, Any]] = field(default_factory=dict)  # the check's JSON, by id

    def correct(self, fid: str) -> bool:
        """A call of the flag re-runs as a real difference of value or exception type."""
        return any(v == "real" for _, v in self.witnesses.get(fid, ()))

    def caught_by(self, fid: str, source: str) -> bool:
        """A real difference among the calls from one source: "case" (a drifted case of the
        spec) or "witness" (the behaviour diff)."""
        return any(
            v == "real" and w.source.startswith(source) for w, v in self.witnesses.get(fid, ())
        )

    def message_only(self, fid: str) -> bool:
        verdicts = [v for _, v in self.witnesses.get(fid, ())]
        return "real (message)" in verdicts and "real" not in verdicts


@dataclass
class Outcome:
    lib: Library
    functions: int = 0
    cases: int = 0
    false_drift: list[str] = field(default_factory=list)  # not ok on the old code itself
    announced: dict[Announced, str] = field(default_factory=dict)  # -> CONFIRMED or why not
    differential: dict[str, Change] = field(default_factory=dict)  # the pool's changes
    kinds: dict[str, str] = field(default_factory=dict)  # unchanged | refactor-only
    scopes: dict[str, Scope] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    bootstrapped: int = 0  # functions whose specs were bootstrapped
    known: set[str] = field(default_factory=set)  # functions codemode wrote a spec for
    # changed by the differential run, but its call did not keep one outcome per release on
    # three runs of each: a random function, neither changed nor unchanged (a flag is no alarm)
    random: dict[str, Change] = field(default_factory=dict)
    excluded: str = ""  # why the whole upgrade could not be measured (a release cannot run)

    @property
    def truth(self) -> list[str]:
        return sorted({a.function for a, v in self.announced.items() if v == CONFIRMED})

    @property
    def both(self) -> list[str]:
        return [f for f in self.truth if f in self.differential]

    @property
    def alone(self) -> list[str]:
        return [f for f in self.truth if f not in self.differential]

    @property
    def extra(self) -> list[str]:
        """Changed by the differential run only (no announced change confirms them)."""
        return sorted(set(self.differential) - set(self.truth))

    def caught(self, scope: str, among: list[str] | None = None) -> list[str]:
        s = self.scopes[scope]
        pool = self.truth if among is None else among
        return sorted(f for f in pool if f in s.flagged and s.correct(f))

    def false_alarms(self, scope: str) -> list[str]:
        s = self.scopes[scope]
        changed = set(self.truth) | set(self.differential) | set(self.random)
        return sorted(f for f in s.flagged if f not in changed and not s.correct(f))

    def beyond_truth(self, scope: str) -> list[str]:
        s = self.scopes[scope]
        changed = set(self.truth) | set(self.differential)
        return sorted(f for f in s.flagged if f not in changed and s.correct(f))

    def misses(self, scope: str) -> dict[str, str]:
        caught = set(self.caught(scope))
        return {
            f: miss_cause(f, self.scopes[scope], self.known) for f in self.truth if f not in caught
        }


def miss_cause(fid: str, s: Scope, known: set[str]) -> str:
    """Why a changelog function was not caught in one scope, from the check's report."""
    f = s.report.get(fid)
    if fid in s.flagged:
        return "flagged without a correct witness"
    if f is None:
        # absent from the report: neither re-checked nor diffed, though the pull request
        # changes what it does (or a witness written under a name the old release lacks)
        return "scope" if fid in known else "not defined in the old release"
    note = str(f.get("diff_note") or "")
    status = f["status"]
    if status == "error":
        return "error"
    if status == "skipped" or "budget" in note or "deadline" in note:
        return "budget"
    if status == "message_changed":
        return "message only"
    if "no inputs" in note:
        return "spec form"
    if note.startswith("not compared"):
        return "not compared"
    return "pool"


# -- printing -----------------------------------------------------------------------------


def _witness_lines(s: Scope, fid: str) -> list[str]:
    return [
        f"             {verdict:6} {w.source}: {w.text[:120]}"
        for w, verdict in s.witnesses.get(fid, ())[:3]
    ]


def _mark(o: Outcome, fid: str, name: str) -> str:
    if fid in o.caught(name, [fid]):
        return "caught"
    if fid in o.scopes[name].flagged:
        return "flagged, no real witness"
    return "MISSED"


def show(o: Outcome) -> None:
    lib = o.lib
    if o.excluded:
        print(f"{lib.dist} {lib.old} -> {lib.new}: EXCLUDED, not measured: {o.excluded}")
        return
    head = ", ".join(
        f"{name}: caught {len(o.caught(name))}/{len(o.truth)}, "
        f"false alarms {len(o.false_alarms(name))}"
        for name in SCOPES
    )
    kinds = list(o.kinds.values())
    print(
        f"{lib.dist} {lib.old} -> {lib.new}: changelog changes confirmed {len(o.truth)} "
        f"(both sources {len(o.both)}, changelog alone {len(o.alone)}), differential only "
        f"{len(o.extra)}; functions {o.functions} (bootstrapped {o.bootstrapped}), cases "
        f"{o.cases}, false drift on the old code {len(o.false_drift)}; {head} (unchanged "
        f"{kinds.count('unchanged')}, refactor-only {kinds.count('refactor-only')}; "
        f"{o.seconds:.0f} s)"
    )
    for a, v in o.announced.items():
        if v != CONFIRMED:
            print(f"  not confirmed (left out of the truth) {a.function}: {a.call[:70]}: {v}")
    for fid in o.false_drift:
        print(f"  FALSE DRIFT {fid}: {o.why[fid]}")
    for fid, ch in sorted(o.random.items()):
        print(f"  not counted (a coin flip on three runs) {fid}: {ch.call.source()[:90]}")
    calls = {a.function: a for a, v in o.announced.items() if v == CONFIRMED}
    for fid in o.truth:
        marks = "/".join(_mark(o, fid, n) for n in SCOPES)
        column = "both sources" if fid in o.differential else "changelog alone"
        a = calls[fid]
        print(f"  {marks:14} [{column}] {fid}: {a.call[:90]}  ({a.old[:40]} -> {a.new[:40]})")
        for name, cause in ((n, o.misses(n).get(fid)) for n in SCOPES):
            if cause:
                f = o.scopes[name].report.get(fid) or {}
                # how many inputs the diff ran, and how many of them were mutants (#32)
                ran = f"diffed on {f['diff_inputs']}; " if f and f.get("diff_inputs") else ""
                seen = f"{f['status']}; {ran}{f.get('diff_note') or 'no note'}" if f else "absent"
                print(f"           missed ({name}): {cause} (the report: {seen[:150]})")
        if fid in o.scopes["base"].flagged:
            print(f"           {o.why['base:' + fid]}")
            print("\n".join(_witness_lines(o.scopes["base"], fid)))
    for fid in o.extra:
        ch = o.differential[fid]
        marks = "/".join(_mark(o, fid, n) for n in SCOPES)
        print(f"  {marks:14} [differential only] {fid}: {ch.call.source()[:90]}")
    for name in SCOPES:
        s = o.scopes[name]
        for fid in o.false_alarms(name):
            kind = o.kinds.get(fid, "not in either truth")
            print(f"  FALSE ALARM ({name}, {kind}) {fid}: {o.why[name + ':' + fid]}")
            print("\n".join(_witness_lines(s, fid)))
        for fid in o.beyond_truth(name):
            print(f"  real change beyond both truths ({name}) {fid}: {o.why[name + ':' + fid]}")
        if s.errors:
            more = " ..." if len(s.errors) > 8 else ""
            print(f"  errors ({name}): {', '.join(s.errors[:8])}{more}")


def _count(outcomes: list[Outcome], name: str, which: str) -> tuple[int, int]:
    """(caught, total) over one column: "truth", "both", "alone" or "extra"."""
    caught = total = 0
    for o in outcomes:
        fids = getattr(o, which)
        caught += len(o.caught(name, fids))
        total += len(fids)
    return caught, total


def _share(pair: tuple[int, int]) -> str:
    caught, total = pair
    return f"{caught}/{total} = {caught / total:.0%}" if total else "0/0"


def summary(label: str, outcomes: list[Outcome]) -> bool:
    """Print one set's figures; True when it meets the target in both scopes."""
    if not outcomes:
        return False
    measured = [o for o in outcomes if not o.excluded]
    excluded = [o for o in outcomes if o.excluded]
    met = bool(measured)
    for name in SCOPES:
        caught, total = _count(measured, name, "truth")
        false = sum(len(o.false_alarms(name)) for o in measured)
        by_message = sum(
            1 for o in measured for f in o.scopes[name].flagged if o.scopes[name].message_only(f)
        )
        unrecheckable = sum(
            1
            for o in measured
            for f in o.scopes[name].flagged
            if all(v == NOT_RECHECKABLE for _, v in o.scopes[name].witnesses.get(f, ()))
        )
        causes = Counter(c for o in measured for c in o.misses(name).values())
        by_cause = ", ".join(f"{c} {causes[c]}" for c in CAUSES if causes[c]) or "none"
        met = met and total > 0 and caught / total >= TARGET and false == 0
        libraries = len({o.lib.dist for o in measured})
        print(
            f"{label} [{name}]: {libraries} libraries, {len(measured)} upgrades: changelog-"
            f"confirmed changes caught with a correct witness {_share((caught, total))} "
            f"(found by both sources {_share(_count(measured, name, 'both'))}; by the "
            f"changelog alone {_share(_count(measured, name, 'alone'))}); the differential "
            f"run adds {_share(_count(measured, name, 'extra'))}; false alarms {false} "
            f"(flags whose only difference is a message: {by_message}); beyond both truths "
            f"{sum(len(o.beyond_truth(name)) for o in measured)}; flags whose calls cannot be "
            f"re-run {unrecheckable}; misses by cause: {by_cause}"
        )
    left_out = [(o.lib, a, v) for o in measured for a, v in o.announced.items() if v != CONFIRMED]
    print(
        f"{label}: announced changes written {sum(len(o.announced) for o in measured)}, "
        f"confirmed by running both releases "
        f"{sum(1 for o in measured for v in o.announced.values() if v == CONFIRMED)}, not "
        f"confirmed {len(left_out)}; functions {sum(o.functions for o in measured)}, cases "
        f"{sum(o.cases for o in measured)}, false drift on the old code "
        f"{sum(len(o.false_drift) for o in measured)}; upgrades excluded {len(excluded)}"
        + "".join(
            f"\n  excluded {o.lib.dist} {o.lib.old} -> {o.lib.new}: {o.excluded}" for o in excluded
        )
    )
    return met and not any(o.false_drift for o in measured)
