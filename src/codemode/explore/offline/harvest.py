"""Inputs from where behaviour lives, read statically: the project's tests, the function's
docstring, its callers in the project, and the regular expressions it applies.

Tests are read, not run. Tracing a run of the suite (``sys.setprofile``, as MonkeyType does)
sees values built by fixtures, but it needs the project's test runner and its services in
the worker's environment and takes as long as the suite; reading ``parametrize`` tables
and calls of the function costs milliseconds and runs nothing (see docs/inputs.md for the
measurement). A call whose arguments are not literals (``days_overdue(date(2024, 1, 31))``)
is sent as expressions, evaluated in the worker with the target module's globals and the
test file's imports; what does not evaluate, or has no YAML form, is dropped there.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import os
import threading
from collections.abc import Container, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from codemode.explore.offline import fresh as fresh_lines
from codemode.explore.offline.helper_calls import helper_rows
from codemode.explore.offline.indirect_calls import made_call
from codemode.explore.offline.param_rows import module_tables, parametrize_rows
from codemode.explore.offline.prepared import Blocks
from codemode.explore.offline.receivers import PutSelfValues, self_values
from codemode.explore.offline.row_bindings import (
    MAX_ROWS,
    Row,
    assignments,
    class_tables,
    loop_rows,
)
from codemode.explore.offline.spread import (
    MAX_READ,
    spread,
    text_shape,
    value_shape,
)
from codemode.explore.offline.test_names import Carrier, Changes, Drops
from codemode.explore.target import AST_LOCK, TargetInfo

MAX_FROM_FILES = 120  # calls per function from tests and callers (table rows count each)
MAX_FILES = 400
SKIP_DIRS = frozenset(
    [
        ".git",
        ".hg",
        ".venv",
        "venv",
        "env",
        ".env",
        ".tox",
        ".nox",
        "node_modules",
        "build",
        "dist",
        "site-packages",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".eggs",
    ]
)
_TEST_FRAMEWORKS = ("pytest", "unittest", "hypothesis", "mock", "nose")
_RE_FUNCS = frozenset(
    ["compile", "sub", "subn", "match", "search", "fullmatch", "findall", "finditer", "split"]
)


class Candidate(NamedTuple):
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    label: str
    source: str  # tests | docstring | callers | constants | types
    exprs: dict[str, Any] | None = None  # {"args": [src], "kwargs": {name: src}, "setup": src}
    family: str = ""  # the class of input it shows, when not its source or label
    fresh: bool = False  # written on a line the change wrote (explore/offline/fresh.py)


def is_test_file(rel: str) -> bool:
    parts = rel.split("/")
    name = parts[-1]
    return (
        any(p in ("tests", "test", "testing") for p in parts[:-1])
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name in ("test.py", "tests.py", "conftest.py")
    )


# Within ``files_read_once()``: each root's listing and each file's text, read once for every
# function of a run instead of once per function (a 50-function change listed the project and
# read each test file a hundred times). Files do not change during one diff; outside it
# (regen, a long-lived process) nothing is kept.
_ONCE: dict[tuple[str, str], Any] | None = None
_ONCE_LOCK = threading.Lock()


@contextlib.contextmanager
def files_read_once() -> Iterator[None]:
    global _ONCE
    with _ONCE_LOCK:
        outer = _ONCE
        _ONCE = outer if outer is not None else {}
    try:
        yield
    finally:
        with _ONCE_LOCK:
            _ONCE = outer


def kept_once(kind: str, key: str, make: Any) -> Any:
    once = _ONCE
    if once is None:
        return make()
    if (kind, key) not in once:
        once[(kind, key)] = make()
    return once[(kind, key)]


def read_source(path: Path) -> str | None:
    """A file's text (None: unreadable, not UTF-8), once per run inside ``files_read_once``."""

    def read() -> str | None:
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    return kept_once("text", str(path), read)  # type: ignore[no-any-return]


def parsed(path: Path) -> tuple[str, ast.Module | None]:
    """A Python file's text and tree ("", None: unreadable), parsed once per content: every
    function of a module reads the same module, tests and callers, and a bootstrap parsed
    each file again for each of them (#36). The tree is shared: what reads it never changes
    it (the transformers here work on fresh parses)."""
    text = read_source(path)
    if text is None:
        return "", None
    return text, _tree(text)


@functools.lru_cache(maxsize=128)
def _tree(text: str) -> ast.Module | None:
    with AST_LOCK:
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def python_files(root: Path) -> Iterator[tuple[str, Path]]:
    return iter(kept_once("py", str(root), lambda: list(_python_files(root))))


