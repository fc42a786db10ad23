"""A method's inputs from the tests of a sibling class's method of the same name (#32).

Two classes of one module with a method of the same name often take the same inputs and
share their logic: a single version specifier and a set of them both have ``contains`` and
``filter``, both built from the specifier's text. A release that fixes how a specifier with
an epoch matches adds its test row to the single specifier's tests only, and the set's
``contains``, whose outcome changes with it, was diffed on none of those rows. So a method's
pool takes the sibling's test calls whose instance is built from literal arguments (a recipe
``{"cls", "args", "kwargs"}``), with its own class in the recipe's place: an instance its
class cannot build from them is an error on both sides, never a witness.

A sibling is a class defined at the top of the method's module, not the method's own class
nor one of its subclasses, that defines a method of the same name (not a dunder: every class
has those). At most ``MAX_SIBLING_CALLS`` calls, the rows the change wrote first (the
harvest's order: explore/offline/fresh.py).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from codemode.explore.offline.harvest import is_test_file, parsed, python_files, read_source

if TYPE_CHECKING:
    from codemode.explore.offline.input_pool import PoolCall
    from codemode.explore.target import TargetInfo

MAX_SIBLING_CALLS = 40


def sibling_classes(info: TargetInfo, own: dict[str, str]) -> dict[str, str]:
    """Name -> id of the classes of ``info``'s module, other than ``own`` (its class and
    subclasses), that define a method named as ``info``'s."""
    if info.name.startswith("__") or "." not in info.qualname:
        return {}
    _, tree = parsed(info.path)
    out: dict[str, str] = {}
    for node in tree.body if tree is not None else ():
        if not isinstance(node, ast.ClassDef) or node.name in own:
            continue
        names = {
            n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
        if info.name in names:
            out[node.name] = f"{info.module}.{node.name}"
    return out


def sibling_calls(info: TargetInfo, root: Path, own: dict[str, str]) -> Iterator[PoolCall]:
    """The tests' calls of the siblings' method, on an instance of ``info``'s class built
    from the same literal arguments."""
    from codemode.explore.offline import fresh
    from codemode.explore.offline.method_calls import method_calls

    siblings = sibling_classes(info, own)
    if not siblings:
        return
    cls_id = f"{info.module}.{info.qualname.rsplit('.', 1)[0]}"
    count = 0
    for rel, path in python_files(root):
        text = read_source(path) if is_test_file(rel) else None
        if text is None or info.name not in text or not any(s in text for s in siblings):
            continue
        tree = parsed(path)[1]
        if tree is None:
            continue
        for call in method_calls(tree, siblings, info.name, fresh.lines(path)):
            r = call.receiver
            if not isinstance(r, dict) or r.get("cls") not in siblings.values():
                continue  # an instance built by the test's lines names the sibling itself
            yield call._replace(receiver={**r, "cls": cls_id}, label=f"like_{call.label}")
            count += 1
            if count >= MAX_SIBLING_CALLS:
                return
