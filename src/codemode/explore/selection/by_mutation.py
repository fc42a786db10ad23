"""Choosing cases by mutation: the smallest set of recorded calls that kills the most
in-memory mutants of the function, then covers the most lines, then shows each outcome.

The worker makes the mutants (``worker/mutants.py``), runs every candidate call against
each, and says which calls' outcomes differ; the choice is a greedy set cover over that
matrix (Pynguin keeps assertions the same way). A mutant no call kills is a survivor: the
score, killed / mutants, is reported with the spec.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from codemode.explore.record import CallRecord, Recorder, value_key, wire_call

MAX_CANDIDATES = 150  # calls run against every mutant (until two of them kill it)
REPLY_TIMEOUT = 10.0  # seconds for one mutant's calls (the worker stops them at 0.5 s)


@dataclass(frozen=True)
class Mutation:
    mutants: int = 0  # mutants that compiled and ran
    kills: dict[int, frozenset[int]] = field(default_factory=dict)  # record n -> mutants
    sites: tuple[tuple[str, int], ...] = ()
    note: str = ""
    ran: frozenset[int] = frozenset()  # the mutants that ran

    def killed_by(self, records: Sequence[CallRecord]) -> frozenset[int]:
        out: set[int] = set()
        for r in records:
            out |= self.kills.get(r.n, frozenset())
        return frozenset(out)

    def survivors(self, records: Sequence[CallRecord]) -> list[str]:
        killed = self.killed_by(records)
        return [
            f"line {line}: {desc}"
            for k, (desc, line) in enumerate(self.sites)
            if k in self.ran and k not in killed
        ]


def run_mutants(recorder: Recorder, records: Sequence[CallRecord]) -> Mutation:
    """The kill matrix of ``records`` against the target's mutants, from the worker."""
    if not records:
        return Mutation()
    by_id = {str(r.n): r.n for r in records}
    msg: dict[str, object] = {
        "op": "mutate",
        "target": recorder.target,
        "cases": [_wire(r) for r in records],
        "fixtures": recorder.fixtures,
        "fixture_names": recorder.fixture_names,
        "serializer": None,
        "file_key": recorder.file_key,
    }
    sites: list[tuple[str, int]] = []
    kills: dict[int, set[int]] = {}
    ran: set[int] = set()
    note = ""
    for reply in recorder.worker.stream(msg, REPLY_TIMEOUT):
        got: dict[str, Any] = reply
        if "sites" in got:
            sites = [(str(d), int(ln)) for d, ln in got["sites"]]
        elif "fatal" in got:
            note = f"mutation analysis stopped: {got.get('message', '')}"[:200]
        elif "note" in got:
            note = str(got["note"])[:200]
        elif "mutant" in got and not got.get("skipped"):
            k = int(got["mutant"])
            ran.add(k)
            for case in got.get("killed_by", []):
                if case in by_id:
                    kills.setdefault(by_id[case], set()).add(k)
    return Mutation(
        mutants=len(ran),
        kills={n: frozenset(ks) for n, ks in kills.items()},
        sites=tuple(sites),
        note=note,
        ran=frozenset(ran),
    )


def _wire(r: CallRecord) -> dict[str, Any]:
    # a snippet's call holds recipes (a receiver, a dataclass of Decimals): built in the
    # worker; the planner's plain values need no such walk
    built = r.receiver is not None or not _plain([list(r.args), r.kwargs])
    return wire_call(str(r.n), r.args, r.kwargs, receiver=r.receiver, build=built)


def _plain(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(v) for v in value.values())
    return not callable(getattr(value, "__codemode_wire__", None))


def _size(r: CallRecord) -> int:
    return len(json.dumps([list(r.args), r.kwargs], default=str))


def choose(
    records: Sequence[CallRecord],
    mutation: Mutation,
    first: Sequence[CallRecord],
    max_cases: int,
    plainness: dict[int, int] | None = None,
    family: dict[int, str] | None = None,
) -> list[CallRecord]:
    """``first`` (the author's examples), then greedily the call that kills the most mutants
    not yet killed (past ``max_cases`` only while each kills one more), then reaches the most new lines, then shows a new kind of outcome; ties
    go to the plainer call (``plainness``: fewer factors varied), then the smaller input.
    Then the classes of input not yet shown (``family``), see ``_fill``."""
    plain = plainness or {}
    picked = list(first)[:max_cases]
    killed = set(mutation.killed_by(picked))
    lines = {ln for r in picked for ln in r.lines}
    outcomes = {r.outcome_key for r in picked}
    chosen = {r.n for r in picked}
    pool = [r for r in records if r.n not in chosen]

    def gain(r: CallRecord) -> tuple[int, int, int, int, int, int]:
        new_kills = len(mutation.kills.get(r.n, frozenset()) - killed)
        new_lines = len(set(r.lines) - lines)
        new_outcome = int(r.outcome_key not in outcomes)
        return (new_kills, new_lines, new_outcome, -plain.get(r.n, 0), -_size(r), -r.n)

    # A case that kills a mutant no picked case kills is worth reading past ``max_cases`` (up
    # to twice it): the cap bounds the cases that add less (#23).
    while pool and len(picked) < 2 * max_cases:
        best = max(pool, key=gain)
        if len(picked) >= max_cases and gain(best)[0] == 0:
            break
        if gain(best)[:2] == (0, 0) and mutation.mutants:
            break  # kills no further mutant, runs no new line: only _fill's classes remain
        if gain(best)[:3] == (0, 0, 0):
            break
        picked.append(best)
        pool.remove(best)
        killed |= mutation.kills.get(best.n, frozenset())
        lines |= set(best.lines)
        outcomes.add(best.outcome_key)
    return _fill(picked, pool, max_cases, plain, family or {}, bool(mutation.mutants))


