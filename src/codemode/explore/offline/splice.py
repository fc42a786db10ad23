"""The maintainers' examples with the values the change compares against spliced in (#32).

A test's call sits in well-trodden places; the change lives in the lines the commit wrote,
and the inputs that reach and flip those lines are written there
(explore/offline/change_operands.py: Redqueen's input-to-state correspondence, Aschermann et
al., NDSS 2019, and AFL's auto-dictionary / libFuzzer's ``-dict`` of comparison operands,
read statically from the diff). Each operand is spliced into the maintainers' calls (the
spec's, the tests', the docstrings'), one argument at a time:

- text gets the operand in place of one of its tokens of the same character class (a word
  for a word, punctuation for punctuation), appended, prepended, as the whole value, and
  (what is not a word) inside, joined to the text around it;
- a list of text gets it appended; a mapping gets it as a key (``True``, and the value the
  changed line compares that key's value to, when it does); the text items of a list or a
  tuple and the text values of a mapping get it as text does, one item at a time (the last,
  the first, the middle one: a pair that is unpacked takes no third item);
- the values a call passes through the function's ``*args`` and ``**kwargs`` get it as a
  named parameter's value does (a template expander's ``expand(template, **values)``);
- a parameter whose name a changed condition tests gets the value it is compared to (a bare
  truth test: the other truth value of its default);
- a whole number compared in a changed condition gives its neighbours (n-1, n, n+1) to a
  whole-number argument, and where the condition measures ``len(...)``, text and lists cut
  or padded to those lengths.

The operands come from the function's own changed lines first, then its module's, then the
changed modules it imports; a function the change reaches through another module (its own
lines untouched) takes every changed module's, those it imports first. Each operand gets
its turn before any gets a second (a round over the operands, each taking its next splice),
and at most ``MAX_SPLICES`` calls are kept, none that repeats a call of the pool. Built once
per function, on the new side, from the operands of both sides' lines. Within a call, the
arguments take turns too (named ones first, then those passed through): a call that passes
more text gives each of its arguments fewer of an operand's splices within the bound, and
the splices are made lazily, so only the calls kept are built.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from codemode.explore.offline.change_operands import TRUTH, Operand, module_operands

if TYPE_CHECKING:
    from codemode.explore.offline.input_pool import PoolCall
    from codemode.explore.target import Param, TargetInfo

T = TypeVar("T")
MAX_SPLICES = 150  # calls per function: the diff's seconds are budgeted (#32)
MAX_OPERANDS = 32
MAX_MODULES = 6  # changed modules besides the function's own
MAX_SEEDS = 8
MAX_LENGTH = 4096  # text padded to a compared length, at most
_SEED_SOURCES = ("spec", "tests", "docstring", "receivers")  # the maintainers' own calls
_WORD = re.compile(r"\w+")
_PUNCT = re.compile(r"[^\w\s]+")
_NONSPACE = re.compile(r"\S+")


def spliced_calls(info: TargetInfo, root: Path, calls: Sequence[PoolCall]) -> list[PoolCall]:
    """The splices of the change's operands into ``calls`` (the pool so far, ``root``'s side),
    at most ``MAX_SPLICES``."""
    operands = function_operands(info, root)
    if not operands:
        return []
    seeds = _seeds(calls)
    if not seeds:
        return []
    params = info.params
    positional = [p.name for p in info.params if p.kind in ("positional", "positional_only")]
    per_operand = [_splices(op, seeds, params, positional) for op in operands]
    return new_calls(in_turn(per_operand), calls, MAX_SPLICES)


def new_calls(made: Iterable[PoolCall], calls: Sequence[PoolCall], limit: int) -> list[PoolCall]:
    """The first ``limit`` of ``made`` that repeat no call of ``calls`` nor each other."""
    seen = {c.key() for c in calls}
    out: list[PoolCall] = []
    for call in made:
        if call.key() not in seen:
            seen.add(call.key())
            out.append(call)
            if len(out) >= limit:
                break
    return out


def function_operands(info: TargetInfo, root: Path) -> list[Operand]:
    """The change's operands for ``info``: its own lines' first, then its module's, then the
    other changed modules' (explore/offline/change_operands.py), on both sides."""
    from codemode.explore.offline import fresh
    from codemode.explore.offline.changed_literals import imported_names
    from codemode.explore.offline.harvest import is_test_file, python_files

    other = fresh.other_root(root)
    if other is None:
        return []
    mine = side_operands(info.path, root, other)
    # the function's own lines on either side: by the qualified name it is written under
    own = [o for o in mine if o.scope == info.qualname or o.scope.startswith(f"{info.qualname}.")]
    ranked = [*own, *mine]
    there = {rel for rel, _ in python_files(other)}
    changed = [
        rel
        for rel, path in python_files(root)
        if rel in there
        and not is_test_file(rel)
        and path.resolve() != info.path.resolve()
        and (fresh.lines(path) or fresh.lines(other / rel))
    ]
    names = imported_names(info.path)
    imported = [rel for rel in changed if Path(rel).stem in names]
    # a function whose own lines changed looks no further than what its module imports
    rest = [] if own else [rel for rel in changed if rel not in imported]
    for rel in [*imported, *rest][:MAX_MODULES]:
        ranked += side_operands(root / rel, root, other)
    found: dict[tuple[str, str, str], Operand] = {}
    for o in ranked:
        found.setdefault((o.kind, repr(o.value), o.name), o)
    return list(found.values())[:MAX_OPERANDS]


