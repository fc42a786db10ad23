"""The offline explorer: inputs from where behaviour lives, cases chosen by mutation.

Candidates come, in this order, from the project's tests, the function's docstring, its
callers in the project, those examples varied at their edge (``explore/offline/variants.py``), its
constants and patterns, then values directed by each parameter's type
(``explore/offline/values.py``, the examples' own values first), planned deterministically for a
function id.
Every planned value respects the annotation (or what the body implies of an unannotated
parameter); a required parameter nothing can build is reported as needing a fixture, with
no cases. All calls run in the worker in batches; calls whose outcome is an incidental
wrong-type error are never cases (``explore/selection/admit.py``). The worker then runs the usable
calls against in-memory mutants of the function, and the smallest set that kills the most
mutants, then covers the most lines, then shows each class of input, becomes the cases
(``explore/selection/by_mutation.py``).
"""

from __future__ import annotations

import ast
import datetime as dt
import itertools
import math
import random
import re
import textwrap
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemode.config import Config
from codemode.explore.offline.builder import Builder
from codemode.explore.offline.harvest import (
    Candidate,
    docstring_calls,
    file_calls,
    parsed,
    patterns,
)
from codemode.explore.offline.input_sources import INPUT_SOURCES
from codemode.explore.offline.near_sources import data_texts, doc_file_calls, sibling_calls
from codemode.explore.offline.test_names import Drops
from codemode.explore.offline.values import Value, dedupe
from codemode.explore.offline.variants import example_values, other_types, variants
from codemode.explore.target import AST_LOCK, Param, TargetInfo

# Choosing cases (records, mutants, case mappings) is imported where cases are chosen:
# `plan` alone is what the behaviour diff of a pre-commit hook needs (#18).
if TYPE_CHECKING:
    from codemode.explore.record import CallRecord, Recorder

MAX_PLANNED = 400
MAX_CASES: int = Config._field_defaults[
    "max_cases"
]  # the default of `[tool.codemode] max_cases`, one number
_CONSTANT_LABELS: tuple[str, ...] = ("at_", "below_", "above_", "literal_", "around_", "upper_")
_CONSTANT_LABELS += ("with_", "ends_with_", "starts_with_", "matches_pattern", "has_pattern")
_CONSTANT_LABELS += ("inside_", "digits_joined_by_", "padded_pattern", "repeated_")
MAX_VALUES = 48  # per parameter: the general values, then those the code's own constants imply
_ADJECTIVES = frozenset(
    [
        "zero",
        "one",
        "two",
        "three",
        "ten",
        "hundred",
        "negative",
        "large",
        "large_negative",
        "half",
        "fraction",
        "tenth",
        "none",
        "true",
        "false",
        "default",
        "negative_fraction",
        "whole_number",
        "empty_list",
        "empty_mapping",
    ]
)


@dataclass
class OfflineResult:
    cases: list[dict[str, Any]] = field(default_factory=list)
    sources: tuple[str, ...] = ()
    mutants: int = 0
    killed: int = 0
    needs_fixture: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)

    @property
    def score(self) -> float | None:
        return self.killed / self.mutants if self.mutants else None


def _fn_node(info: TargetInfo) -> ast.AST | None:
    try:
        return ast.parse(textwrap.dedent(info.source)).body[0]
    except (SyntaxError, IndexError):
        return None


def _module_tree(info: TargetInfo) -> ast.Module | None:
    return parsed(info.path)[1]


def _params(info: TargetInfo, fixtures: Sequence[str]) -> list[Param]:
    # Fixture parameters are injected by the worker; variadic ones are left empty.
    return [
        p
        for p in info.params
        if p.kind not in ("var_positional", "var_keyword") and p.name not in fixtures
    ]


def _passed(c: Candidate, params: Sequence[Param]) -> set[str]:
    """The parameters a call passes, by position or by name."""
    return {p.name for p in params[: len(c.args)]} | set(c.kwargs)


