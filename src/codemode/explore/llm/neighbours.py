"""After the model's choice: the calls next to the model's own that kill a mutant its cases
leave alive.

A model writes the typical call and the obvious error; it rarely writes the call that sits
exactly on an edge (a withdrawal of the whole balance, zero days, an amount with more digits
than the rounding keeps). Those are one small step from a call it did make. So each call the
model recorded is varied one argument at a time, as the offline explorer varies a
maintainer's example (``offline/variants.py``): a number or Decimal by one, negated, zero
or with more digits, a date by a day, text and collections as there; the fields of an
object the snippet built from a recipe and the constructor arguments of a method's
receiver are arguments too (``Wallet('ada', 5)`` next to ``withdraw(6)`` becomes
``Wallet('ada', 6)``). The variants run in the worker like any call; the function's
mutants run on them and on the model's cases; a variant is added only when it kills a mutant
that no chosen case kills, greedily, at most ``limit`` of them. The model's choice stays as it
was: codemode only adds, and every added case passes the same gate (#22).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from codemode.explore.llm.project_types import Recipe
from codemode.explore.offline.variants import varied
from codemode.explore.record import CallRecord, Recorder, TooManyCalls
from codemode.explore.selection.by_mutation import run_mutants, shortlist
from codemode.explore.selection.cases import usable
from codemode.explore.target import TargetInfo

MAX_SEEDS = 12  # recorded calls varied (the model's chosen ones first)
MAX_VARIANTS = 120  # calls run per function for this; the worker answers them in one batch


@dataclass
class Added:
    records: list[tuple[CallRecord, str]] = field(default_factory=list)  # with their labels
    mutants: int = 0  # mutants that ran
    killed: int = 0  # killed by the model's cases and the added ones together
    note: str = ""


def _with_recipe_value(recipe: Recipe, where: int | str, value: Any) -> Recipe:
    copy = recipe.snapshot()
    if isinstance(where, int):
        copy._args[where] = value
    else:
        copy._kwargs = {**copy._kwargs, where: value}
    return copy


def _in_recipe(recipe: Recipe) -> Iterator[tuple[Recipe, str]]:
    """The recipe with one of its constructor arguments varied (one level: fields, not the
    fields of fields)."""
    names = recipe._params
    for i, value in enumerate(recipe._args):
        name = names[i] if i < len(names) else f"arg{i + 1}"
        for v, kind in varied(value):
            yield _with_recipe_value(recipe, i, v), f"{name}_{kind}"
    for name, value in recipe._kwargs.items():
        for v, kind in varied(value):
            yield _with_recipe_value(recipe, name, v), f"{name}_{kind}"


def _values(value: Any) -> Iterator[tuple[Any, str]]:
    if isinstance(value, Recipe):
        yield from _in_recipe(value)
    else:
        yield from varied(value)


Call = tuple[tuple[Any, ...], dict[str, Any], Any, str]  # args, kwargs, receiver, label


def _calls(rec: CallRecord, names: Sequence[str]) -> Iterator[Call]:
    """``rec`` with one argument varied; then with one of its receiver's arguments varied.
    The label names what was varied (``days_minus_one``, ``self_balance_plus_one``)."""
    args, kwargs = rec.args, rec.kwargs
    for i, value in enumerate(args):
        name = names[i] if i < len(names) else f"arg{i + 1}"
        for v, kind in _values(value):
            yield (*args[:i], v, *args[i + 1 :]), kwargs, rec.receiver, f"{name}_{kind}"
    for name, value in kwargs.items():
        for v, kind in _values(value):
            yield args, {**kwargs, name: v}, rec.receiver, f"{name}_{kind}"
    if isinstance(rec.receiver, Recipe):
        for recv, kind in _in_recipe(rec.receiver):
            yield args, kwargs, recv, f"self_{kind}"


def _run(recorder: Recorder, seeds: Sequence[CallRecord], names: Sequence[str]) -> dict[int, str]:
    """The variants of ``seeds`` run in the worker (one batch per receiver): record -> label."""
    by_receiver: dict[str, tuple[Any, list[tuple[tuple[Any, ...], dict[str, Any]]], list[str]]]
    by_receiver = {}
    count = 0
    for rec in seeds:
        for args, kwargs, recv, label in _calls(rec, names):
            if count >= MAX_VARIANTS:
                break
            count += 1
            _recv, calls, labels = by_receiver.setdefault(repr(recv), (recv, [], []))
            calls.append((args, kwargs))
            labels.append(label)
    out: dict[int, str] = {}
    for recv, calls, labels in by_receiver.values():
        try:
            for r, label in zip(recorder.call_many(calls, recv), labels):
                out.setdefault(r.n, label)
        except TooManyCalls:
            break
    return out


def next_to_model(
    recorder: Recorder,
    info: TargetInfo,
    chosen: Sequence[CallRecord],
    limit: int,
) -> Added:
    """The records to add to the model's ``chosen`` ones, each killing a mutant they leave."""
    if not chosen or limit <= 0:
        return Added()
    recorded = [r for r in recorder.records if usable(r, info)]
    first = {r.n for r in chosen}
    seeds = list(chosen) + [r for r in recorded if r.n not in first]
    names = [p.name for p in info.params]
    labels = _run(recorder, seeds[:MAX_SEEDS], names)
    by_n = {r.n: r for r in recorder.records}
    recorder.clock_free([by_n[n] for n in labels])
    by_n = {r.n: r for r in recorder.records}  # clock_free replaced some records
    pool = [by_n[n] for n in dict.fromkeys([*(r.n for r in recorded), *labels])]
    pool = [r for r in pool if usable(r, info)]
    mutation = run_mutants(recorder, shortlist(pool, list(chosen)))
    if not mutation.mutants:
        return Added(note=mutation.note)
    killed = set(mutation.killed_by(chosen))
    taken = {r.n for r in chosen}
    added: list[tuple[CallRecord, str]] = []
    while len(added) < limit:
        gains = [
            (len(mutation.kills.get(r.n, frozenset()) - killed), -r.n, r)
            for r in pool
            if r.n not in taken
        ]
        best = max(gains, default=None, key=lambda g: g[:2])
        if best is None or best[0] == 0:
            break
        added.append((best[2], labels.get(best[2].n, "")))
        taken.add(best[2].n)
        killed |= mutation.kills.get(best[2].n, frozenset())
    return Added(added, mutation.mutants, len(killed), mutation.note)