def _python_files(root: Path) -> Iterator[tuple[str, Path]]:
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for f in sorted(filenames):
            if f.endswith(".py"):
                path = Path(dirpath) / f
                count += 1
                if count > MAX_FILES:
                    return
                yield path.relative_to(root).as_posix(), path


def literal_arguments(node: ast.Call) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """A call's arguments when every one is a literal (no ``*args``/``**kwargs``), else None."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    ):
        return None
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    except (ValueError, SyntaxError, TypeError):
        return None
    return args, kwargs


def _call_from(node: ast.Call, label: str, source: str, setup: str) -> Candidate | None:
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    ):
        return None
    literal = literal_arguments(node)
    if literal is not None:
        return Candidate(literal[0], literal[1], label, source)
    exprs = {
        "args": [ast.unparse(a) for a in node.args],
        "kwargs": {k.arg: ast.unparse(k.value) for k in node.keywords if k.arg},
        "setup": setup,
    }
    return Candidate((), {}, label, source, exprs)


class _Index(NamedTuple):
    tree: ast.Module
    imports: list[ast.Import | ast.ImportFrom]
    calls: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[ast.Call]]]  # walk order
    # a call that ``assertRaises(E, f, x)`` makes (explore/offline/indirect_calls.py), by
    # ``id``: the node it stands for in the tree, where its rows are found
    made: dict[int, ast.Call]


_INDEXES: dict[int, _Index] = {}


def _index(tree: ast.Module) -> _Index:
    """A shared tree's imports and each function's calls, walked once (``parsed``): a file
    read for each function of a module was walked whole for each (#36)."""
    got = _INDEXES.get(id(tree))
    if got is None or got.tree is not tree:
        imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        made: dict[int, ast.Call] = {}
        calls = [
            (fn, _with_made([n for n in ast.walk(fn) if isinstance(n, ast.Call)], made))
            for fn in ast.walk(tree)
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        if len(_INDEXES) >= 256:
            _INDEXES.clear()
        got = _INDEXES[id(tree)] = _Index(tree, imports, calls, made)
    return got


def _with_made(calls: list[ast.Call], made: dict[int, ast.Call]) -> list[ast.Call]:
    """``calls`` and, after each that hands a callable its arguments, the call it makes."""
    out: list[ast.Call] = []
    for node in calls:
        out.append(node)
        inner = made_call(node)
        if inner is not None:
            made[id(inner)] = node
            out.append(inner)
    return out


class _Matcher:
    """Which calls in a file are calls of the target: ``name(...)`` where the file defines
    or imports the name, ``mod.name(...)`` where ``mod`` is the target's module."""

    def __init__(self, info: TargetInfo, tree: ast.Module, same_module: bool) -> None:
        self.name = info.name
        self.method = info.is_method
        last = info.module.rsplit(".", 1)[-1]
        self.names: set[str] = {info.name} if same_module else set()
        self.modules: set[str] = set()
        for node in _index(tree).imports:
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    if a.name == info.name:
                        self.names.add(a.asname or a.name)
                    elif a.name == last:
                        self.modules.add(a.asname or a.name)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    # `import pkg; pkg.name(...)`: most tests call what the package re-exports
                    within = info.module.startswith(a.name + ".")
                    if a.name == info.module or a.name.endswith("." + last) or a.name == last:
                        self.modules.add(a.asname or a.name.split(".")[0])
                    elif within:
                        self.modules.add(a.asname or a.name)

    def matches(self, call: ast.Call) -> bool:
        f = call.func
        if isinstance(f, ast.Name):
            return f.id in self.names and not self.method
        if isinstance(f, ast.Attribute) and f.attr == self.name:
            if self.method:
                return len(self.name) > 3
            base = ast.unparse(f.value)
            return base in self.modules or base.split(".")[0] in self.modules
        return False


def import_lines(tree: ast.Module) -> str:
    lines = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mod = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            if not (mod or "").startswith(_TEST_FRAMEWORKS) and not getattr(node, "level", 0):
                lines.append(ast.unparse(node))
    return "\n".join(lines)


def candidate_shape(c: Candidate) -> tuple[Any, ...]:
    """A harvested call's shape (explore/offline/spread.py): its arguments' types and text."""
    if c.exprs is not None:
        named = sorted(c.exprs.get("kwargs", {}).items())
        srcs = [*c.exprs.get("args", []), *(f"{k}={v}" for k, v in named)]
        return ("exprs", tuple(text_shape(str(s)) for s in srcs))
    return (tuple(value_shape(a) for a in c.args), tuple(sorted(c.kwargs)))


def substituted(node: ast.expr, row: Row) -> Any:
    """A fresh copy of ``node`` with the row's values in place of its names."""
    return SubstituteNames(row).visit(ast.parse(ast.unparse(node), mode="eval")).body


class SubstituteNames(ast.NodeTransformer):
    def __init__(self, row: dict[str, ast.expr]) -> None:
        self.row = row

    def visit_Name(self, node: ast.Name) -> Any:
        return self.row.get(node.id, node)


def calls_in_file(
    info: TargetInfo,
    tree: ast.Module,
    same_module: bool,
    source: str,
    drops: Drops | None = None,
    fresh: frozenset[int] = frozenset(),
    path: Path | None = None,
) -> Iterator[Candidate]:
    """The calls of the target in one file, each row of its tables bound; those on a line
    the change wrote (``fresh``: explore/offline/fresh.py) are marked and kept first."""
    matcher = _Matcher(info, tree, same_module)
    if not matcher.names and not matcher.modules:
        return
    setup, module_env = import_lines(tree), assignments(tree.body)
    tables = module_tables(tree, path)  # and the parametrized fixtures (param_rows.py)
    carrier = Carrier(tree, module_env, same_module, path)  # ``path``: its conftest.py files
    class_env = class_tables(tree) if source == "tests" else {}
    selfs = self_values(tree) if source == "tests" else {}  # ``self.doc`` set in setUp (#32)
    loops_of: dict[int, dict[int, list[Row]]] = {}
    made = _index(tree).made

    def rows_at(fn: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.Call) -> list[Row]:
        rows = parametrize_rows(fn, tables, fresh) if source == "tests" else [{}]
        # the rows of the tables the test iterates (`for a, b in self.versions:`)
        if id(fn) not in loops_of:
            env = {**module_env, **class_env.get(id(fn), {})}
            loops_of[id(fn)] = loop_rows(fn, env, fresh)
        bound = loops_of[id(fn)].get(id(made.get(id(node), node)), [{}])
        return fresh_lines.fresh_first([{**r, **b} for r in rows for b in bound], fresh)[:MAX_ROWS]

    # the calls a test makes through a helper of its file (`self.check('[1]', [1])`)
    via = (
        helper_rows(tree, matcher.matches, rows_at, _index(tree).calls) if source == "tests" else {}
    )
    for fn, calls in _index(tree).calls:
        if same_module and fn.name == info.name:
            continue  # its own recursive calls say nothing new
        local = assignments(fn.body)  # once a function: per call, 6,000 asserts took 17 s
        blocks: Blocks | None = None  # what changes an argument before the call (#32)
        for node in calls:
            if matcher.matches(node):
                changes = (blocks := blocks or Blocks(fn)).changes(made.get(id(node), node))
                label = f"from_{fn.name}" if source == "tests" else f"as_in_{fn.name}"
                rows = [(label, r) for r in rows_at(fn, node)]
                rows += [(f"from_{test}", r) for test, r in via.get(id(node), [])]
                for label, row in rows[:MAX_READ]:
                    call = PutSelfValues(selfs.get(id(fn), {})).visit(substituted(node, row))
                    cand = _carried(
                        call, label, source, setup, carrier, (local, changes), row, drops
                    )
                    if (
                        cand is not None
                        and fresh
                        and (node.lineno in fresh or fresh_lines.is_fresh(row, fresh))
                    ):
                        cand = cand._replace(fresh=True)
                    if cand is not None:
                        yield cand


def _carried(
    call: ast.Call,
    label: str,
    source: str,
    setup: str,
    carrier: Carrier,
    names: tuple[Row, Changes],
    row: Row,
    drops: Drops | None,
) -> Candidate | None:
    """The call with what its arguments need from the test module (explore/offline/
    test_names.py), or None, its reason counted in ``drops``. ``names``: the test
    function's assignments, and the statements that change a name before the call."""
    from codemode.explore.offline.double_star import spelled_out

    local, changes = names
    if literal_arguments(call) is None:
        bound = (
            {
                k: SubstituteNames(row).visit(ast.parse(ast.unparse(v), mode="eval")).body
                for k, v in local.items()
            }
            if row and local
            else local
        )
        call = spelled_out(call, bound)  # ``**kwargs`` the test built (#32)
        carried = carrier.carry(call, bound, changes)
        if isinstance(carried, str) and source != "tests":
            # a caller's arguments are its own parameters: the call still says their types
            return _call_from(call, label, source, setup)
        if isinstance(carried, str):
            if drops is not None:
                drops[carried.split(" (")[0]] += 1
            return None
        call, lines = carried
        setup = "\n".join([setup, *lines]) if lines else setup
    return _call_from(call, label, source, setup)


def file_calls(
    info: TargetInfo, root: Path, drops: Drops | None = None
) -> tuple[list[Candidate], list[Candidate]]:
    """(calls in the project's tests, calls in the project's other code), each a spread of
    ``MAX_FROM_FILES`` over the shapes of all those read (explore/offline/spread.py).
    ``drops``: counts the calls that could not be carried, by reason."""
    tests: list[Candidate] = []
    callers: list[Candidate] = []
    target = info.path.resolve()
    for rel, path in python_files(root):
        text = read_source(path)
        if text is None or info.name not in text:
            continue
        _, tree = parsed(path)
        if tree is None:
            continue
        is_test = is_test_file(rel)
        bucket = tests if is_test else callers
        if len(bucket) >= MAX_READ:
            continue
        same = path.resolve() == target
        source = "tests" if is_test else "callers"
        found = calls_in_file(info, tree, same, source, drops, fresh_lines.lines(path), path)
        for cand in found:
            bucket.append(cand)
            if len(bucket) >= MAX_READ:
                break
    return (
        spread(tests, MAX_FROM_FILES, candidate_shape, _is_fresh),
        spread(callers, MAX_FROM_FILES, candidate_shape, _is_fresh),
    )


def _is_fresh(c: Candidate) -> bool:
    return c.fresh


def doctest_lines(text: str, skip: Container[int] = ()) -> Iterator[tuple[bool, str]]:
    """The lines of ``text`` in order, stripped: ``(True, example)`` for each ``>>>`` example
    (its ``...`` continuation lines joined; none that starts on a line number in ``skip``),
    ``(False, line)`` for every other line."""
    block: list[str] = []
    for n, raw in enumerate([*text.splitlines(), ""], 1):
        line = raw.strip()
        if line.startswith("... ") and block:
            block.append(line[4:])
            continue
        if block:
            yield True, "\n".join(block)
            block = []
        if line.startswith(">>>") and n not in skip:
            block = [line[3:].strip()]
        else:
            yield False, line


def docstring_calls(info: TargetInfo) -> list[Candidate]:
    """``>>> f(...)`` examples (continuation lines included) and ``'3 x tea' -> ...`` lines."""
    out: list[Candidate] = []
    required = [
        p for p in info.params if not p.has_default and p.kind in ("positional", "positional_only")
    ]
    context: list[str] = []  # `>>> text = "..."` before `>>> f(text)`
    for prompt, line in doctest_lines(info.docstring):
        if prompt:
            out += examples_in(info, line, context)
        elif "->" in line and len(required) == 1:
            try:
                value = ast.literal_eval(line.split("->", 1)[0].strip())
            except (ValueError, SyntaxError):
                continue
            out.append(Candidate((value,), {}, "docstring_example", "docstring"))
    return out


def examples_in(info: TargetInfo, text: str, context: list[str]) -> list[Candidate]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    setup = "\n".join([import_lines(tree), *context])
    for stmt in tree.body:  # names later examples use (one line each: setup runs by line)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Import, ast.ImportFrom)):
            context.append(ast.unparse(stmt).replace("\n", " "))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == info.name:
            cand = _call_from(node, "docstring_example", "docstring", setup)
            if cand is not None:
                out.append(cand)
    return out


def patterns(fn: ast.AST, module: ast.Module) -> list[str]:
    """The regular expressions the function applies: literal patterns of ``re`` calls in its
    body, and module constants it reads that hold one (``PATTERN = re.compile(r"...")``)."""
    names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    out: dict[str, None] = {}
    scopes: list[ast.AST] = [fn]
    for node in module.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in names for t in node.targets
        ):
            scopes.append(node)
    for scope in scopes:
        for call in ast.walk(scope):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr in _RE_FUNCS
                and ast.unparse(call.func.value) in ("re", "regex")
                and call.args
                and isinstance(call.args[0], ast.Constant)
                and isinstance(call.args[0].value, str)
            ):
                out.setdefault(_inline_flags(call) + call.args[0].value, None)
    return list(out)


_FLAGS = {"VERBOSE": "x", "X": "x", "IGNORECASE": "i", "I": "i", "DOTALL": "s", "S": "s"}
_FLAGS |= {"MULTILINE": "m", "M": "m", "ASCII": "a", "A": "a"}


def _inline_flags(call: ast.Call) -> str:
    """``re.compile(p, re.VERBOSE)`` read as ``(?x)p``: the pattern means what the code
    compiles (a verbose pattern's spaces and comments are not text to match)."""
    flags: dict[str, None] = {}
    for arg in [*call.args[1:], *(k.value for k in call.keywords)]:
        for node in ast.walk(arg):
            if isinstance(node, ast.Attribute) and node.attr in _FLAGS:
                flags.setdefault(_FLAGS[node.attr], None)
    return f"(?{''.join(flags)})" if flags else ""
