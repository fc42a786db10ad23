"""``pool_for``: the inputs the behaviour diff runs on both versions of one function (#18).

One pool per function, built from both sides of the change, each call named by where it
came from: the spec's own inputs first, then the project's tests at the new side (the
change's own tests say where it changed behaviour) and at the old side, docstring examples,
callers, those examples varied at their edge, the code's constants and patterns, and
type-directed values (``explore/offline/explorer.py``'s plan, run once per side). The sources are
read statically, as the offline explorer reads them; nothing here runs project code.

This is the one entry point the diff engine (``codemode.behaviour``) calls: a new source of
inputs is added behind it, never beside it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from codemode.config import Config
from codemode.errors import FatalError
from codemode.explore.offline.input_sources import INPUT_SOURCES, InputSource
from codemode.explore.offline.returned_probes import returned_probes

if TYPE_CHECKING:
    from codemode.explore.offline.harvest import Candidate
    from codemode.explore.offline.test_names import Drops
    from codemode.explore.target import Param, TargetInfo

MAX_POOL = 1000


class PoolCall(NamedTuple):
    """One input for both versions: literal ``args``/``kwargs``, or ``exprs`` (argument
    expressions the worker evaluates with the module's globals and the test file's imports).
    ``receiver``: for a method, how to build its instance, ``{"cls": "pkg.mod.Class", "args":
    [...], "kwargs": {...}}`` (None: ``Class()``)."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    source: InputSource
    label: str = ""
    exprs: dict[str, Any] | None = None
    receiver: dict[str, Any] | None = None
    side: str = ""  # "old" or "new" when only one side's files hold it
    # what the diff does with a returned callable (worker/returned.py): call it with
    # ``{"args": [...]}``, or sort ``{"sort": [...]}`` with it as the key (#32)
    then: dict[str, Any] | None = None

    def key(self) -> str:
        # repr, not json: it tells 1 from 1.0 from True, and costs a fifth (a pool is ~800
        # candidates before it is deduplicated)
        return repr((self.args, sorted(self.kwargs.items()), self.exprs, self.receiver, self.then))


class Pool(list[PoolCall]):
    """The calls, and how many harvested calls were left out, by reason (``dropped``);
    ``probes``: what to do with a callable a call returns, read when one does
    (explore/offline/returned_probes.py)."""

    dropped: dict[str, int]
    probes: Callable[[], list[dict[str, Any]]] | None = None
    params: tuple[Param, ...] = ()  # the function's, new side (havoc.py reads annotations)


def pool_for(
    config: Config,
    function_id: str,
    *,
    old_root: Path | None,
    new_root: Path,
    old_id: str | None = None,
    spec_inputs: Iterable[tuple[Sequence[Any], dict[str, Any]]] = (),
    limit: int = MAX_POOL,
    old_files: bool = True,
) -> Pool:
    """The inputs for ``function_id`` (``old_id`` at the old side, when it was renamed),
    deduplicated, in ``INPUT_SOURCES`` order, new side before old within a source. ``old_root``: the
    old side's changed files (their tests and callers are read there). ``old_files``:
    False when the change touched no file but the functions' own modules (no test, no
    caller): the old side's files then hold the new side's calls, and are not read twice."""
    from codemode.explore.offline import fresh
    from codemode.explore.offline.test_names import Drops

    drops = Drops()
    found: list[PoolCall] = [PoolCall(tuple(a), dict(k), "spec", "spec") for a, k in spec_inputs]
    # the rows each side's tests hold and the other's lack are kept before any cut
    pairs = [(new_root, old_root), (old_root, new_root)] if old_root is not None else []
    with fresh.compared(*pairs):
        new_info = _info(config, function_id, new_root)
        old_id = old_id or function_id
        found += _both_sides(config, new_info, old_id, old_root, new_root, old_files, drops)
    rank = {s: i for i, s in enumerate(INPUT_SOURCES)}
    # Among the tests' calls, those only the new side's tests make come first: the tests the
    # change added say where it changed behaviour, and a budget that cuts the search (the
    # seconds of a slow function, #32) keeps them. Stable: new before old, then file order.
    old_tests = {c.key() for c in found if c.side == "old" and c.source in ("tests", "receivers")}
    found.sort(key=lambda c: (rank.get(c.source, len(rank)), _seen_before(c, old_tests)))
    out: dict[str, PoolCall] = {}
    for call in found:
        out.setdefault(call.key(), call)
        if len(out) >= limit:
            break
    pool = Pool(out.values())
    pool.dropped = dict(drops)
    pool.probes = partial(returned_probes, config, function_id, new_root)
    pool.params = new_info.params if new_info is not None else ()
    return pool


