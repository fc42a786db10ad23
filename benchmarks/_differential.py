"""Ground truth for benchmarks/upgrade_detection.py: which public functions of a library
changed behaviour between two releases, found by calling both releases on the same inputs.

Inputs come from three places, each remembered with the input so a miss can be explained:
the literal calls of both releases' test suites (pytest parametrize tables, loops over
module-level tables and plain calls, with module constants substituted), the `>>>` examples
in both releases' docstrings, and a fixed generic pool of plain values passed as the first
argument and in every argument position of the tests' first calls. Each release runs in its own interpreter (the old one twice: a call whose outcome
differs between two runs of the same code is dropped as unstable). A function changed when
some stable call has a different outcome (its value's repr, or the type of what it raised).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from _releases import SHOWN, run_beside

# Plain values of the kinds text and number utilities take, tried as the first argument of
# every function. Fixed and generic on purpose: the pool must not know what changed.
GENERIC_POOL: tuple[str, ...] = (
    "''",
    "'a'",
    "'A'",
    "'N'",
    "'hello world'",
    "'Hello World'",
    "'helloWorld'",
    "'HelloWorld'",
    "'hello_world'",
    "'hello-world'",
    "'HTTPResponseCode'",
    "'abc123def'",
    "'  padded  '",
    "'é'",
    "'1'",
    "'-1'",
    "'1.5'",
    "0",
    "1",
    "2",
    "-1",
    "10",
    "100",
    "1000",
    "123456789",
    "0.5",
    "1.5",
    "-2.5",
    "0.001",
    "1e+20",
    "True",
    "None",
    "[]",
    "['a', 'b']",
    "{'a': 1}",
)
# Constructors a test's argument may call and still count as a plain value.
SAFE_CALLS = {
    "timedelta",
    "date",
    "datetime",
    "time",
    "Decimal",
    "Fraction",
    "float",
    "int",
    "str",
    "bytes",
    "tuple",
    "list",
    "set",
    "frozenset",
    "dict",
}
MAX_ROWS = 400  # bindings per test function: parametrize tables can be large
MAX_CALLS_PER_FUNCTION = 900
TEMPLATES = 3  # calls per function whose every argument position tries the generic pool


@dataclass(frozen=True)
class Call:
    """One call of a public function: ``args``/``kwargs`` are Python source of plain values."""

    function: str  # dotted id, "pkg.mod.name"
    args: tuple[str, ...]
    kwargs: tuple[tuple[str, str], ...] = ()
    origin: str = ""  # where the input came from ("tests/test_x.py:12", "generic pool", ...)

    @property
    def key(self) -> str:
        return json.dumps([self.function, list(self.args), [list(k) for k in self.kwargs]])

    def source(self) -> str:
        parts = [*self.args, *(f"{k}={v}" for k, v in self.kwargs)]
        return f"{self.function.rsplit('.', 1)[1]}({', '.join(parts)})"


@dataclass(frozen=True)
class Change:
    function: str
    call: Call  # the first call whose outcome differs
    old: str
    new: str
    differing: int = 1  # stable calls of the function whose outcome differs
    compared: int = 1  # stable calls of the function


# -- which functions ---------------------------------------------------------------------


def _is_test_module(parts: tuple[str, ...]) -> bool:
    name = parts[-1]
    return (
        name.startswith("test_")
        or name.endswith("_test")
        or name in ("tests", "conftest", "setup")
        or any(p in ("tests", "test") for p in parts[:-1])
    )


def public_functions(src: Path) -> dict[str, Path]:
    """Module-level public functions under ``src`` (the folder holding the package):
    dotted id -> file. Private names, private modules and test modules are left out."""
    out: dict[str, Path] = {}
    for path in sorted(src.rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not parts or any(p.startswith("_") for p in parts) or _is_test_module(parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                out[".".join((*parts, node.name))] = path
    return out


# -- inputs from tests and docstrings ------------------------------------------------------


def _callee(node: ast.Call) -> str | None:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return None


def _substitute(node: ast.expr, env: dict[str, ast.expr], depth: int = 0) -> ast.expr | None:
    """``node`` with names replaced from ``env``, if what remains is a plain value."""
    if depth > 20:
        return None

    def sub(n: ast.expr) -> ast.expr | None:
        return _substitute(n, env, depth + 1)

    if isinstance(node, ast.Constant):
        return node
    if isinstance(node, ast.Name):
        return sub(env[node.id]) if node.id in env else None
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        elts = [sub(e) for e in node.elts]
        if any(e is None for e in elts):
            return None
        if isinstance(node, ast.Set):
            return ast.Set(elts=elts)  # type: ignore[arg-type]
        return type(node)(elts=elts, ctx=ast.Load())  # type: ignore[arg-type]
    if isinstance(node, ast.Dict):
        keys = [sub(k) if k is not None else None for k in node.keys]
        values = [sub(v) for v in node.values]
        if any(k is None for k in keys) or any(v is None for v in values):
            return None
        return ast.Dict(keys=keys, values=values)  # type: ignore[arg-type]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = sub(node.operand)
        return None if operand is None else ast.UnaryOp(op=node.op, operand=operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Pow)):
        left, right = sub(node.left), sub(node.right)
        if left is None or right is None:
            return None
        return ast.BinOp(left=left, op=node.op, right=right)
    if isinstance(node, ast.Call) and _callee(node) in SAFE_CALLS:
        args = [sub(a) for a in node.args if not isinstance(a, ast.Starred)]
        kws = [(k.arg, sub(k.value)) for k in node.keywords]
        if len(args) != len(node.args) or any(a is None for a in args):
            return None
        if any(k is None or v is None for k, v in kws):
            return None
        name = _callee(node)
        return ast.Call(
            func=ast.Name(id=name or "", ctx=ast.Load()),
            args=args,  # type: ignore[arg-type]
            keywords=[ast.keyword(arg=k, value=v) for k, v in kws],  # type: ignore[arg-type]
        )
    return None


def _module_env(tree: ast.Module) -> dict[str, ast.expr]:
    env: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                env[target.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            env[node.target.id] = node.value
    return env


def _rows(values: ast.expr, env: dict[str, ast.expr]) -> list[ast.expr]:
    """The rows of a parametrize table or a loop's iterable (a literal sequence or dict)."""
    if isinstance(values, ast.Name) and values.id in env:
        return _rows(env[values.id], env)
    if (
        isinstance(values, ast.Call)
        and isinstance(values.func, ast.Attribute)
        and values.func.attr == "items"
        and isinstance(values.func.value, (ast.Name, ast.Dict))
    ):
        d: ast.expr = values.func.value
        if isinstance(d, ast.Name):
            d = env.get(d.id, d)
        if isinstance(d, ast.Dict):
            return [ast.Tuple(elts=[k, v], ctx=ast.Load()) for k, v in zip(d.keys, d.values) if k]
        return []
    if isinstance(values, ast.Dict):
        return [k for k in values.keys if k is not None]
    if isinstance(values, (ast.List, ast.Tuple, ast.Set)):
        rows = []
        for elt in values.elts:
            if isinstance(elt, ast.Call) and _callee(elt) == "param":  # pytest.param(...)
                elt = ast.Tuple(elts=list(elt.args), ctx=ast.Load())
            rows.append(elt)
        return rows
    return []


