"""What a prompt or a planner needs to know about one function, read from its source file.

The worker's interpreter cannot import codemode and the host must not import user code,
so everything here comes from ``ast`` over the file on disk.
"""

from __future__ import annotations

import ast
import functools
import textwrap
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codemode.change.chunks import SourceError
from codemode.change.functions import SourceFile
from codemode.config import Config
from codemode.errors import FatalError

MISSING: Any = object()


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # positional_only | positional | var_positional | keyword_only | var_keyword
    annotation: str | None = None
    default: Any = MISSING  # a literal default, MISSING if none or not a literal
    has_default: bool = False


@dataclass(frozen=True)
class TargetInfo:
    id: str
    module: str
    qualname: str
    path: Path
    rel: str
    lineno: int
    end_lineno: int
    source: str  # the function's own lines
    signature: str
    params: tuple[Param, ...]
    docstring: str
    is_method: bool
    context: str  # imports, constants and helper signatures of the module
    fingerprint: str | None
    literals: tuple[Any, ...] = field(default=())  # numbers and strings in the body

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    def numbered(self, marks: set[int] | None = None) -> str:
        """The source with line numbers; lines in ``marks`` get a ``>>`` prefix."""
        out = []
        for n, line in enumerate(self.source.splitlines(), self.lineno):
            flag = ">>" if marks and n in marks else "  "
            out.append(f"{flag}{n:4d} {line}")
        return "\n".join(out)

    def body_lines(self) -> set[int]:
        """Executable lines of the body (what coverage can reach), docstring excluded."""
        with AST_LOCK:
            tree = ast.parse(textwrap.dedent(self.source))
        fn = tree.body[0]
        assert isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        body = fn.body
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(getattr(body[0], "value", None), ast.Constant)
        ):
            body = body[1:]
        lines: set[int] = set()
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.stmt) and not isinstance(
                    node, (ast.FunctionDef, ast.ClassDef)
                ):
                    lines.add(node.lineno + self.lineno - 1)
        return lines


def module_file(config: Config, module: str, root: Path | None = None) -> Path | None:
    base = root or config.root
    parts = module.split(".")
    for sr in (*config.source_roots, "."):
        d = base / sr
        for cand in (d.joinpath(*parts).with_suffix(".py"), d.joinpath(*parts, "__init__.py")):
            if cand.is_file():
                return cand
    return None


def split_id(config: Config, function_id: str, root: Path | None = None) -> tuple[str, str, Path]:
    """``pkg.mod.Class.meth`` -> (``pkg.mod``, ``Class.meth``, file): the longest module that exists."""
    parts = function_id.split(".")
    for i in range(len(parts) - 1, 0, -1):
        path = module_file(config, ".".join(parts[:i]), root)
        if path is not None:
            return ".".join(parts[:i]), ".".join(parts[i:]), path
    raise FatalError(
        f"{function_id}: no module file found under {', '.join(config.source_roots)}; "
        "is the id the function's import path?"
    )


def _find(
    tree: ast.Module, qualname: str
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool] | None:
    body: list[ast.stmt] = tree.body
    parts = qualname.split(".")
    in_class = False
    for i, name in enumerate(parts):
        last = i == len(parts) - 1
        found: ast.stmt | None = None
        for node in body:
            if (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and node.name == name
            ):
                found = node  # the last definition wins, as at import time
        if found is None:
            return None
        if last:
            if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return found, in_class
            return None
        if not isinstance(found, ast.ClassDef):
            return None  # a function nested in a function is not importable by its id
        in_class = True
        body = found.body
    return None


def _enclosing_function(tree: ast.Module, qualname: str) -> str | None:
    """``outer`` for ``outer.inner`` when ``outer`` is a function (or a method)."""
    parts = qualname.split(".")
    for i in range(1, len(parts)):
        if _find(tree, ".".join(parts[:i])) is not None:
            return ".".join(parts[:i])
    return None


def _literal(node: ast.expr | None) -> Any:
    if node is None:
        return MISSING
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return MISSING


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef, is_method: bool) -> list[Param]:
    a = fn.args
    out: list[Param] = []
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(
        a.defaults
    )
    for i, (arg, d) in enumerate(zip(positional, defaults)):
        kind = "positional_only" if i < len(a.posonlyargs) else "positional"
        out.append(_param(arg, kind, d))
    if a.vararg:
        out.append(_param(a.vararg, "var_positional", None))
    for arg, kd in zip(a.kwonlyargs, a.kw_defaults):
        out.append(_param(arg, "keyword_only", kd))
    if a.kwarg:
        out.append(_param(a.kwarg, "var_keyword", None))
    decorators = {ast.unparse(d) for d in fn.decorator_list}
    if is_method and "staticmethod" not in decorators and out:
        out = out[1:]  # self / cls: bound by the worker
    return out


def _param(arg: ast.arg, kind: str, default: ast.expr | None) -> Param:
    ann = ast.unparse(arg.annotation) if arg.annotation is not None else None
    return Param(arg.arg, kind, ann, _literal(default), default is not None)