def side_operands(path: Path, root: Path, other: Path) -> list[Operand]:
    """The operands of ``path`` and of its other side's file, interleaved."""
    from codemode.explore.offline import fresh

    try:
        there = other / path.resolve().relative_to(root.resolve())
    except ValueError:
        return []
    sides = [module_operands(p, fresh.lines(p)) for p in (path, there) if p.is_file()]
    return [o for pair in itertools.zip_longest(*sides) for o in pair if o is not None]


def _seeds(calls: Sequence[PoolCall]) -> list[PoolCall]:
    """The maintainers' distinct calls, spread over their option sets and argument types."""
    from codemode.explore.offline.spread import spread, value_shape

    seeds = {c.key(): c for c in calls if c.source in _SEED_SOURCES}

    def shape(c: PoolCall) -> Any:
        return (tuple(sorted(c.kwargs)), tuple(value_shape(a) for a in c.args[:3]))

    return spread(list(seeds.values()), MAX_SEEDS, shape)


def in_turn(lists: Sequence[Iterator[T]]) -> Iterator[T]:
    """One of each in turn, until all are spent."""
    live = list(lists)
    while live:
        kept = []
        for it in live:
            for item in itertools.islice(it, 1):
                kept.append(it)
                yield item
        live = kept


def _splices(
    op: Operand, seeds: Sequence[PoolCall], params: Sequence[Param], positional: list[str]
) -> Iterator[PoolCall]:
    """``op`` spliced into each seed: each seed's first splice, then each one's second..."""
    per_seed = [_seed_splices(op, seed, params, positional) for seed in seeds]
    return in_turn(per_seed)


def _seed_splices(
    op: Operand, seed: PoolCall, params: Sequence[Param], positional: list[str]
) -> Iterator[PoolCall]:
    from codemode.explore.offline.option_mixes import with_options

    bound = _bound(seed, positional)
    named = [p for p in params if p.kind not in _VARIADIC]
    per_param = [
        _named(p.name, _values(op, p, bound.get(p.name, _ABSENT))) for p in _targets(op, named)
    ]
    if _as_keyword(op, params):
        # a key the function looks up in its ``**options``: passed as a keyword of its own
        per_param.insert(
            0, _named(op.value, iter([True, op.paired][: 1 + (op.paired is not None)]))
        )
    slots = _slots(seed, params, positional)
    if not any(op.name == p.name for p in named):
        var_keyword = any(p.kind == "var_keyword" for p in params)
        through = _passed_through(op, seed, slots, {p.name for p in named}, var_keyword)
        per_param += [_named(s, _given(op, v)) for s, v in through]
    for name, value in in_turn(per_param):
        call = with_options(seed, {name: value}, slots)
        if call is not None:
            yield call._replace(source="splices", label=f"{seed.label}_splice_{op.family}")


_VARIADIC = ("var_positional", "var_keyword")