def _bind(names: list[str], row: ast.expr) -> dict[str, ast.expr] | None:
    if len(names) == 1:
        return {names[0]: row}
    if isinstance(row, (ast.Tuple, ast.List)) and len(row.elts) == len(names):
        return dict(zip(names, row.elts))
    return None


def _target_names(target: ast.expr) -> list[str] | None:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)) and all(
        isinstance(e, ast.Name) for e in target.elts
    ):
        return [e.id for e in target.elts]  # type: ignore[attr-defined]
    return None


def _parametrize_bindings(
    fn: ast.FunctionDef, env: dict[str, ast.expr]
) -> list[dict[str, ast.expr]]:
    bindings: list[dict[str, ast.expr]] = [{}]
    for deco in fn.decorator_list:
        if not (
            isinstance(deco, ast.Call) and _callee(deco) == "parametrize" and len(deco.args) >= 2
        ):
            continue
        spec = deco.args[0]
        if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
            names = [n.strip() for n in spec.value.split(",") if n.strip()]
        elif isinstance(spec, (ast.Tuple, ast.List)):
            names = [str(e.value) for e in spec.elts if isinstance(e, ast.Constant)]
        else:
            continue
        rows = [b for b in (_bind(names, r) for r in _rows(deco.args[1], env)) if b is not None]
        bindings = [{**old, **new} for old in bindings for new in rows][:MAX_ROWS] or bindings
    return bindings