def _caller_types(cands: Sequence[Candidate], params: Sequence[Param]) -> dict[str, list[str]]:
    """The plain types callers pass each parameter, the most used first."""
    out: dict[str, Counter[str]] = {p.name: Counter() for p in params}
    for c in cands:
        for p, v in zip(params, c.args):
            out[p.name][type(v).__name__] += 1
        for k, v in c.kwargs.items():
            out.setdefault(k, Counter())[type(v).__name__] += 1
    plain = ("str", "int", "float", "list", "dict")
    return {k: [t for t, _ in v.most_common() if t in plain] for k, v in out.items()}


def _label(p: Param, v: Value, single: bool) -> str:
    if single:
        return v.label
    return f"{v.label}_{p.name}" if v.label in _ADJECTIVES else f"{p.name}_{v.label}"


def _value_class(v: Value) -> str:
    """The class of input a planned value stands for. A number's is its sign and size: 1, 2
    and 3 beside 0 are one class, and a case each added nothing a reviewer needs (#23); the
    boundaries around the code's own literals are told apart by the mutants they kill."""
    n = v.value
    if isinstance(n, bool) or not isinstance(n, (int, float)):
        return v.label
    if n != n or n in (float("inf"), float("-inf")):
        return v.label  # nan, infinities: each its own
    if n == 0:
        return "zero"
    size = "large" if abs(n) >= 1000 else "fraction" if abs(n) < 1 else "small"
    return f"{'negative' if n < 0 else 'positive'}_{size}"


# A label that starts with, or holds after an underscore, one of _CONSTANT_LABELS: one
# compiled search instead of a loop over the labels (this runs for every planned call).
_DERIVED = re.compile("(?:^|_)(?:" + "|".join(map(re.escape, _CONSTANT_LABELS)) + ")")


