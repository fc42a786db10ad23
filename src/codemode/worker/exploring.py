"""The worker's side of exploration beyond plain calls (stdlib only, loaded by ``runner.py``).

- ``eval_exprs``: the arguments of a docstring example or a test call that are not literals
  (``date(2024, 1, 31)``), evaluated with the target module's globals, and the instance the
  test built and prepared with them (``built``, #32).
- ``run_mutants``: the candidate calls run against the function and each of its in-memory
  mutants (see ``mutants.py``); one reply per mutant names the calls whose outcome differs.
"""

from __future__ import annotations

import copy
import signal
import sys
import time

from .policy import TargetError, import_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MUTANT_BUDGET = 0.5  # seconds of calls per mutant; the rest of its calls are not run
CALL_LIMIT = 0.5  # seconds for one call of a mutant: a loop made endless is a kill
KILLERS = 2  # calls that kill a mutant, enough to choose from: the rest are not run
TOTAL_BUDGET = 8.0  # seconds for all mutants of one function (the request may say less)
# Every budget here is this process's CPU time (_cpu), which a loaded machine does not stretch;
# a call that waits without running (a sleep made endless) is stopped on the clock after
# REAL_FACTOR times its CPU limit (at least REAL_MIN s), and the clock also bounds a mutant's
# calls (WALL_FACTOR x its budget, under the parent's REPLY_TIMEOUT) and a function's.
REAL_FACTOR = 4.0
REAL_MIN = 0.5
WALL_FACTOR = 3.0  # a function whose calls wait on I/O: 24 s at most, not the 8 s of CPU
_cpu = time.process_time