def _both_sides(
    config: Config,
    new_info: TargetInfo | None,
    old_id: str,
    old_root: Path | None,
    new_root: Path,
    old_files: bool,
    drops: Drops,
) -> list[PoolCall]:
    found: list[PoolCall] = []
    found += _side_calls(new_info, new_root, "new", drops, planned=True)
    if old_root is not None:
        # ``old_root`` holds the files the change touched (change/old_side.py); a module it
        # lacks is the same on both sides, the work tree's
        old_info = _info(config, old_id, old_root) or _info(config, old_id, config.root)
        # The type-directed plan of the old side differs from the new one's only through the
        # literals and parameters the change touched; the tests and examples always differ.
        planned = (
            new_info is None
            or old_info is None
            or ((old_info.literals, old_info.params) != (new_info.literals, new_info.params))
        )
        found += _side_calls(old_info, old_root, "old", drops, planned=planned, files=old_files)
    return found


def _seen_before(call: PoolCall, old_tests: set[str]) -> bool:
    """Whether a call is not one only the change's own tests make (a method's with its
    instance, too)."""
    fresh = call.source in ("tests", "receivers") and call.side == "new"
    return not fresh or call.key() in old_tests


def _info(config: Config, function_id: str, root: Path) -> TargetInfo | None:
    from codemode.explore.target import load_target

    try:
        return load_target(config, function_id, root)
    except FatalError:
        return None  # not at this side (added, removed) or does not parse


def _side_calls(
    info: TargetInfo | None,
    root: Path,
    side: str,
    drops: Drops,
    *,
    planned: bool,
    files: bool = True,
) -> list[PoolCall]:
    """One side's inputs: every source (``planned``), or only its examples (docstring, and
    with ``files`` the calls in its tests and callers)."""
    if info is None:
        return []
    from codemode.explore.offline.explorer import plan
    from codemode.explore.offline.harvest import docstring_calls, file_calls
    from codemode.explore.offline.wrappers import wrapper_calls
    from codemode.explore.target import AST_LOCK

    with AST_LOCK:
        if planned:
            candidates = plan(info, (), root if files else None, drops).candidates
        else:
            tests, callers = file_calls(info, root, drops) if files else ([], [])
            candidates = [*tests, *docstring_calls(info), *callers]
        # a function the tests reach through a public wrapper: the wrapper's arguments
        via = list(wrapper_calls(info, root, drops)) if files else []
    out = [
        PoolCall(tuple(c.args), dict(c.kwargs), c.source, c.label, c.exprs, side=side)
        for c in candidates
    ]
    out += [PoolCall(c.args, c.kwargs, c.source, c.label, None, r, side) for c, r in via]
    if info.is_method and files:
        from codemode.explore.offline.sibling_receivers import sibling_calls

        out += _receiver_calls(info, root, side)
        # a sibling class's method of the same name: its test rows, on this class (#32)
        out += [c._replace(side=side) for c in sibling_calls(info, root, _class_names(info))]
        out += _on_built(info, root, side, out)
    if files:
        out += _doctest_calls(info, root, side)
    # the options the maintainers' calls set, on their other inputs
    from codemode.explore.offline.option_mixes import mixed

    out += mixed(out, info.params, info.id)
    # a callable argument: one of each class of outcome (None, StopIteration, an exception)
    from codemode.explore.offline.callable_variants import callable_variants

    out += [c._replace(side=side) for c in callable_variants(out)]
    # the literals the change wrote into the code (a table's edited entries)
    from codemode.explore.offline.changed_literals import changed_literal_calls

    out += [c._replace(side=side) for c in changed_literal_calls(info, root, out)]
    if side == "new":
        # the values the change compares against, spliced into the maintainers' calls and
        # their instances' constructor arguments: once per function, from both sides' lines
        from codemode.explore.offline.receiver_splice import splices

        out += [c._replace(side=side) for c in splices(info, root, out)]
    return out


