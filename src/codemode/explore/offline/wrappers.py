"""Inputs of a function the tests reach only through a public wrapper of its module (#32).

::

    class Converter:
        def __init__(self, upper=False): ...
        def convert(self, text): ...

    def convert(text, **options):
        return Converter(**options).convert(text)

The tests call ``convert("ab-cd", upper=True)``; no test calls the method, so its pool held
generated text on a default ``Converter()`` only. Each test call of a wrapper (a public
function of the target's module whose body calls the target with the wrapper's parameters)
binds the wrapper's parameters, and the wrapper's own call of the target, with those values
put in, is a call of the target: for a method, the instance the wrapper builds
(``Converter(**options)``, or a name assigned from it) is its recipe. A test call of the
wrapper whose arguments are not literals is not carried (counted in ``drops``).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from codemode.explore.offline.harvest import Candidate, file_calls, literal_arguments, read_source
from codemode.explore.offline.test_names import Drops, free_names

if TYPE_CHECKING:
    from pathlib import Path

    from codemode.explore.target import TargetInfo

MAX_WRAPPERS = 4  # wrappers of one function read: past this the function is a utility
Recipe = dict[str, Any]


def wrapper_calls(
    info: TargetInfo, root: Path, drops: Drops | None = None
) -> Iterator[tuple[Candidate, Recipe | None]]:
    """Calls of ``info`` bound from the tests' calls of its module's public wrappers, each
    with the instance's recipe when ``info`` is a method."""
    text = read_source(info.path)
    if text is None:
        return
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    cls = info.qualname.rsplit(".", 1)[0] if info.is_method else ""
    makers = {cls: f"{info.module}.{cls}"} if cls else {}
    if cls:  # an instance a factory of the package builds: ``create_x(**options).m(text)``
        from codemode.explore.offline.factories import factory_names
        from codemode.explore.offline.receivers import class_names

        names = class_names(makers[cls], info.module, info.path)
        makers.update(factory_names(root, info, names))
    wrappers = [
        (fn, calls)
        for fn in tree.body
        if isinstance(fn, ast.FunctionDef)
        and not fn.name.startswith("_")
        and fn.name != info.qualname
        for calls in [_target_calls(fn, info.name, makers)]
        if calls
    ]
    for fn, calls in wrappers[:MAX_WRAPPERS]:
        winfo = dataclasses.replace(info, qualname=fn.name, is_method=False)
        tests, _ = file_calls(winfo, root, drops)
        for cand in tests:
            if cand.exprs is not None:
                if drops is not None:
                    drops["a wrapper's call whose arguments are not literals"] += 1
                continue
            binding = _bind(fn, cand.args, cand.kwargs)
            for call, receiver in calls:
                made = _bound_call(call, binding)
                recipe = _recipe(receiver, binding, makers) if receiver is not None else None
                if made is not None and (recipe is not None or not cls):
                    label = f"via_{fn.name}_{cand.label}"
                    yield Candidate(made[0], made[1], label, "tests"), recipe


def _target_calls(
    fn: ast.FunctionDef, name: str, makers: dict[str, str]
) -> list[tuple[ast.Call, ast.expr | None]]:
    """The wrapper's calls of the target that use one of its parameters, each with the
    expression that builds the instance (a method's)."""
    a = fn.args
    params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if p}
    built: dict[str, ast.expr] = {}
    for node in ast.walk(fn):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        if isinstance(node.targets[0], ast.Name) and _builds(node.value, makers):
            built[node.targets[0].id] = node.value
    out: list[tuple[ast.Call, ast.expr | None]] = []
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call) or not set(free_names(node)) & params:
            continue
        f = node.func
        if not makers and isinstance(f, ast.Name) and f.id == name:
            out.append((node, None))
        elif makers and isinstance(f, ast.Attribute) and f.attr == name:
            base = built.get(f.value.id) if isinstance(f.value, ast.Name) else f.value
            if base is not None and _builds(base, makers):
                out.append((node, base))
    return out


def _builds(node: ast.expr, makers: dict[str, str]) -> bool:
    """``Cls(...)`` or a call of a factory of the class (``makers``: name -> id)."""
    return isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in makers


def _bind(fn: ast.FunctionDef, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The wrapper's parameters as one call binds them (defaults for the rest; ``*args`` and
    ``**kwargs`` get what is left over)."""
    a = fn.args
    positional = [p.arg for p in (*a.posonlyargs, *a.args)]
    named = {p.arg for p in a.kwonlyargs} | set(positional)
    out: dict[str, Any] = {}
    for p, d in zip(positional[len(positional) - len(a.defaults) :], a.defaults):
        out[p] = d
    out.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    out.update(zip(positional, args))
    out.update({k: v for k, v in kwargs.items() if k in named})
    if a.vararg is not None:
        out[a.vararg.arg] = tuple(args[len(positional) :])
    if a.kwarg is not None:
        out[a.kwarg.arg] = {k: v for k, v in kwargs.items() if k not in named}
    return out


def _node(value: Any) -> ast.expr:
    if isinstance(value, ast.expr):
        return value
    return ast.parse(repr(value), mode="eval").body


class _Put(ast.NodeTransformer):
    def __init__(self, binding: dict[str, Any]) -> None:
        self.binding = binding

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.binding and isinstance(node.ctx, ast.Load):
            return _node(self.binding[node.id])
        return node

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        # `f(*(1, 2), **{"a": 1})` spelled out, so its arguments read as literals
        args: list[ast.expr] = []
        for arg in node.args:
            inner = arg.value if isinstance(arg, ast.Starred) else None
            args += inner.elts if isinstance(inner, (ast.Tuple, ast.List)) else [arg]
        keywords: list[ast.keyword] = []
        for k in node.keywords:
            d = k.value
            if (
                k.arg is None
                and isinstance(d, ast.Dict)
                and all(
                    isinstance(key, ast.Constant) and isinstance(key.value, str) for key in d.keys
                )
            ):
                keywords += [ast.keyword(key.value, v) for key, v in zip(d.keys, d.values)]  # type: ignore[union-attr]
            else:
                keywords.append(k)
        node.args, node.keywords = args, keywords
        return node


def _bound_call(
    call: ast.Call, binding: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    try:
        done = _Put(binding).visit(ast.parse(ast.unparse(call), mode="eval")).body
    except (SyntaxError, ValueError, RecursionError):  # a value whose repr is not Python
        return None
    return literal_arguments(done) if isinstance(done, ast.Call) else None


def _recipe(receiver: ast.expr, binding: dict[str, Any], makers: dict[str, str]) -> Recipe | None:
    assert isinstance(receiver, ast.Call)
    made = _bound_call(receiver, binding)
    if made is None:
        return None
    maker = makers[ast.unparse(receiver.func).split(".")[-1]]
    return {"cls": maker, "args": list(made[0]), "kwargs": made[1]}