def _context(tree: ast.Module, fn_name: str) -> str:
    """Imports, module constants and one-line signatures of the module's other functions."""
    out: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(ast.unparse(node))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            text = ast.unparse(node)
            out.append(text if len(text) <= 160 else text[:157] + "...")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name != fn_name:
            out.append(f"def {node.name}({ast.unparse(node.args)}): ...")
        elif isinstance(node, ast.ClassDef):
            fields = [ast.unparse(s) for s in node.body if isinstance(s, ast.AnnAssign)]
            bases = ", ".join(ast.unparse(b) for b in node.bases)
            out.append(f"class {node.name}({bases}): " + "; ".join(fields)[:200])
    return "\n".join(out)


def _module_constants(tree: ast.Module) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            value = _literal(node.value)
            if isinstance(value, (int, float, str)) and not isinstance(value, bool):
                out[node.targets[0].id] = value
            elif isinstance(value, (dict, list, tuple, set, frozenset)):
                # a table the body looks words up in (`word in IRREGULAR`): a few of its keys
                keys = sorted(k for k in value if isinstance(k, str) and 0 < len(k) <= 40)
                if keys:
                    out[node.targets[0].id] = tuple(keys[:3])
    return out


def _literals(fn: ast.AST, constants: dict[str, Any] | None = None) -> tuple[Any, ...]:
    """Numbers and short strings the body uses, module constants it reads included."""
    seen: dict[Any, None] = {}
    tables: dict[Any, None] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and constants and node.id in constants:
            v = constants[node.id]
            if isinstance(v, tuple):  # a table's keys after the body's own literals
                tables.update((("str", k), None) for k in v)
            else:
                seen.setdefault((type(v).__name__, v), None)
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, (int, float, str))
            and not isinstance(node.value, bool)
        ):
            if isinstance(node.value, str) and len(node.value) > 40:
                continue
            seen.setdefault((type(node.value).__name__, node.value), None)
        elif (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
        ):
            v = node.operand.value
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                seen.setdefault((type(v).__name__, -v), None)
    return tuple(v for _, v in {**seen, **tables})


# CPython 3.11 (before 3.11.9) can fail `ast.parse` run in two threads at once with
# "SystemError: AST constructor recursion depth mismatch" (gh-106905); regen explores
# functions in threads, so what parses source there holds this lock.
AST_LOCK = threading.RLock()


def load_target(config: Config, function_id: str, root: Path | None = None) -> TargetInfo:
    with AST_LOCK:
        return _load_target(config, function_id, root)


@functools.lru_cache(maxsize=16)
def module_source(rel: str, module: str, data: bytes) -> tuple[SourceFile, ast.Module]:
    """A module's source, tree and fingerprints, once per content: a bootstrap loads every
    function of a module, and parsed the whole module (and fingerprinted each of its
    functions) once for each (#36). Shared: read, never changed."""
    sf = SourceFile.from_bytes(rel, module, data)
    tree = ast.parse(sf.text)
    sf.parse_all()
    return sf, tree


def _load_target(config: Config, function_id: str, root: Path | None) -> TargetInfo:
    module, qualname, path = split_id(config, function_id, root)
    base = root or config.root
    try:
        rel = path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        rel = path.as_posix()
    try:
        sf, tree = module_source(rel, module, path.read_bytes())
    except (SourceError, SyntaxError, ValueError, OSError) as exc:
        raise FatalError(f"{function_id}: {path} does not parse: {exc}") from exc
    text = sf.text
    found = _find(tree, qualname)
    if found is None:
        outer = _enclosing_function(tree, qualname)
        if outer is not None:
            # its code is part of the enclosing function, as diff and check count it
            raise FatalError(
                f"{function_id}: nested in the function {outer}, so not importable by its id; "
                f"explore the enclosing function: --function {module}.{outer}"
            )
        raise FatalError(f"{function_id}: no function {qualname!r} in {path}")
    fn, is_method = found
    start = min([d.lineno for d in fn.decorator_list] + [fn.lineno])
    end = fn.end_lineno or fn.lineno
    lines = text.splitlines()
    source = "\n".join(lines[start - 1 : end]) + "\n"
    f = sf.functions().get(qualname)
    fp = f.fingerprint if f is not None else None
    params = _params(fn, is_method)
    sig = f"def {fn.name}({ast.unparse(fn.args)})" + (
        f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    )
    return TargetInfo(
        id=function_id,
        module=module,
        qualname=qualname,
        path=path,
        rel=rel,
        lineno=start,
        end_lineno=end,
        source=source,
        signature=sig,
        params=tuple(params),
        docstring=ast.get_docstring(fn) or "",
        is_method=is_method,
        context=_context(tree, fn.name),
        fingerprint=fp,
        literals=_literals(fn, _module_constants(tree)),
    )


def bind_keywords(
    info: TargetInfo, args: list[Any], kwargs: dict[str, Any]
) -> dict[str, Any] | None:
    """Positional arguments bound to their names, so a call with both can be one ``inputs`` dict
    (the worker passes a positional-only parameter's entry by position)."""
    named = [p for p in info.params if p.kind in ("positional", "positional_only")]
    if len(args) > len(named):
        return None
    out = {p.name: v for p, v in zip(named, args)}
    if set(out) & set(kwargs):
        return None
    return {**out, **kwargs}