class _Plan:
    """Typed candidates: a typical call, one factor at a time, then combinations."""

    def __init__(self, info: TargetInfo, params: list[Param], values: dict[str, list[Value]]):
        self.info, self.params, self.values = info, params, values
        self.rng = random.Random(zlib.crc32(info.id.encode()))
        self.out: list[Candidate] = []
        # A plan adds ~400 calls made of a few dozen values and labels: each value's class
        # and each label's source, worked out once (by identity: the plan holds the values).
        self._classes: dict[int, tuple[Value, str]] = {}
        self._derived: dict[str, bool] = {}

    def _class(self, v: Value) -> str:
        got = self._classes.get(id(v))
        if got is None or got[0] is not v:
            got = self._classes[id(v)] = (v, _value_class(v))
        return got[1]

    def _source(self, labels: list[str]) -> str:
        derived = self._derived
        for lb in labels:
            hit = derived.get(lb)
            if hit is None:
                hit = derived[lb] = _DERIVED.search(lb) is not None
            if hit:
                return "constants"
        return "types"

    def add(self, chosen: dict[str, Value], labels: list[str]) -> None:
        args, kwargs = _to_call(self.params, {k: v.value for k, v in chosen.items()})
        label = "_and_".join(labels) if labels else "typical"
        family = "+".join(f"{k}:{self._class(v)}" for k, v in sorted(chosen.items()))
        self.out.append(Candidate(args, kwargs, label, self._source(labels), family=family))

    def build(self) -> list[Candidate]:
        params, values = self.params, self.values
        single = len(params) == 1
        base = {p.name: values[p.name][0] for p in params if not p.has_default and values[p.name]}
        self.add(
            dict(base), [_label(params[0], base[params[0].name], True)] if single and base else []
        )
        for p in params:  # one factor at a time, the rest at their typical value
            for v in values[p.name]:
                self.add({**base, p.name: v}, [_label(p, v, single)])
        named = [p for p in params if values[p.name]]
        self.equal_pairs(named, base)
        pairs = list(itertools.combinations(named, 2))
        room = max(0, MAX_PLANNED - len(self.out))
        if len(pairs) > room:
            pairs = self.rng.sample(pairs, room)
        per_pair = max(1, room // len(pairs)) if pairs else 0
        for p, q in pairs:  # two factors at a time: where options interact
            for a, b in _combos(values[p.name], values[q.name], per_pair, self.rng):
                labels = [_label(x, v, False) for x, v in ((p, a), (q, b)) if base.get(x.name) != v]
                self.add({**base, p.name: a, q.name: b}, labels)
        return self.out[:MAX_PLANNED]

    def equal_pairs(self, named: list[Param], base: dict[str, Value]) -> None:
        """Two parameters of one ordered type at the same value: ``value < floor`` is told
        from ``value <= floor`` only there."""
        for p, q in itertools.permutations(named, 2):
            v = base.get(p.name) or self.values[p.name][0]
            if type(v.value) not in _ORDERED:
                continue
            if any(type(w.value) is type(v.value) for w in self.values[q.name]):
                same = Value(v.value, f"{q.name}_equal_to_{p.name}")
                self.add({**base, p.name: v, q.name: same}, [same.label])


_ORDERED = (int, float, dt.date, dt.datetime, dt.timedelta)


def _combos(
    pv: list[Value], qv: list[Value], k: int, rng: random.Random
) -> list[tuple[Value, Value]]:
    """``k`` pairs of values: half the plainest (each parameter's first values off its
    default: ``lowercase=False`` with the first ``stopwords``), half at random."""
    cells = [(i, j) for i in range(len(pv)) for j in range(len(qv))]
    if len(cells) > k:
        off = [c for c in cells if pv[c[0]].label != "default" != qv[c[1]].label]
        plain = sorted(off, key=sum)[: (k + 1) // 2]
        taken = set(plain)
        cells = plain + rng.sample([c for c in cells if c not in taken], k - len(plain))
    return [(pv[i], qv[j]) for i, j in cells]


def _to_call(params: list[Param], values: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    gap = False
    for p in params:
        if p.name not in values:
            gap = True
            continue
        keyword = p.has_default and len(params) > 3  # long signatures: options by name
        if p.kind in ("positional", "positional_only") and not gap and not keyword:
            args.append(values[p.name])
        else:
            kwargs[p.name] = values[p.name]
    return tuple(args), kwargs


@dataclass
class Planned:
    candidates: list[Candidate]
    needs_fixture: tuple[str, ...] = ()


def plan(
    info: TargetInfo,
    fixtures: Sequence[str] = (),
    root: Path | None = None,
    drops: Drops | None = None,
) -> Planned:
    """Every candidate call, sources first, deterministic for a given function. ``drops``
    counts the test calls that could not be carried (explore/offline/test_names.py)."""
    params = _params(info, fixtures)
    doc = docstring_calls(info)
    tests, callers = file_calls(info, root, drops) if root is not None else ([], [])
    if info.is_method and fixtures and root is not None:  # on the fixture's instance (#32)
        from codemode.explore.offline.input_pool import method_arguments

        tests += method_arguments(info, root)
    docs = doc_file_calls(info, root) if root is not None else []
    # near the function: its siblings' test inputs, the data files its tests read
    near = [*sibling_calls(info, root), *data_texts(info, root)] if root is not None else []
    found = [*tests, *doc, *docs, *callers, *near]
    found += variants([*doc, *docs, *tests])
    found += other_types([*doc, *docs, *tests], params)  # None, [] for a mapping (#32)
    fn = _fn_node(info)
    module = _module_tree(info)
    pats = patterns(fn, module) if fn is not None and module is not None else []
    # a text option's default (sep=",") is a literal the body works with, like its own
    defaults = tuple(p.default for p in params if isinstance(p.default, str) and p.default)
    builder = Builder(info.literals + defaults, pats, fn, module)
    kinds = _caller_types(found, params)
    values = {p.name: builder.for_param(p, kinds.get(p.name, ()))[:MAX_VALUES] for p in params}
    positional = [p.name for p in params if p.kind in ("positional", "positional_only")]
    seeded = example_values([p.name for p in params], positional, [*doc, *tests])
    for name, vals in values.items():  # realistic values first: the typical call is an example
        if vals and seeded.get(name):
            values[name] = dedupe([*seeded[name], *vals])[:MAX_VALUES]
    if fn is not None:
        _text_lengths(values, fn)
    missing = tuple(p.name for p in params if not p.has_default and not values[p.name])
    if missing:
        # the examples that pass what nothing can build still run: every parameter they
        # leave out has a default (a test's `load(b"conf.toml")` of `load(f, _dict=dict)`)
        given = [c for c in found if c.exprs or set(missing) <= _passed(c, params)]
        return Planned(_around_fixtures(given, info.params, fixtures), missing)
    built = _Plan(info, params, values).build()  # its calls leave the fixtures' parameters out
    found = _around_fixtures(found, info.params, fixtures)
    return Planned([*found, *_around_fixtures(built, params, fixtures)])


def _around_fixtures(
    candidates: list[Candidate], params: Sequence[Param], fixtures: Sequence[str]
) -> list[Candidate]:
    """Where fixtures fill some parameters (the worker passes them by name, as vowel does),
    each call passes the others by name too, and leaves out what a fixture gives: a test's
    ``save(path, text)`` becomes ``save(text=...)`` beside a ``path`` fixture (#31). A call
    written as source text cannot be taken apart here, and is left out."""
    if not fixtures:
        return candidates
    names = [p.name for p in params if p.kind in ("positional", "positional_only")]
    out: list[Candidate] = []
    seen: set[str] = set()
    for c in candidates:
        if c.exprs:
            c = _without_built(c, names, fixtures)  # the fixture builds what it built (#32)
        if c.exprs or len(c.args) > len(names):
            continue
        kwargs = {**dict(zip(names, c.args)), **c.kwargs}
        for name in fixtures:
            kwargs.pop(name, None)
        key = _key((), kwargs)
        if key not in seen:
            seen.add(key)
            out.append(c._replace(args=(), kwargs=kwargs))
    return out


def _without_built(c: Candidate, names: Sequence[str], fixtures: Sequence[str]) -> Candidate:
    """A call written as source text whose every argument but the fixtures' is a literal, as
    a call of those literals by name (``render(doc, sep=', ')`` beside a ``doc`` fixture)."""
    exprs = c.exprs or {}
    args = list(exprs.get("args") or [])
    if len(args) > len(names):
        return c
    sources = {**dict(zip(names, args)), **(exprs.get("kwargs") or {})}
    kwargs = {}
    for name, src in sources.items():
        if name in fixtures:
            continue
        try:
            kwargs[name] = ast.literal_eval(str(src))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return c
    return c._replace(args=(), kwargs=kwargs, exprs=None)


def _text_lengths(values: dict[str, list[Value]], fn: ast.AST) -> None:
    """Where the body measures text (``len(string) < max_length``), an int option gets the
    typical text's length and its first word's, first among its values off the default:
    a limit that falls exactly on the text's end, or on a word's, is where truncation and
    padding differ between ``<`` and ``<=``, and between a word boundary and a letter."""
    if not any(isinstance(n, ast.Call) and ast.unparse(n.func) == "len" for n in ast.walk(fn)):
        return
    text = next((v[0].value for v in values.values() if v and isinstance(v[0].value, str)), "")
    words = text.split()
    if not words:
        return
    lengths = [Value(len(text), "length_of_text"), Value(len(words[0]), "length_of_first_word")]
    for name, vals in values.items():
        plain = [v for v in vals if v.label != "default"]
        if plain and all(type(v.value) is int for v in plain[:3]):
            at = len(vals) - len(plain)  # after the default
            values[name] = dedupe([*vals[:at], *lengths, *vals[at:]])[:MAX_VALUES]


def _key(args: Sequence[Any], kwargs: dict[str, Any]) -> str:
    from codemode.explore.record import value_key

    return value_key([list(args), kwargs], default=str)


# The calls planned for one function run in batches (CALL_BATCH, then twice as many each
# time) until they have taken CALLS_SECONDS in the worker (a timed-out call counts its
# limit): the candidates come in order of worth (the spec's, the maintainers', callers',
# then type-directed combinations), and a function whose every call takes half a second, or
# whose calls run to the limit, cost minutes of a bootstrap on its last few hundred
# combinations (#36). Functions as fast as most never reach it and explore as before; as
# the mutants' budget, this one is time, so a slow function on a loaded machine may stop
# earlier.
CALLS_SECONDS = 20.0
CALL_BATCH = 25


def _run(recorder: Recorder, cands: list[Candidate]) -> tuple[dict[int, Candidate], list[str]]:
    """Run the candidates; the candidate that first produced each record, and a note when
    some of the plain candidates were not run (``CALLS_SECONDS``)."""
    by_n: dict[int, Candidate] = {}
    with_exprs = [c for c in cands if c.exprs is not None]
    plain = [c for c in cands if c.exprs is None]
    for c, rec in zip(with_exprs, recorder.call_exprs([c.exprs or {} for c in with_exprs])):
        by_n.setdefault(rec.n, c)
    at, size = 0, CALL_BATCH
    while at < len(plain):
        if sum(r.seconds for r in recorder.records) > CALLS_SECONDS:
            left = f"{len(plain) - at} of {len(cands)} planned calls not run"
            return by_n, [f"{left}: the others took over {CALLS_SECONDS:g} s"]
        batch = plain[at : at + size]
        for c, rec in zip(batch, recorder.call_many([(c.args, c.kwargs) for c in batch])):
            by_n.setdefault(rec.n, c)
        at, size = at + size, size * 2  # small first: a slow function shows it soon
    return by_n, []


_NON_FINITE_TEXT = frozenset(["inf", "-inf", "+inf", "nan", "infinity", "-infinity"])


def _non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    return isinstance(value, str) and value.strip().lower() in _NON_FINITE_TEXT


def _unhandled_non_finite(rec: CallRecord) -> bool:
    """An infinity or NaN the function does not handle (the interpreter's OverflowError from
    ``round(inf)``) shows nothing of the function: such a call is not a case."""
    from codemode.explore.selection import admit

    if rec.kind != "raised" or admit.raised_by_project(rec.exc):
        return False
    return any(_non_finite(v) for v in (*rec.args, *rec.kwargs.values()))


def _case_id(rec: CallRecord, cand: Candidate | None) -> str:
    label = cand.label if cand is not None else "case"
    if cand is not None and cand.source == KEPT:
        return label  # a generated case regen wrote before keeps its id
    if rec.kind == "raised":
        return f"{label}_raises"
    return label


# The source of the calls of the generated cases a spec holds already (``keep``).
KEPT = "kept"


def _family(c: Candidate) -> str:
    """The class of input a call shows: a maintainer's example is one class by its source, a
    planned value by its label, a kept case by the class of the planned call it repeats."""
    if c.source in ("tests", "docstring", "callers") or c.source == KEPT:
        return c.family or c.source
    return "+".join(f"{c.source}:{part}" for part in (c.family or c.label).split("+"))


def _kept_first(
    keep: Sequence[tuple[str, Sequence[Any], dict[str, Any]]], planned: Sequence[Candidate]
) -> tuple[list[Candidate], list[Candidate]]:
    """The kept cases' calls, each in the class of the planned call it repeats (so the classes
    it shows are not shown again), and the planned calls that are not one of them."""

    def key(args: Sequence[Any], kwargs: dict[str, Any]) -> str:
        return repr((tuple(args), sorted(kwargs.items())))

    by_call = {key(c.args, c.kwargs): c for c in reversed(planned)}  # the first wins
    kept = []
    for cid, args, kwargs in keep:
        twin = by_call.get(key(args, kwargs))
        fam = _family(twin) if twin is not None else KEPT
        kept.append(Candidate(tuple(args), dict(kwargs), cid, KEPT, family=fam))
    calls = {key(c.args, c.kwargs) for c in kept}
    return kept, [c for c in planned if key(c.args, c.kwargs) not in calls]


def explore(
    info: TargetInfo,
    recorder: Recorder,
    *,
    max_cases: int = MAX_CASES,
    root: Path | None = None,
    keep: Sequence[tuple[str, Sequence[Any], dict[str, Any]]] = (),
) -> OfflineResult:
    """Plan, run, mutate, choose: the cases (not yet gated) and what they are worth.

    ``keep``: the generated cases the spec holds, (id, args, kwargs). Their calls are chosen
    first, under their ids and with the outcomes of now, and the rest only adds what they miss:
    a refactor re-explored keeps its cases instead of swapping one for a look-alike (#35)."""
    from codemode.explore.selection.by_mutation import choose, run_mutants, shortlist
    from codemode.explore.selection.cases import build_cases, usable

    with AST_LOCK:
        planned = plan(info, recorder.fixture_names, root)
    if planned.needs_fixture and not planned.candidates and not keep:
        return OfflineResult(needs_fixture=planned.needs_fixture)
    kept, fresh = _kept_first(keep, planned.candidates)
    by_n, notes = _run(recorder, kept + fresh)
    recorder.clock_free(recorder.records)  # a clock read whose value never shows is no bar
    records = [r for r in recorder.records if r.n in by_n]
    ok = [r for r in records if usable(r, info) and not _unhandled_non_finite(r)]
    result = OfflineResult(needs_fixture=planned.needs_fixture, notes=notes)
    if not ok:
        return result
    ours = [r for r in ok if by_n[r.n].source == KEPT][:max_cases]
    examples = (
        ours
        + [r for r in ok if by_n[r.n].source in ("docstring", "tests")][
            : max(0, max_cases // 3 - len(ours))
        ]
    )
    # ties go to the plainest call, the maintainers' own inputs (tests, docstring) first
    # (a variant of an example is one step away from the maintainers' own: plain, not theirs)
    plainness = {
        n: c.label.count("_and_") - (c.source in ("tests", "docstring")) + (c.source == "variants")
        for n, c in by_n.items()
    }
    pool = shortlist(ok, examples, plainness)
    mutation = run_mutants(recorder, pool)
    if mutation.note:
        result.notes.append(mutation.note)
    # a maintainer's examples are one class each by source; planned values by their label
    family = {n: _family(c) for n, c in by_n.items()}
    picked = choose(pool, mutation, examples, max_cases, plainness, family)
    picked.sort(key=lambda r: r.n)
    chosen = [(r, _case_id(r, by_n.get(r.n))) for r in picked]
    result.cases = build_cases(chosen, info, set())
    # a kept case's inputs came from the spec (where an earlier regen found them)
    used = {"spec" if by_n[r.n].source == KEPT else by_n[r.n].source for r in picked if r.n in by_n}
    result.sources = tuple(s for s in INPUT_SOURCES if s in used)
    result.mutants = mutation.mutants
    result.killed = len(mutation.killed_by(picked))
    survivors = mutation.survivors(picked)
    if survivors:
        result.notes.append("surviving mutants: " + "; ".join(survivors[:5]))
    return result


def select(
    records: Sequence[CallRecord], info: TargetInfo, max_cases: int = MAX_CASES
) -> list[tuple[CallRecord, str]]:
    """Without mutants (the model's fallback): new lines, then new outcomes."""
    from codemode.explore.selection.by_mutation import Mutation, choose
    from codemode.explore.selection.cases import auto_id, usable

    ok = [r for r in records if usable(r, info)]
    picked = choose(ok, Mutation(), (), max_cases)
    return [(r, auto_id(r, info)) for r in sorted(picked, key=lambda r: r.n)]
