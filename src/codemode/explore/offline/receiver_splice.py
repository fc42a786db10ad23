"""The change's operands spliced into the arguments a method's instance is built from (#32).

explore/offline/splice.py splices the values a change compares against into a call's own
arguments; a method also reads the text its instance was built from, and often passes it
through the same changed code as its argument: packaging's ``Specifier(spec).filter(versions)``
splits both the specifier and each version with ``_version_split``, which learnt to split an
epoch off at ``"!"``. Only a specifier and a version that both hold an epoch show it
(``Specifier('==1!0.0.*').filter(['1!0'])``), and no test wrote such a pair for ``filter``.

So each operand is spliced into each text argument of the instances the pool builds
(``receiver`` recipes: a class or a factory of the package, with literal arguments), one
argument at a time, and the call runs twice on that instance: with the method's arguments as
the maintainers wrote them, and with the operand put in the same place of each of its text
arguments too (a list of text: in each item). "The same place" is one of a fixed list of
places (the last token of the operand's class, the first, the middle one, the one a quarter
in, appended, prepended, the whole value), so a specifier and a version get the epoch at the
same token. Operands come from the method's own module first (the class's code is what reads
its instance's text); where that module holds none, from the other changed modules
(splice.function_operands). Each operand gets its turn before any gets a second, at most
``MAX_RECEIVER_SPLICES`` calls, none that repeats a call of the pool. They are variants of the
maintainers' calls (``source`` "variants"), run after the instances the tests build and the
arguments' splices: under a load that cuts the diff's seconds, 150 calls ranked with the
arguments' splices pushed the mixes that caught mistune's and packaging's changes past the cut.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemode.explore.offline.splice import (
    PLACES,
    function_operands,
    in_turn,
    new_calls,
    placed,
    side_operands,
    spliced_calls,
)

if TYPE_CHECKING:
    from codemode.explore.offline.change_operands import Operand
    from codemode.explore.offline.input_pool import PoolCall
    from codemode.explore.target import TargetInfo

# calls per method: splice.py's bound for the arguments' splices, the diff's seconds are
# budgeted per function (#32) and a method's pool is already the larger one
MAX_RECEIVER_SPLICES = 150
# instances spliced per method, of the ~24 kinds a method's pool builds (receiver_mixes.py's
# MAX_RECIPES): the first third, so that each gets its first places within the bound above
MAX_RECEIVERS = 8
MAX_ARG_SEEDS = 3  # the method's argument sets each spliced instance is called with
MAX_OPERANDS = 8  # an instance's text is read by its class's module: its few operands
_MAINTAINERS = ("spec", "tests", "receivers", "docstring")  # splice.py's seeds: taken first


def splices(info: TargetInfo, root: Path, calls: Sequence[PoolCall]) -> list[PoolCall]:
    """The change's operands spliced into ``calls``' arguments (explore/offline/splice.py),
    then into their instances' constructor arguments."""
    spliced = spliced_calls(info, root, calls)
    return spliced + receiver_splices(info, root, [*calls, *spliced])


def receiver_splices(info: TargetInfo, root: Path, calls: Sequence[PoolCall]) -> list[PoolCall]:
    """The change's operands spliced into the constructor arguments of the instances
    ``calls`` (a method's pool so far, ``root``'s side) build, at most
    ``MAX_RECEIVER_SPLICES``."""
    if not info.is_method:
        return []
    literal = [c for c in calls if c.exprs is None and _spliceable(c.receiver)]
    if not literal:
        return []
    operands = [o for o in _operands(info, root) if o.kind == "text"][:MAX_OPERANDS]
    if not operands:
        return []
    # in the pool's order: the maintainers' instances, then the mixes' (receiver_mixes.py:
    # the rows the change wrote first, the others spread over their shapes)
    found = {repr(c.receiver): c.receiver for c in literal}
    recipes = list(found.values())[:MAX_RECEIVERS]
    seeds = _arg_seeds(literal)
    per_operand = [_operand_calls(op, recipes, seeds) for op in operands]
    return new_calls(in_turn(per_operand), calls, MAX_RECEIVER_SPLICES)