def _doctest_calls(info: TargetInfo, root: Path, side: str) -> list[PoolCall]:
    """The calls of the doctest sessions of the project's docstrings and text files, each
    read as a test (explore/offline/doctest_sessions.py): a method's with the instance its
    session built; a spread of ``MAX_FROM_FILES`` over their shapes."""
    from codemode.explore.offline.doctest_sessions import session_files, session_module
    from codemode.explore.offline.harvest import MAX_FROM_FILES, Candidate, calls_in_file
    from codemode.explore.offline.harvest import candidate_shape as shape
    from codemode.explore.offline.method_calls import method_calls
    from codemode.explore.offline.spread import spread

    found: list[PoolCall] = []
    label = "doc_example"
    for path in session_files(root, info.name):
        tree = session_module(path)
        if tree is None:
            continue
        if info.is_method:
            for call in method_calls(tree, _class_names(info), info.name, frozenset()):
                found.append(call._replace(source="docstring", label=label, side=side))
            continue
        same = path.resolve() == info.path.resolve()
        for c in calls_in_file(info, tree, same, "tests"):
            found.append(PoolCall(c.args, c.kwargs, "docstring", label, c.exprs, side=side))

    def call_shape(c: PoolCall) -> Any:
        return (shape(Candidate(c.args, c.kwargs, "", "", c.exprs)), repr(c.receiver)[:40])

    return spread(found, MAX_FROM_FILES, call_shape)


def _class_names(info: TargetInfo) -> dict[str, str]:
    """A method's class and the subclasses beside it whose instances run it: name -> id
    (``pkg.mod.Class``); empty for a function."""
    from codemode.explore.offline.receivers import class_names

    if "." not in info.qualname:
        return {}
    return class_names(f"{info.module}.{info.qualname.rsplit('.', 1)[0]}", info.module, info.path)


def _on_built(info: TargetInfo, root: Path, side: str, calls: list[PoolCall]) -> list[PoolCall]:
    """A method's inputs on each instance the tests and doctest sessions build of its class
    with literal arguments (explore/offline/receiver_mixes.py); none for a static or class
    method, which takes no instance."""
    from codemode.explore.offline.doctest_sessions import session_files, session_module
    from codemode.explore.offline.harvest import (
        is_test_file,
        kept_once,
        parsed,
        python_files,
        read_source,
    )
    from codemode.explore.offline.receiver_mixes import constructions, receiver_mixes

    if "@staticmethod" in info.source or "@classmethod" in info.source:
        return []
    cls_name, cls_id = _class_of(info)
    paths = [p for rel, p in python_files(root) if is_test_file(rel)]
    paths += list(session_files(root, cls_name))
    from codemode.explore.offline import fresh

    recipes: list[dict[str, Any]] = []
    first: set[str] = set()  # the recipes a row the change wrote built
    for path in paths:
        if cls_name not in (read_source(path) or ""):
            continue
        tree = (
            session_module(path)
            if path.suffix != ".py" or not is_test_file(path.relative_to(root).as_posix())
            else parsed(path)[1]
        )
        if tree is not None:
            # once per file and class in a run: every method of the class asks
            key = f"{path}\0{cls_id}"
            lines = fresh.lines(path)
            made = kept_once(
                "built", key, lambda t=tree, n=lines: list(constructions(t, cls_name, cls_id, n))
            )
            recipes += [r for r, _ in made]
            first.update(repr(r) for r, new in made if new)
    # the package's factories of the class: ``create_x()``, ``Cls.from_text('...')`` (#32)
    from codemode.explore.offline.factories import factory_recipes

    recipes += factory_recipes(root, info, _class_names(info))
    mixes = receiver_mixes(calls, recipes, info.id, first)
    return [c._replace(side=side) for c in mixes]