def _slots(seed: PoolCall, params: Sequence[Param], positional: list[str]) -> list[str]:
    """The seed's positions by name: the positional parameters', then, for a function of
    ``*args``, a name of each further position (``*2``)."""
    if not any(p.kind == "var_positional" for p in params):
        return positional
    count = len(seed.exprs.get("args") or []) if seed.exprs is not None else len(seed.args)
    return [*positional, *(f"*{n}" for n in range(len(positional), count))]


def _passed_through(
    op: Operand, seed: PoolCall, slots: list[str], named: set[str], through_keywords: bool
) -> list[tuple[str, Any]]:
    """The seed's values that reach the function through its ``*args`` and ``**kwargs``, by
    their slot (a keyword, or ``*n``); only the one a condition names, when it names one."""
    from codemode.explore.offline.option_mixes import NO_VALUE, literal_arguments

    if op.kind == "name":
        return []  # a name test sets a parameter of that name: none of these
    args, kwargs = literal_arguments(seed)
    found = [(s, v) for s, v in zip(slots, args) if s.startswith("*") and v is not NO_VALUE]
    if through_keywords:
        found += [(k, v) for k, v in kwargs.items() if k not in named]
    picked = [(s, v) for s, v in found if op.name and s == op.name]
    return picked or found


_ABSENT = object()


def _as_keyword(op: Operand, params: Sequence[Param]) -> bool:
    """``op`` is a key a function of ``**kwargs`` may look up there: a name no other
    parameter has."""
    return (
        op.family == "key"
        and isinstance(op.value, str)
        and op.value.isidentifier()
        and any(p.kind == "var_keyword" for p in params)
        and all(p.name != op.value for p in params)
    )


def _named(name: str, values: Iterator[Any]) -> Iterator[tuple[str, Any]]:
    return ((name, v) for v in values)


def _bound(seed: PoolCall, positional: list[str]) -> dict[str, Any]:
    """The seed's literal arguments by parameter name (one written as other source text is
    left out)."""
    from codemode.explore.offline.option_mixes import NO_VALUE, literal_arguments

    args, kwargs = literal_arguments(seed)
    out = {n: v for n, v in zip(positional, args) if v is not NO_VALUE}
    out.update(kwargs)
    return out


def _targets(op: Operand, params: Sequence[Param]) -> list[Param]:
    """The parameters an operand is tried on: the one a condition names, when it names
    one; every one otherwise (a name test: only the parameter of that name)."""
    named = [p for p in params if op.name and p.name == op.name]
    if op.kind == "name" or named:
        return named
    return list(params)


def _values(op: Operand, p: Param, value: Any) -> Iterator[Any]:
    """What ``p`` (passed ``value`` by the seed, or ``_ABSENT``) is set to for ``op``."""
    if op.kind == "name":
        yield from _tested(op, p)
    elif value is not _ABSENT:
        yield from _given(op, value)


def _given(op: Operand, value: Any) -> Iterator[Any]:
    """``value`` (a seed's argument) with ``op`` spliced in."""
    if op.kind == "text":
        yield from _text_splices(op, value)
    elif op.family == "length":
        yield from _lengths(op.value, value)
    elif type(value) is int:
        yield from (op.value + d for d in (-1, 0, 1))


def _tested(op: Operand, p: Param) -> Iterator[Any]:
    """The value a condition compares parameter ``p`` to; for a truth test, the other truth
    value of its default."""
    if op.value != TRUTH:
        yield op.value
    elif isinstance(p.default, bool):
        yield not p.default
    elif not p.has_default or p.default is None:
        yield True


def _text_splices(op: Operand, value: Any) -> Iterator[Any]:
    t = op.value
    if isinstance(value, (str, bytes)):
        yield from _in_text(value, t)
    elif isinstance(value, (list, tuple)):
        if all(isinstance(v, type(t)) for v in value):
            yield type(value)([*value, t])
        # in its text items: a pair unpacked (``href, text = link``) takes no third item
        for at, made in _in_items(range(len(value)), value, t):
            yield type(value)([*value[:at], made, *value[at + 1 :]])
    elif isinstance(value, dict):
        if all(isinstance(k, type(t)) for k in value):
            yield {**value, t: True}
            if op.paired is not None:
                yield {**value, t: op.paired}
        yield from ({**value, k: made} for k, made in _in_items(list(value), value, t))