def _loop_bindings(fn: ast.AST, env: dict[str, ast.expr]) -> list[dict[str, ast.expr]]:
    out: list[dict[str, ast.expr]] = []
    for node in ast.walk(fn):
        if isinstance(node, ast.For):
            names = _target_names(node.target)
            if names:
                for row in _rows(node.iter, env):
                    b = _bind(names, row)
                    if b is not None:
                        out.append(b)
    return out[:MAX_ROWS]


def _arguments(nodes: list[ast.expr], scope: dict[str, ast.expr]) -> list[ast.expr] | None:
    """Positional arguments as plain values; ``*args`` is expanded when it is a literal sequence."""
    out: list[ast.expr] = []
    for node in nodes:
        if isinstance(node, ast.Starred):
            seq = _substitute(node.value, scope)
            if not isinstance(seq, (ast.Tuple, ast.List)):
                return None
            out.extend(seq.elts)
            continue
        value = _substitute(node, scope)
        if value is None:
            return None
        out.append(value)
    return out


def _calls_in(
    node: ast.AST,
    env: dict[str, ast.expr],
    bindings: list[dict[str, ast.expr]],
    ids_by_name: dict[str, list[str]],
    origin: str,
    with_line: bool = True,
) -> Iterator[Call]:
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        name = _callee(call)
        if name not in ids_by_name or any(k.arg is None for k in call.keywords):
            continue
        for binding in bindings:
            scope = {**env, **binding}
            args = _arguments(call.args, scope)
            if args is None:
                continue
            kws = [(k.arg or "", _substitute(k.value, scope)) for k in call.keywords]
            if any(v is None for _, v in kws):
                continue
            for fid in ids_by_name[name]:
                yield Call(
                    fid,
                    tuple(ast.unparse(a) for a in args),
                    tuple((k, ast.unparse(v)) for k, v in kws),  # type: ignore[arg-type]
                    f"{origin}:{call.lineno}" if with_line else origin,
                )


Helper = tuple[list[str], dict[str, ast.expr], list[ast.Call]]


def _helpers(tree: ast.Module, ids_by_name: dict[str, list[str]]) -> dict[str, list[Helper]]:
    """The test file's helpers: a function or method, not a test itself, whose body passes one
    of its own parameters to a public function (``def check(self, s, obj):
    self.assertEqual(loads(s), obj)``, then ``self.check('[1]', [1])`` in each test): name ->
    (its parameters, their defaults, those calls). unittest suites keep their inputs there."""
    out: dict[str, list[Helper]] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name in ids_by_name:
            continue
        if fn.name.startswith("test"):
            continue
        positional = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
        params = positional[1:] if positional[:1] in (["self"], ["cls"]) else positional
        defaults = dict(
            zip(positional[len(positional) - len(fn.args.defaults) :], fn.args.defaults)
        )
        kwonly = [a.arg for a in fn.args.kwonlyargs]
        defaults.update(
            {a.arg: d for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None}
        )
        names = set(params) | set(kwonly)
        calls = [
            c
            for c in ast.walk(fn)
            if isinstance(c, ast.Call)
            and _callee(c) in ids_by_name
            and any(
                isinstance(n, ast.Name) and n.id in names
                for a in (*c.args, *(k.value for k in c.keywords))
                for n in ast.walk(a)
            )
        ]
        if calls:
            out.setdefault(fn.name, []).append((params, defaults, calls))
    return out