def _plain(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` can be written in a YAML case and read back the same."""
    if depth > 20:
        return False
    if value is None or type(value) in (bool, int, float, str, bytes):
        return True
    dt = sys.modules.get("datetime")
    if dt is not None and type(value) in (dt.date, dt.datetime):
        return True
    if type(value) in (list, tuple):
        return all(_plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    return False


def built(
    case: dict[str, Any],
    module: Any,
    out: dict[str, Any],
    fx: dict[str, Any],
    args: list[Any],
    kwargs: dict[str, Any],
    early: bool,
) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """A docstring's or a test's call built with the module's globals (``case["exprs"]``):
    ``early``, before the instance is bound, when the test built the instance with them too
    (``exprs["self"]``, #32); else after. A prepared instance (a recipe's calls, or built
    by the expressions) has its digest in ``out["built"]``: the diff compares the versions
    only where both prepared the same one."""
    exprs = case.get("exprs")
    prepared = bool(exprs) and "self" in exprs
    if exprs and early == prepared:
        args, kwargs, fx = eval_exprs(case, module, out, fx)
    recipe = case.get("self")
    if early and (prepared or getattr(recipe, "calls", None)) and "\u0000self" in fx:
        receiver_digest(fx["\u0000self"], out)
    return args, kwargs, fx


def eval_exprs(
    case: dict[str, Any], module: Any, out: dict[str, Any], fx: dict[str, Any]
) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """The arguments of ``case["exprs"]``, evaluated, and ``fx`` with the instance first when
    the test built it with them (``exprs["self"]``: after the setup lines that prepare it,
    #32); ``out`` gets the arguments when each has a YAML form. Else a case with
    ``built_args`` (the behaviour diff: it compares the versions on the objects the tests
    build, #32) runs all the same, without them in ``out``; any other raises ValueError."""
    exprs, built = case["exprs"], bool(case.get("built_args"))
    ns = dict(vars(module)) if module is not None else {}
    for line in str(exprs.get("setup") or "").splitlines():  # the test file's imports
        try:
            exec(line, ns)
        except Exception:
            pass
    if exprs.get("self"):
        fx = {"\u0000self": eval(exprs["self"], ns), **fx}
    args = [eval(src, ns) for src in exprs.get("args", [])]
    kwargs = {k: eval(src, ns) for k, src in exprs.get("kwargs", {}).items()}
    odd = [f"args[{i}]" for i, v in enumerate(args) if not _plain(v)]
    odd += [f"kwargs[{k!r}]" for k, v in kwargs.items() if not _plain(v)]
    if odd:
        if built:
            out["built"] = _digest(args, kwargs)
            return args, kwargs, fx
        # which one: regen builds it with a fixture as the tests build it (#32)
        raise ValueError(f"an argument has no YAML form ({odd[0]})")
    out["args"], out["kwargs"] = copy.deepcopy(args), copy.deepcopy(kwargs)
    return args, kwargs, fx


def receiver_digest(value: Any, out: dict[str, Any]) -> None:
    """The prepared instance's digest, added to ``out["built"]`` (before the call changes
    it): a preparation that runs the changed code gives each version another instance."""
    out["built"] = f"{out.get('built') or ''}@{_digest([value], {})}"


def _digest(args: list[Any], kwargs: dict[str, Any]) -> str:
    """A short digest of arguments with no YAML form, from their canonical data (addresses
    left out), or "" when they have none. The behaviour diff compares the versions on a test's
    call only when both built the same arguments: a setup that runs the changed code (``o =
    loads(dumps(d)); dumps(o)``) hands each version another input, and the difference was
    the input's, not the function's (#32: toml 0.10.1's dumps, a false alarm)."""
    import hashlib
    import json
    import re

    from .canonical import canonical

    try:
        data = canonical([args, kwargs])
        try:
            text = json.dumps(data, sort_keys=True, default=repr)
        except TypeError:  # keys of several types: in their own order
            text = json.dumps(data, default=repr)
    except Exception:
        return ""
    text = re.sub(r"0x[0-9a-fA-F]{4,}", "0x", text)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _code_holder(obj: Any) -> Any:
    """The plain function whose ``__code__`` is the target's behaviour."""
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        obj = obj.fget
    seen = 0
    while hasattr(obj, "__wrapped__") and seen < 10:
        obj = obj.__wrapped__
        seen += 1
    return obj if hasattr(obj, "__code__") else None


def _norm(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _norm(v) for k, v in value.items()}
    return value


def _key(out: dict[str, Any]) -> str:
    import json

    kind = out.get("outcome")
    if kind == "returned":
        return json.dumps(["returned", _norm(out.get("value"))], sort_keys=True, default=str)
    if kind == "raised":
        exc = out.get("exc") or {}
        message = exc.get("message") if exc.get("origin") == "project" else ""
        return json.dumps(["raised", exc.get("type"), message])
    return json.dumps([kind])


class _Hang(BaseException):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Hang()


class Calls:
    """Runs the request's cases through the runner, as ``check`` runs them."""

    def __init__(self, runner: Any, req: dict[str, Any], target: tuple[Any, Any, Any]) -> None:
        self.runner, self.req, self.target = runner, req, target
        self.fixture_specs = {f["name"]: f for f in req.get("fixtures", [])}
        self.eval_values: dict[str, Any] = {}
        self.eval_teardowns: list[Any] = []

    def one(self, case: dict[str, Any], limit: float) -> dict[str, Any]:
        """One call, stopped after ``limit`` seconds of this process's CPU (a mutant's loop
        made endless), or ``REAL_FACTOR`` times that on the clock (one that waits forever):
        CPU, not the clock, so a loaded machine's regen chooses the cases an idle one's does
        (a call descheduled for 60 ms was counted a hang, and its mutant killed)."""
        obj, owner, module = self.target
        use_alarm = hasattr(signal, "setitimer")
        if use_alarm:
            old = signal.signal(signal.SIGALRM, _on_alarm)
            old_prof = signal.signal(signal.SIGPROF, _on_alarm)
        try:
            # The alarm may go off before the call starts or after it returned, before it is
            # disarmed: the _Hang is then raised in the inner block and still caught here.
            # Raised outside, it ended the worker and the function's mutation analysis with
            # it (a loaded machine's regen wrote other cases than an idle one's, #20).
            try:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_PROF, limit)
                    signal.setitimer(signal.ITIMER_REAL, max(REAL_MIN, REAL_FACTOR * limit))
                return dict(
                    self.runner.run_case(
                        obj,
                        owner,
                        module,
                        case,
                        self.req,
                        self.fixture_specs,
                        self.eval_values,
                        self.eval_teardowns,
                        self.req.get("file_key", ""),
                    )
                )
            finally:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_PROF, 0)
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except _Hang:
            return {"outcome": "timeout"}
        finally:
            if use_alarm:
                signal.signal(signal.SIGALRM, old)
                signal.signal(signal.SIGPROF, old_prof)

    def close(self) -> None:
        for td in reversed(self.eval_teardowns):
            try:
                td()
            except Exception:
                pass


def _sites(func: Any) -> tuple[Any, Any, list[str], list[tuple[str, int]]]:
    import ast

    from . import mutants as mut

    code = func.__code__
    with open(code.co_filename, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    found = mut.find_function(tree, code.co_name, code.co_firstlineno)
    if found is None:
        return mut, None, [], []
    fn, owners = found
    return mut, fn, owners, mut.count(fn)


def run_mutants(runner: Any, req: dict[str, Any]) -> None:
    try:
        target = import_path(req["target"])
    except TargetError as exc:
        runner.send({"fatal": exc.kind, "message": str(exc)})
        return
    func = _code_holder(target[0])
    try:
        mut, fn, owners, sites = _sites(func) if func is not None else (None, None, [], [])
    except (OSError, SyntaxError, ValueError) as exc:
        mut, fn, owners, sites = None, None, [], []
        runner.send({"note": f"no source to mutate: {exc}"})
    runner.send({"sites": [list(s) for s in sites]})
    calls = Calls(runner, req, target)
    try:
        _run_sites(runner, req, calls, func, mut, fn, owners, sites)
    finally:
        calls.close()
    runner.send({"done": True})


def _run_sites(
    runner: Any,
    req: dict[str, Any],
    calls: Calls,
    func: Any,
    mut: Any,
    fn: Any,
    owners: list[str],
    sites: list[tuple[str, int]],
) -> None:
    cases = list(req.get("cases", []))
    if not sites:
        return
    base: list[str] = []
    limits: list[float] = []
    for case in cases:
        t0 = _cpu()
        base.append(_key(calls.one(case, CALL_LIMIT * 5)))
        limits.append(min(CALL_LIMIT, 0.05 + 20 * (_cpu() - t0)))
    original = func.__code__
    cached = getattr(calls.target[0], "cache_clear", None)  # an lru_cache would hide mutants
    budget = float(req.get("budget", TOTAL_BUDGET))
    deadline, wall_deadline = _cpu() + budget, time.perf_counter() + WALL_FACTOR * budget
    for k in range(len(sites)):
        if _cpu() > deadline or time.perf_counter() > wall_deadline:
            break  # the mutants not run are not counted
        code = mut.compile_mutant(fn, owners, original.co_filename, k)
        if code is None or code.co_freevars != original.co_freevars:
            runner.send({"mutant": k, "skipped": True})
            continue
        killed: list[str] = []
        func.__code__ = code
        try:
            if callable(cached):
                cached()
            started, wall = _cpu(), time.perf_counter()
            for case, want, limit in zip(cases, base, limits):
                if (
                    _cpu() - started > MUTANT_BUDGET
                    or time.perf_counter() - wall > WALL_FACTOR * MUTANT_BUDGET
                ):
                    break
                if _key(calls.one(case, limit)) != want:
                    killed.append(case["id"])
                    if len(killed) >= KILLERS:
                        break
        finally:
            func.__code__ = original
            if callable(cached):
                cached()
        runner.send({"mutant": k, "killed_by": killed})