def _in_items(keys: Sequence[Any], items: Any, t: Any) -> Iterator[tuple[Any, Any]]:
    """``t`` in one of the text values of ``items`` (a list by index, or a mapping), at
    each of ``_in_text``'s places in turn: the last item's, the first's, the middle one's
    (those that are text); (key, new value) pairs. Only those three are looked at, so a
    long list of numbers costs nothing."""
    if not keys:
        return
    chosen = dict.fromkeys(keys[i] for i in (-1, 0, len(keys) // 2))
    texts = [k for k in chosen if isinstance(items[k], (str, bytes))]
    made = ((k, placed(items[k], t, place)) for place in _TEXT_ORDER for k in texts)
    yield from dict.fromkeys((k, m) for k, m in made if m != items[k])


# The places ``_in_text`` puts an operand, in turn (``placed``'s numbers): the ends and the
# middle first (a sentence's first word is often its verb or keyword, its later ones the
# operands a changed comparison looks at), appended and prepended between them; joined
# inside the text last (an escape or a reference inside a value: 'a b' -> 'a%00b')
_TEXT_ORDER = (0, 1, 4, 2, 5, 6, 3, 7)
PLACES = 8  # last, first, middle, quarter, appended, prepended, whole, inside (``placed``)
_SPACE = re.compile(r"\s+")


def _in_text(s: Any, t: Any) -> Iterator[Any]:
    """``t`` in ``s``: in place of its last token of ``t``'s class and of its first, appended,
    in place of a token between, prepended, as the whole value, in place of other tokens,
    inside."""
    made = (placed(s, t, p) for p in _TEXT_ORDER)
    yield from dict.fromkeys(m for m in made if m != s)


def placed(s: Any, t: Any, place: int) -> Any:
    """``t`` in ``s`` at one of ``PLACES`` places: in place of the last token of ``t``'s
    class, the first, the middle one, the one a quarter in (the same token as the last when
    there are few); appended; prepended; as the whole value; inside, joined to the text
    around it (``_inside``). ``s``'s type kept."""
    if isinstance(s, str) != isinstance(t, str):
        t = t.decode("utf-8", "replace") if isinstance(t, bytes) else t.encode("utf-8")
    text = s if isinstance(s, str) else s.decode("latin-1")
    op = t if isinstance(t, str) else t.decode("latin-1")
    tokens = list(token_class(op).finditer(text))
    n = len(tokens)
    gap = " " if " " in text and op[:1].isalnum() else ""
    if place < 4:
        if not n:
            return s
        m = tokens[[n - 1, 0, n // 2, n // 4][place]]
        made = text[: m.start()] + op + text[m.end() :]
    elif place < 7:
        made = [text + gap + op, op + gap + text, op][place - 4]
    else:
        made = _inside(text, op)
    return made if isinstance(s, str) else made.encode("latin-1", "replace")


def _inside(text: str, op: str) -> str:
    """``op`` joined to the text on both sides of it: in place of the space nearest the
    middle, or, in text without one, at its middle character. A word is not (it would only
    make another word): ``text`` as it is."""
    if token_class(op) is _WORD or len(text) < 2:
        return text
    spaces = list(_SPACE.finditer(text))
    if not spaces:
        return text[: len(text) // 2] + op + text[len(text) // 2 :]
    m = min(spaces, key=lambda m: abs(m.start() - len(text) // 2))
    return text[: m.start()] + op + text[m.end() :]


def token_class(op: str) -> re.Pattern[str]:
    if _WORD.fullmatch(op):
        return _WORD
    if _PUNCT.fullmatch(op):
        return _PUNCT
    return _NONSPACE


def _lengths(n: int, value: Any) -> Iterable[Any]:
    """``value`` (text or a list) cut or padded, repeating itself, to n-1, n and n+1 items."""
    if not isinstance(value, (str, bytes, list, tuple)) or not value:
        return []
    out = []
    for k in (n - 1, n, n + 1):
        if 0 <= k <= MAX_LENGTH:
            reps = -(-k // len(value))
            out.append((value * max(reps, 1))[:k])
    return out
