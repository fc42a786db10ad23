"""The project's own ways to build an instance of a method's class (#32), read statically.

Real libraries build their objects through factories: ``create_markdown(...)`` (a module
function whose ``__init__``-heavy class needs a renderer object), ``Duration.from_text("2h")``
(a classmethod), a module-level default ``html = create_markdown(escape=False)``. A method of
such a class had no instance in the behaviour diff: ``Cls()`` raised, and every input was
"not compared". A factory of class C here is a public callable of the project's package that
returns a C:

- a module-level function, or a classmethod/staticmethod of any class, whose return
  annotation names C or a subclass (``Self`` too, in C's own hierarchy), or one of whose
  ``return`` statements builds one (``return C(...)``, ``return cls(...)`` in a classmethod of
  C, or a local name assigned from such a call);
- and a module-level name bound to a call of C or of a factory (``default = C("x")``), whose
  call, when its arguments are literals, is a recipe: the same object, built afresh.

Each factory gives recipes (``{"cls": factory id, "args": [...], "kwargs": {...}}``, what the
worker calls and the witness shows: ``create_markdown().parse('*a*')``): the call with no
argument first when every parameter has a default, then the calls with literal arguments the
tests and the package itself make of it. At most ``MAX_RECIPES``, spread over the factories.
Both sides of a diff get the same recipe: it travels with the input.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from codemode.explore.target import TargetInfo

MAX_RECIPES = 12  # factory-built instances per class
MAX_PER_FACTORY = 4  # recipes of one factory: its no-argument call, then the calls seen
Recipe = dict[str, Any]


def factory_recipes(root: Path, info: TargetInfo, names: dict[str, str]) -> list[Recipe]:
    """Recipes of instances of the class ``names`` names first (name -> id: the class and
    its subclasses), from the factories of its package under ``root``; ``info``: the
    method. Once per run and class (``kept_once``)."""
    return list(_scan(root, info, names)[0])


def factory_names(root: Path, info: TargetInfo, names: dict[str, str]) -> dict[str, str]:
    """How a test calls each module-level factory function of the class (its name) -> its
    id: a test's or a fixture's ``md = create_markdown()`` builds an instance too (the
    class's own calls and ``Cls.from_text(...)`` are read as such already:
    explore/offline/prepared.py's ``Makers``)."""
    called = _scan(root, info, names)[1]
    return {how: fid for fid, how in called.items() if "." not in how and how not in names}


def construction(
    root: Path, info: TargetInfo, names: dict[str, str]
) -> tuple[tuple[str, ...], str] | None:
    """The first recipe as the source lines that import its factory and the expression that
    calls it (``from pkg import create_x``, ``create_x()``), for regen's fixture of a method
    whose class needs arguments when no test builds one (explore/writing/built_fixture.py);
    None when there is none."""
    from codemode.explore.offline.receiver_mixes import source_form

    recipes, called = _scan(root, info, names)
    for r in recipes:
        how = called[r["cls"]]
        args = [source_form(a) for a in r["args"]]
        args += [f"{k}={t}" if (t := source_form(v)) else "" for k, v in r["kwargs"].items()]
        if all(args):
            where = r["cls"][: -len(how) - 1]
            line = f"from {where} import {how.split('.')[0]}"
            return (line,), f"{how}({', '.join(a for a in args if a)})"
    return None


def _scan(
    root: Path, info: TargetInfo, names: dict[str, str]
) -> tuple[list[Recipe], dict[str, str]]:
    from codemode.explore.offline.harvest import kept_once

    if not names:
        return [], {}
    key = f"{root}\0{next(iter(names.values()))}"
    got = kept_once("factories", key, lambda: _recipes(root, info, names))
    return got  # type: ignore[no-any-return]


def _recipes(
    root: Path, info: TargetInfo, names: dict[str, str]
) -> tuple[list[Recipe], dict[str, str]]:
    found: dict[str, Factory] = {}  # id -> factory, in the order the package defines them
    modules = list(_package_modules(root, info))
    for mod, tree in modules:
        for f in _factories(tree, mod, names):
            found.setdefault(f.id, f)
    by_name: dict[str, list[Factory]] = {}
    for f in found.values():
        by_name.setdefault(f.called_as, []).append(f)
    # the package's own calls of its classes too (``default = C("x")``): the tests' are
    # receiver_mixes.constructions'
    classes = {name: [Factory(cid, name, False)] for name, cid in names.items()}
    seen: dict[str, list[tuple[list[Any], dict[str, Any]]]] = {}
    words = {f.called_as.rsplit(".", 1)[-1] for f in found.values()}
    # the tests' calls first: what the maintainers call it with
    for tree in [*_test_trees(root, words), *(t for _, t in modules)]:
        for call, f in _calls_of(tree, by_name):
            seen.setdefault(f.id, []).append(call)
    for _, tree in modules:
        for call, f in _calls_of(tree, classes):
            seen.setdefault(f.id, []).append(call)
    found.update((cid, Factory(cid, n, False)) for n, cid in names.items() if cid in seen)
    called = {f.id: f.called_as for f in found.values()}
    if not found:
        return [], called
    per: list[list[Recipe]] = []
    for f in found.values():
        mine: dict[str, Recipe] = {}
        if f.bare:
            mine[repr(([], {}))] = {"cls": f.id, "args": [], "kwargs": {}}
        for args, kwargs in seen.get(f.id, ()):
            mine.setdefault(repr((args, kwargs)), {"cls": f.id, "args": args, "kwargs": kwargs})
        per.append(list(mine.values())[:MAX_PER_FACTORY])
    # each factory's first recipe before any factory's second
    out = [rs[depth] for depth in range(MAX_PER_FACTORY) for rs in per if depth < len(rs)]
    return out[:MAX_RECIPES], called


class Factory(NamedTuple):
    """A callable of the package that returns an instance: its id, how a call names it
    (``create_markdown``, ``Duration.from_text``), and whether it takes no argument."""

    id: str
    called_as: str
    bare: bool


def _package_modules(root: Path, info: TargetInfo) -> Iterator[tuple[str, ast.Module]]:
    """(module name, tree) of each file of the class's top package under ``root``, the
    class's own module first (``info``'s: the old side's folder may not hold it)."""
    from codemode.explore.offline.harvest import is_test_file, parsed, python_files

    # the old side's folder holds only the files the change touched (change/old_side.py):
    # the module's place is the project's, not a path under ``root``
    rel, module, path = info.rel, info.module, info.path
    own = module.replace(".", "/")
    stem = rel.removesuffix(".py").removesuffix("/__init__")
    if not stem.endswith(own):
        return
    prefix = stem[: len(stem) - len(own)]  # "src/" or ""
    top = prefix + module.split(".")[0]
    tree = parsed(path)[1]
    if tree is not None:
        yield module, tree
    for other, p in python_files(root):
        if other == rel or is_test_file(other) or not other.startswith(top + "/"):
            continue
        text, tree = parsed(p)
        if tree is None or ("return" not in text and "=" not in text):
            continue
        name = other[len(prefix) :].removesuffix(".py").removesuffix("/__init__")
        yield name.replace("/", "."), tree


def _test_trees(root: Path, words: set[str]) -> Iterator[ast.Module]:
    """The test files that name a factory (``words``)."""
    from codemode.explore.offline.harvest import is_test_file, parsed, python_files, read_source

    for rel, p in python_files(root) if words else ():
        if is_test_file(rel) and any(w in (read_source(p) or "") for w in words):
            tree = parsed(p)[1]
            if tree is not None:
                yield tree


def _factories(tree: ast.Module, module: str, names: dict[str, str]) -> Iterator[Factory]:
    """The public factories of ``names``' classes that ``tree`` defines, then the makers of
    its module-level instances."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and _returns(node, names, ""):
            if not node.name.startswith("_"):
                yield Factory(f"{module}.{node.name}", node.name, _bare(node, 0))
        elif isinstance(node, ast.ClassDef):
            own = node.name if node.name in names else ""
            for fn in node.body:
                if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("_"):
                    continue
                kind = _kind(fn)
                if kind and _returns(fn, names, own if kind == "classmethod" else ""):
                    fid = f"{module}.{node.name}.{fn.name}"
                    yield Factory(fid, f"{node.name}.{fn.name}", _bare(fn, kind == "classmethod"))


def _kind(fn: ast.FunctionDef) -> str:
    for d in fn.decorator_list:
        text = ast.unparse(d)
        if text in ("classmethod", "staticmethod"):
            return text
    return ""


def _bare(fn: ast.FunctionDef, skip: int) -> bool:
    """Whether ``fn`` can be called with no argument (``skip``: ``cls``)."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args][skip:]
    required = len(positional) - len(a.defaults)
    return required <= 0 and all(d is not None for d in a.kw_defaults)


def _returns(fn: ast.FunctionDef, names: dict[str, str], own: str) -> bool:
    """Whether ``fn`` returns an instance of ``names``' classes, by its annotation or its
    ``return`` statements (``own``: the class whose classmethod ``fn`` is: ``cls(...)``)."""
    if fn.returns is not None:
        words = {n.id for n in ast.walk(fn.returns) if isinstance(n, ast.Name)}
        words |= {
            n.value
            for n in ast.walk(fn.returns)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
        if words & names.keys() or (own and "Self" in words):
            return True
    makers = set(names) | ({"cls"} if own else set())
    built: set[str] = set()
    for node in _own_nodes(fn):
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Name) and _builds(getattr(node, "value", None), makers):
            built.add(target.id)
    for node in _own_nodes(fn):
        if isinstance(node, ast.Return) and node.value is not None:
            v = node.value
            if _builds(v, makers) or (isinstance(v, ast.Name) and v.id in built):
                return True
    return False


def _own_nodes(fn: ast.FunctionDef) -> Iterator[ast.AST]:
    """The nodes of ``fn``'s body outside the functions and classes it defines."""
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
            ):
                todo.append(child)


def _builds(node: ast.expr | None, makers: set[str]) -> bool:
    return isinstance(node, ast.Call) and last_name(node.func) in makers


def last_name(func: ast.expr) -> str:
    """The name a call's function ends with (``b`` of ``a.b(...)``), or ""."""
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _calls_of(
    tree: ast.Module, by_name: dict[str, list[Factory]]
) -> Iterator[tuple[tuple[list[Any], dict[str, Any]], Factory]]:
    """Each call in ``tree`` of a factory (by how a call names it: ``mod.create(...)``,
    ``Duration.from_text(...)``) whose arguments are literals."""
    from codemode.explore.offline.harvest import literal_arguments

    words = {how.rsplit(".", 1)[-1] for how in by_name}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or last_name(node.func) not in words:
            continue  # (unparsing every call of a large module cost seconds)
        parts = ast.unparse(node.func).split(".")
        fs = by_name.get(".".join(parts[-2:])) or by_name.get(parts[-1])
        if not fs:
            continue
        literal = literal_arguments(node)
        if literal is not None:
            yield (list(literal[0]), literal[1]), fs[0]
