"""A parameter with no YAML form gets a fixture built as the project's tests build it (#32).

``render(node)`` where ``node`` is a parsed-document element: no value of its type can be
written in a case, so regen used to stop at "needs a fixture". The tests build one in a line
or two (``doc = parse('h1:Title;p:Body')``; ``render(doc)``), and the pool already carries
that construction with the call (explore/offline/test_names.py). Here it becomes a fixture of
the built-in kind ``codemode.build`` (worker/construct.py): the lines the value needs (the
imports and assignments it reads, nothing else of the test file) and the expression, named
after the parameter. The function is explored again with it, as with ``codemode.tmp_path``
(path_fixture.py), and its cases are written with it: a spec ``codemode check`` verifies.

Of several constructions the tests hold for one parameter, the one most calls use is taken
(the first in file order on a tie): a fixture is one value per function block.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path
from typing import Any

from codemode.explore.record import Recorder
from codemode.explore.target import TargetInfo
from codemode.explore.writing.path_fixture import given, path_fixture, with_fixture

BUILD = "codemode.build"  # worker/construct.py's built-in fixture
_NO_INSTANCE = " needs an instance: "  # worker/runner.py's _bind, a class that needs arguments
_NO_FORM = re.compile(r"has no YAML form \((?:args\[(\d+)\]|kwargs\[('[^']*')\])\)")


def refixture(
    recorder: Recorder, info: TargetInfo, root: Path, done: Any, given: object
) -> tuple[Recorder, dict[str, Any] | None]:
    """For a new function that gave no case (nothing ``given``: no cases, no spec): a recorder
    with the fixture that may give it some, and that fixture (its wire form); else
    ``recorder`` and None. A path its calls were stopped writing to gets
    ``codemode.tmp_path`` (#31); a parameter whose values in the tests' calls have no YAML
    form gets ``codemode.build`` (#32)."""
    if given:
        return recorder, None
    fx = path_fixture(recorder.records, info)
    if fx is not None:
        return (with_fixture(recorder, fx, done), fx) if done.status == "ok" else (recorder, fx)
    if done.status == "skipped":
        return recorder, None
    fx = instance_fixture(recorder, info, root)
    if fx is not None:  # a method whose class needs arguments: its instance, as tests build it
        return with_built(recorder, fx, done, "its class needs an instance"), fx
    fx = built_fixture(recorder, info, root)
    return (with_built(recorder, fx, done), fx) if fx is not None else (recorder, None)


def instance_fixture(recorder: Recorder, info: TargetInfo, root: Path) -> dict[str, Any] | None:
    """For a method none of whose calls got an instance (its class needs arguments), the
    fixture (its wire form) that builds one as the tests build and prepare it, the most
    common of their constructions (the worker binds a fixture's value of the method's class
    as its instance); None when no call says so or no test builds one."""
    from codemode.explore.offline.input_pool import built_instances
    from codemode.explore.target import AST_LOCK

    if not info.is_method or not any(_NO_INSTANCE in r.message for r in recorder.records):
        return None
    with AST_LOCK:
        found = Counter(
            (needed_lines(str(e.get("setup") or ""), str(e["self"])), str(e["self"]))
            for e in built_instances(info, root)
        )
        # none: as the project's own factory builds one (create_x(), Cls.from_text('...'))
        made = None if found else _factory_made(info, root)
    if made is not None:
        found[made] += 1
    if not found:
        return None
    (lines, value), _ = found.most_common(1)[0]
    cls, method = info.qualname.rsplit(".", 2)[-2:]
    name = re.sub(r"(?<!^)(?=[A-Z])", "_", cls).lower() + "_" + method.strip("_")
    kwargs = {"lines": list(lines), "value": value}
    return {"name": name, "setup": BUILD, "scope": "case", "kwargs": kwargs}


def _factory_made(info: TargetInfo, root: Path) -> tuple[tuple[str, ...], str] | None:
    from codemode.explore.offline.factories import construction
    from codemode.explore.offline.receivers import class_names

    cls_id = f"{info.module}.{info.qualname.rsplit('.', 1)[0]}"
    return construction(root, info, class_names(cls_id, info.module, info.path))


def built_fixture(recorder: Recorder, info: TargetInfo, root: Path) -> dict[str, Any] | None:
    """The fixture (its wire form) for the parameter whose values, in the tests' calls the
    worker evaluated, had no YAML form (worker/exploring.py names it), built from those
    calls' construction of it; None when no call says so."""
    from codemode.explore.offline.harvest import file_calls
    from codemode.explore.target import AST_LOCK

    positional = [p.name for p in info.params if p.kind in ("positional", "positional_only")]
    named = Counter(_odd_param(r.message, positional) for r in recorder.records)
    named.pop(None, None)
    if not named:
        return None
    name = str(named.most_common(1)[0][0])
    with AST_LOCK:
        tests, _ = file_calls(info, root)
    found: Counter[tuple[tuple[str, ...], str]] = Counter()
    for c in tests:
        exprs = c.exprs or {}
        args = list(exprs.get("args") or [])
        source = {**dict(zip(positional, args)), **(exprs.get("kwargs") or {})}.get(name)
        if isinstance(source, str) and not _literal(source):
            found[(needed_lines(str(exprs.get("setup") or ""), source), source)] += 1
    if not found:
        return None
    (lines, value), _ = found.most_common(1)[0]
    kwargs = {"lines": list(lines), "value": value}
    return {"name": name, "setup": BUILD, "scope": "case", "kwargs": kwargs}


def _odd_param(message: str, positional: list[str]) -> str | None:
    """The parameter an "an argument has no YAML form (args[0])" error names."""
    m = _NO_FORM.search(message)
    if m is None:
        return None
    if m.group(1) is not None:
        at = int(m.group(1))
        return positional[at] if at < len(positional) else None
    return str(ast.literal_eval(m.group(2)))


def _literal(source: str) -> bool:
    try:
        ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def needed_lines(setup: str, value: str) -> tuple[str, ...]:
    """The lines of ``setup`` that ``value`` needs, in their order: those binding a name it
    reads, and the lines those need in turn (a test file's other imports are left out)."""
    from codemode.explore.offline.test_names import free_names

    try:
        want = set(free_names(ast.parse(value, mode="eval")))
    except SyntaxError:
        return ()
    kept: list[str] = []
    for line in reversed([ln for ln in setup.splitlines() if ln.strip()]):
        try:
            stmt = ast.parse(line).body
        except SyntaxError:
            continue
        binds, reads = _binds(stmt[0]) if stmt else (set(), set())
        if binds & want:
            kept.append(line)
            want = (want - binds) | reads
    return tuple(reversed(kept))


def _binds(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    """(the names a line binds, the names it reads)."""
    from codemode.explore.offline.test_names import free_names

    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}, set()
    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
        binds = {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        return binds, set(free_names(stmt.value))
    if isinstance(stmt, (ast.Expr, ast.Assign)):
        # a step that changes a value (doc.add(x), p.sep = ","): kept with the value, and
        # the value's own line still wanted (the step reads its name)
        root = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.value
        while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
            root = root.func if isinstance(root, ast.Call) else root.value
        if isinstance(root, ast.Name):
            return {root.id}, set(free_names(stmt))
    return set(), set()


def with_built(recorder: Recorder, fixture: dict[str, Any], done: Any, why: str = "") -> Recorder:
    """A fresh recorder of the same function with ``fixture`` in place of its parameter (or
    its instance: ``why``); the report's note says where the value came from."""
    done.status, done.message = "ok", ""  # the "needs a fixture" of the first exploration
    value = fixture["kwargs"]["value"]
    why = why or f"`{fixture['name']}` has no YAML form"
    done.notes.append(
        f"{recorder.target}: {why}; explored with a {BUILD} fixture built as the tests "
        f"build it ({value})"
    )
    return given(recorder, fixture)