def _fill(
    picked: list[CallRecord],
    pool: Sequence[CallRecord],
    limit: int,
    plain: dict[int, int],
    family: dict[int, str],
    mutated: bool = True,
) -> list[CallRecord]:
    """Then, up to ``limit``, one call per class of input not yet shown (``family``: the
    type-directed class such as ``surrounding_whitespace`` or ``accented``, or the source
    of a maintainer's example), first those that also show a new output, then the rest;
    then any other distinct output. Mutants model only small edits of the code, and a
    release changes behaviour along classes of input they never reach (trimmed whitespace,
    an accented word start): category partition, one representative per class. Within a
    pass the sources (``source:class``) take turns, each in the planner's order (its
    classes come in priority order), the plainest call first."""
    outs = {_outcome_value(r) for r in picked}
    # a family ``a+b`` is one class per parameter: a call whose every class is shown already
    # (the zero amount beside the zero rate, each shown alone) is no new class (#23)
    fams = {part for r in picked for part in family.get(r.n, "").split("+")}
    taken = {r.n for r in picked}
    turn = _turns(family)
    ordered = sorted(pool, key=lambda r: (turn.get(family.get(r.n, ""), 0), plain.get(r.n, 0), r.n))
    # A call of a class already shown that kills no further mutant adds nothing a reviewer
    # needs: without mutants (the model's fallback) a new output is still worth a case.
    passes = (
        ((True, True), (True, False)) if mutated else ((True, True), (True, False), (False, True))
    )
    # A text handed back unchanged shows one thing however it is dressed: the second call of
    # that kind is filler (#35: 16 of 97 cases were `Hello World`-like strings returned as is).
    echoed = any(_echoes(r) for r in picked)
    for need_family, need_outcome in passes:
        for r in ordered:
            if len(picked) >= limit:
                return picked
            if echoed and _echoes(r):
                continue
            parts = family.get(r.n, "").split("+")
            new_family = any(part not in fams for part in parts)
            new_outcome = _outcome_value(r) not in outs
            wanted = (new_family or not need_family) and (new_outcome or not need_outcome)
            if wanted and r.n not in taken:
                picked.append(r)
                taken.add(r.n)
                outs.add(_outcome_value(r))
                fams.update(parts)
                echoed = echoed or _echoes(r)
    return picked


def _echoes(r: CallRecord) -> bool:
    """The call returned one of its text arguments unchanged."""
    if r.kind != "returned" or not isinstance(r.value, str) or not r.value:
        return False
    return any(isinstance(a, str) and a == r.value for a in (*r.args, *r.kwargs.values()))


def _turns(family: dict[int, str]) -> dict[str, int]:
    """Each class's rank within its source (``source:class``), by first appearance."""
    ranks: dict[str, int] = {}
    per_source: dict[str, int] = {}
    for n in sorted(family):
        fam = family[n]
        if fam not in ranks:
            source = fam.split(":", 1)[0]
            ranks[fam] = per_source.get(source, 0)
            per_source[source] = ranks[fam] + 1
    return ranks


def shortlist(
    records: Sequence[CallRecord],
    keep: Sequence[CallRecord],
    plainness: dict[int, int] | None = None,
) -> list[CallRecord]:
    """At most MAX_CANDIDATES calls to mutate, in the order the worker tries them (it stops
    at two killers per mutant): ``keep``, then one call per distinct outcome value (plainest,
    then smallest input first), then the rest."""
    plain = plainness or {}
    ordered = sorted(records, key=lambda r: (plain.get(r.n, 0), _size(r), r.n))
    out = list(keep)
    # one call per path first: a mutant changes only what runs through its line, and the
    # same output by another route (infinity as a number, not as text) is another route
    paths = {frozenset(r.lines) for r in out}
    for r in ordered:
        if r not in out and frozenset(r.lines) not in paths:
            paths.add(frozenset(r.lines))
            out.append(r)
    seen = {_outcome_value(r) for r in out}
    rest: list[CallRecord] = []
    for r in ordered:  # then one call per distinct output, then the rest
        if r in out:
            continue
        key = _outcome_value(r)
        if key in seen:
            rest.append(r)
        else:
            seen.add(key)
            out.append(r)
    return (out + rest)[:MAX_CANDIDATES]


def _outcome_value(r: CallRecord) -> str:
    if r.kind == "raised":
        exc = r.exc or {}
        return json.dumps(["raised", exc.get("type"), exc.get("message")])
    return value_key(["returned", r.value], default=str)