def _through_helpers(
    fn: ast.AST,
    env: dict[str, ast.expr],
    bindings: list[dict[str, ast.expr]],
    helpers: dict[str, list[Helper]],
    ids_by_name: dict[str, list[str]],
    label: str,
) -> Iterator[Call]:
    """The calls a test makes through its file's helpers: each helper call's arguments (bound
    from the test's rows) bind the helper's parameters in the calls it makes."""
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call) or _callee(node) not in helpers:
            continue
        for binding in bindings:
            scope = {**env, **binding}
            given = [_substitute(a, scope) for a in node.args if not isinstance(a, ast.Starred)]
            named = {k.arg: _substitute(k.value, scope) for k in node.keywords if k.arg}
            for params, defaults, calls in helpers[_callee(node) or ""]:
                bound = {**defaults, **dict(zip(params, given)), **named}
                values = {k: v for k, v in bound.items() if v is not None}
                for call in calls:
                    for c in _calls_in(call, {}, [values], ids_by_name, label, with_line=False):
                        yield replace(c, origin=f"{label}:{node.lineno} (through a helper)")


def calls_from_tests(path: Path, ids_by_name: dict[str, list[str]], label: str) -> list[Call]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return []
    env = _module_env(tree)
    helpers = _helpers(tree, ids_by_name)
    out: list[Call] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bindings = _parametrize_bindings(node, env)  # type: ignore[arg-type]
            loops = _loop_bindings(node, env)
            all_bindings = bindings + [{**b, **lb} for b in bindings[:1] for lb in loops]
            out.extend(_calls_in(node, env, all_bindings, ids_by_name, label))
            if helpers and node.name not in helpers:
                out.extend(_through_helpers(node, env, all_bindings, helpers, ids_by_name, label))
    # calls at module level (tables built by calling the function, doctest-like scripts)
    for stmt in tree.body:
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.extend(_calls_in(stmt, env, [{}], ids_by_name, label))
    return out


def calls_from_docstrings(path: Path, ids_by_name: dict[str, list[str]], label: str) -> list[Call]:
    """``>>> f(...)`` examples in the docstrings (and comments) of a source file."""
    out: list[Call] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (UnicodeDecodeError, OSError):
        return []
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if not text.startswith(">>> "):
            continue
        try:
            tree = ast.parse(text[4:].strip())
        except SyntaxError:
            continue
        out.extend(_calls_in(tree, {}, [{}], ids_by_name, f"{label}:{n}", with_line=False))
    return out


def generic_calls(functions: Iterable[str]) -> list[Call]:
    return [Call(fid, (value,), (), "generic pool") for fid in functions for value in GENERIC_POOL]


def positional_params(src: Path) -> dict[str, int]:
    """How many parameters each public function takes by position (``*args`` not counted)."""
    out: dict[str, int] = {}
    trees: dict[Path, ast.Module] = {}
    for fid, path in public_functions(src).items():
        tree = trees.setdefault(path, ast.parse(path.read_text(encoding="utf-8")))
        name = fid.rsplit(".", 1)[1]
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                out[fid] = len(node.args.posonlyargs) + len(node.args.args)
    return out


def position_variants(calls: list[Call], arity: dict[str, int]) -> list[Call]:
    """The generic pool in every argument position: in each position (and keyword) of the
    first few calls the tests and docstrings make, and in the positions after their last
    positional argument that the function takes, the others kept as the call had them."""
    templates: dict[str, list[Call]] = {}
    for c in calls:
        if c.origin != "generic pool" and len(templates.setdefault(c.function, [])) < TEMPLATES:
            templates[c.function].append(c)
    out: list[Call] = []
    for fid, found in templates.items():
        for t in found:
            positions = max(len(t.args), min(arity.get(fid, 0), len(t.args) + 1))
            for i in range(positions):
                head, tail = t.args[:i], t.args[i + 1 :] if i < len(t.args) else ()
                for v in GENERIC_POOL:
                    origin = f"generic pool as argument {i + 1} of {t.origin}"
                    out.append(Call(fid, (*head, v, *tail), t.kwargs, origin))
            for j, (k, _) in enumerate(t.kwargs):
                for v in GENERIC_POOL:
                    kw = (*t.kwargs[:j], (k, v), *t.kwargs[j + 1 :])
                    out.append(Call(fid, t.args, kw, f"generic pool as {k}= of {t.origin}"))
    return out