def _class_of(info: TargetInfo) -> tuple[str, str]:
    """A method's class: its name, and its id (``pkg.mod.Class``)."""
    cls_name = info.qualname.rsplit(".", 2)[-2] if "." in info.qualname else ""
    return cls_name, f"{info.module}.{info.qualname.rsplit('.', 1)[0]}"


def method_arguments(info: TargetInfo, root: Path) -> list[Candidate]:
    """The literal arguments of the tests' calls of a method, for regen's exploration of it
    on a fixture's instance (a method's calls are read with their instances, not as a
    function's: explore/offline/method_calls.py)."""
    from codemode.explore.offline.harvest import Candidate

    out = []
    for c in _receiver_calls(info, root, ""):
        args, kwargs = c.args, c.kwargs
        if c.exprs is not None:  # the instance built with expressions, the arguments may be literal
            try:
                args = tuple(ast.literal_eval(a) for a in c.exprs.get("args", []))
                kwargs = {k: ast.literal_eval(v) for k, v in c.exprs.get("kwargs", {}).items()}
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
        out.append(Candidate(args, kwargs, c.label, "tests"))
    return out


def built_instances(info: TargetInfo, root: Path) -> list[dict[str, Any]]:
    """The tests' constructions of a method's instance, each as the lines that build and
    prepare it (a call's ``exprs`` with ``self``), for regen's fixture (#32)."""
    calls = _receiver_calls(info, root, "", as_built=True)
    return [c.exprs for c in calls if c.exprs and c.exprs.get("self")]


def _receiver_calls(
    info: TargetInfo, root: Path, side: str, as_built: bool = False
) -> Iterator[PoolCall]:
    """Calls of a method on an instance the tests build: ``Version('1.0.0').bump()``, or
    ``v = Version.parse('1.0.0')``, the steps that prepare it, then ``v.bump()`` in the same
    test (explore/offline/method_calls.py). The instance travels as a recipe the worker
    builds."""
    from codemode.explore.offline import fresh
    from codemode.explore.offline.factories import factory_names
    from codemode.explore.offline.harvest import is_test_file, parsed, python_files, read_source
    from codemode.explore.offline.method_calls import FRESH, method_calls
    from codemode.explore.offline.spread import MAX_READ, spread

    names = _class_names(info)
    if not names:
        return
    # a test's ``md = create_markdown()`` builds an instance as ``Markdown(...)`` does (#32)
    names = {**names, **factory_names(root, info, names)}
    found: list[PoolCall] = []
    for rel, path in python_files(root):
        if not is_test_file(rel):
            continue
        text = read_source(path)
        if text is None or info.name not in text:
            continue
        tree = parsed(path)[1]
        if tree is None:
            continue
        found += islice(
            method_calls(tree, names, info.name, fresh.lines(path), as_built, path),
            MAX_READ - len(found),
        )
    # a spread over their shapes, the rows the change wrote first: packaging's tests call
    # Specifier.contains on 214 rows, and the first 60 in file order were kept (#32)
    kept = spread(found, MAX_RECEIVER_CALLS, _receiver_shape, lambda c: c.side == FRESH)
    yield from (c._replace(side=side) for c in kept)


MAX_RECEIVER_CALLS = 120  # a method's test calls with their instances, per side


def _receiver_shape(call: PoolCall) -> Any:
    from codemode.explore.offline.receiver_mixes import BUILT, kind_shape
    from codemode.explore.offline.spread import value_shape

    if call.exprs is not None:
        kind = {BUILT: {"setup": call.exprs.get("self", "")}} if call.exprs.get("self") else {}
        return ("exprs", kind_shape(kind) if kind else None, len(call.exprs.get("args", [])))
    made = kind_shape(call.receiver) if call.receiver else None
    return (made, tuple(value_shape(a) for a in call.args), tuple(sorted(call.kwargs)))