def _operands(info: TargetInfo, root: Path) -> list[Operand]:
    """The operands of the method's own module (both sides), else every changed module's."""
    from codemode.explore.offline import fresh

    other = fresh.other_root(root)
    if other is None:
        return []
    own = side_operands(info.path, root, other)
    return own or function_operands(info, root)


def _spliceable(recipe: dict[str, Any] | None) -> bool:
    """A recipe with literal arguments, one of them text or a list of text."""
    if not recipe or "cls" not in recipe:
        return False
    values = [*(recipe.get("args") or ()), *(recipe.get("kwargs") or {}).values()]
    return any(_texts(v) for v in values)


def _texts(value: Any) -> bool:
    if isinstance(value, (str, bytes)):
        return True
    return isinstance(value, (list, tuple)) and any(isinstance(v, (str, bytes)) for v in value)


def _arg_seeds(calls: Sequence[PoolCall]) -> list[PoolCall]:
    """The method's distinct argument sets, the maintainers' first, spread over their
    shapes."""
    from codemode.explore.offline.spread import spread, value_shape

    by_args: dict[str, PoolCall] = {}
    for c in calls:
        by_args.setdefault(repr((c.args, sorted(c.kwargs.items()))), c)

    def shape(c: PoolCall) -> Any:
        return (tuple(sorted(c.kwargs)), tuple(value_shape(a) for a in c.args[:3]))

    def maintainers(c: PoolCall) -> bool:
        return c.source in _MAINTAINERS

    return spread(list(by_args.values()), MAX_ARG_SEEDS, shape, maintainers)


def _operand_calls(
    op: Operand, recipes: Sequence[dict[str, Any]], seeds: Sequence[PoolCall]
) -> Iterator[PoolCall]:
    """``op`` in each recipe's arguments, one at a time, at each place in turn over the
    recipes (every recipe's first place before any recipe's second); each spliced instance
    called with each seed's arguments with ``op`` in the same place of them, then as
    written."""
    per_place = [_placed_calls(op, r, place, seeds) for place in range(PLACES) for r in recipes]
    return in_turn(per_place)


def _placed_calls(
    op: Operand, recipe: dict[str, Any], place: int, seeds: Sequence[PoolCall]
) -> Iterator[PoolCall]:
    args, kwargs = list(recipe.get("args") or ()), dict(recipe.get("kwargs") or {})
    slots: list[int | str] = [i for i, a in enumerate(args) if _texts(a)]
    slots += [k for k, v in kwargs.items() if _texts(v)]
    label = f"_receiver_splice_{op.family}"
    for slot in slots:
        current = args[slot] if isinstance(slot, int) else kwargs[slot]
        value = _at(current, op.value, place)
        if value is None or value == current:
            continue
        made = {**recipe, "args": list(args), "kwargs": dict(kwargs)}
        if isinstance(slot, int):
            made["args"][slot] = value
        else:
            made["kwargs"][slot] = value
        # the instance and the arguments read by the same changed code: both spliced first
        both = [_args_at(seed, op.value, place) for seed in seeds]
        for call in [*both, *seeds]:
            if call is not None:
                yield call._replace(receiver=made, source="variants", label=call.label + label)


def _args_at(seed: PoolCall, t: Any, place: int) -> PoolCall | None:
    """``seed`` with ``t`` at ``place`` of each of its text arguments (and list items), or
    None when it holds none."""
    args = [_at(a, t, place) for a in seed.args]
    kwargs = {k: _at(v, t, place) for k, v in seed.kwargs.items()}
    if all(v is None for v in [*args, *kwargs.values()]):
        return None
    return seed._replace(
        args=tuple(a if n is None else n for a, n in zip(seed.args, args)),
        kwargs={k: v if kwargs[k] is None else kwargs[k] for k, v in seed.kwargs.items()},
    )


def _at(value: Any, t: Any, place: int) -> Any:
    """``value`` with ``t`` at ``place`` (text, or each text item of a list or tuple), or
    None when it holds no text."""
    if isinstance(value, (str, bytes)):
        return placed(value, t, place)
    if isinstance(value, (list, tuple)) and any(isinstance(v, (str, bytes)) for v in value):
        items = [placed(v, t, place) if isinstance(v, (str, bytes)) else v for v in value]
        return type(value)(items)
    return None