def harvest(
    functions: Iterable[str],
    test_files: Iterable[tuple[Path, str]],
    source_files: Iterable[tuple[Path, str]],
    arity: dict[str, int] | None = None,
) -> list[Call]:
    """Every call to try, deduplicated (the first origin of an input is kept), per function
    capped: the tests' calls, the docstrings', the generic pool as the first argument, then
    the generic pool in every position of the tests' calls (``position_variants``)."""
    ids = sorted(functions)
    ids_by_name: dict[str, list[str]] = {}
    for fid in ids:
        ids_by_name.setdefault(fid.rsplit(".", 1)[1], []).append(fid)
    found: list[Call] = []
    for path, label in test_files:
        found.extend(calls_from_tests(path, ids_by_name, label))
    for path, label in source_files:
        found.extend(calls_from_docstrings(path, ids_by_name, label))
    found.extend(generic_calls(ids))
    found.extend(position_variants(found, arity or {}))
    seen: dict[str, Call] = {}
    per_function: dict[str, int] = {}
    for c in found:
        if c.key in seen or per_function.get(c.function, 0) >= MAX_CALLS_PER_FUNCTION:
            continue
        seen[c.key] = c
        per_function[c.function] = per_function.get(c.function, 0) + 1
    return list(seen.values())


# -- running ------------------------------------------------------------------------------

RUNNER = (
    SHOWN
    + r"""
import contextlib, datetime, decimal, fractions, importlib, io, itertools, json, os, re, resource, select, signal, sys, time, types
sys.path.insert(0, sys.argv[1])
MESSAGES = len(sys.argv) > 2 and sys.argv[2] == "messages"
NS = {"timedelta": datetime.timedelta, "date": datetime.date, "datetime": datetime.datetime,
      "time": datetime.time, "Decimal": decimal.Decimal, "Fraction": fractions.Fraction}
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
def plain(v):
    # equal values print alike: an OrderedDict equals the dict with the same items
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if type(v) in (list, tuple):
        return type(v)(plain(x) for x in v)
    return v
def alarm(signum, frame):
    raise TimeoutError("call took too long")
# CPU time, not wall time: a call's limit must not depend on what else the machine runs
# (a toy call timed out at load 7 with a wall timer); a call blocked in a sleep or a read
# is stopped from outside, by the group's deadline
signal.signal(signal.SIGPROF, alarm)
def outcome(fid, args, kwargs):
    module, name = fid.rsplit(".", 1)
    try:
        fn = getattr(importlib.import_module(module), name)
    except Exception as e:
        return f"import-error:{module}: {type(e).__name__}: {e}"
    try:
        a = [eval(x, dict(NS)) for x in args]
        k = {key: eval(v, dict(NS)) for key, v in kwargs}
    except Exception as e:
        return "bad-input:" + type(e).__name__
    signal.setitimer(signal.ITIMER_PROF, 1.0)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            value = fn(*a, **k)
            if isinstance(value, (types.GeneratorType, map, filter, zip)) or (
                hasattr(value, "__next__") and hasattr(value, "__iter__")
            ):
                # the first items of an iterator (it may never end)
                value = list(itertools.islice(value, 1000))
        return "value:" + shown(ADDRESS.sub("", repr(plain(value))))
    except TimeoutError:
        return "timeout"
    except BaseException as e:
        if MESSAGES:
            return "raised:" + type(e).__name__ + ": " + ADDRESS.sub("", str(e))[:300]
        return "raised:" + type(e).__name__
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
def isolated(group):
    # one child per function: module state one function's calls change (a locale switched
    # on, a cache filled) never reaches another function's calls
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        # what the calls print goes nowhere: the runner's stdout carries only its JSON answer
        # (a tracing wrapper writes to fd 1 after redirect_stdout is gone: boltons' wrap_trace)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        sys.stdout = open(os.devnull, "w")
        # a call that builds something huge in C (no signal reaches it) fails, not the host
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        out, slow = [], 0
        for c in group:
            # a function that hangs on three inputs is not waited for on the rest
            out.append("timeout" if slow >= 3 else outcome(*c))
            slow += out[-1] == "timeout"
        data = json.dumps(out).encode()
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    # and one that loops in C past its timer is stopped from outside
    deadline = time.monotonic() + 20 + 2 * len(group)
    chunks = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([r], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    else:
        chunks = []
    if time.monotonic() >= deadline:
        os.kill(pid, signal.SIGKILL)
        chunks = []
    os.close(r)
    os.waitpid(pid, 0)
    data = b"".join(chunks)
    try:
        return json.loads(data)
    except ValueError:
        return ["timeout"] * len(group)
calls = json.load(sys.stdin)
groups = {}
for i, c in enumerate(calls):
    groups.setdefault(c[0], []).append(i)
result = [None] * len(calls)
for fid, indexes in groups.items():
    for i, o in zip(indexes, isolated([calls[i] for i in indexes])):
        result[i] = o
json.dump(result, sys.stdout)
"""
)


def run_calls(src: Path, calls: list[Call], python: str = "", messages: bool = False) -> list[str]:
    """The outcome of each call against the package under ``src``, in a fresh interpreter
    (with ``messages``, an exception's message is part of its outcome)."""
    payload = [[c.function, list(c.args), [list(k) for k in c.kwargs]] for c in calls]
    mode = "messages" if messages else "types"
    return run_beside(RUNNER, src, payload, "differential run", (mode,), python)


def _missing_module(outcome: str) -> bool:
    return ": ModuleNotFoundError: " in outcome or ": ImportError: " in outcome


def changed_functions(old_src: Path, new_src: Path, calls: list[Call]) -> dict[str, Change]:
    """Functions whose stable outcome differs between the releases: id -> the first change."""
    old1 = run_calls(old_src, calls)
    old2 = run_calls(old_src, calls)
    new = run_calls(new_src, calls)
    # a module that needs an optional dependency this interpreter lacks fails alike at both
    # releases (humanfriendly.sphinx imports docutils): its functions are left out
    optional = {o for o in old1 if o.startswith("import-error")} & set(new)
    # a module of the old release that this interpreter cannot run (boltons 21's ecoutils
    # reads pprint._safe_repr, gone in 3.11) is left out too: no pool can call it there. A
    # missing module (ImportError) still stops the run below: it may be a missing dependency.
    optional |= {o for o in old1 if o.startswith("import-error") and not _missing_module(o)}
    keep = [i for i, o in enumerate(old1) if o not in optional]
    calls = [calls[i] for i in keep]
    old1, old2, new = ([x[i] for i in keep] for x in (old1, old2, new))
    for outcomes, src in ((old1, old_src), (new, new_src)):
        failed = next((o for o in outcomes if o.startswith("import-error")), None)
        if failed:  # a missing dependency would pass for a change of behaviour
            raise RuntimeError(f"cannot import the package under {src}: {failed}")
    first: dict[str, Change] = {}
    differing: dict[str, int] = {}
    compared: dict[str, int] = {}
    for call, a, b, n in zip(calls, old1, old2, new):
        if a != b or "timeout" in (a, n) or a.startswith("bad-input") or n.startswith("bad-input"):
            continue
        compared[call.function] = compared.get(call.function, 0) + 1
        if a != n:
            differing[call.function] = differing.get(call.function, 0) + 1
            first.setdefault(call.function, Change(call.function, call, a, n))
    return {
        fid: replace(ch, differing=differing[fid], compared=compared[fid])
        for fid, ch in first.items()
    }
