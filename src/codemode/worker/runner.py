"""Running cases: one function block per request, in a forked child (children.py), each call's outcome
in canonical data. Stdlib only; runs inside the worker."""

from __future__ import annotations

import io
import os
import sys
import time
import types
from collections.abc import Awaitable, Callable, Iterable

from . import wall
from .canonical import COLLISIONS, MAX_REPLY_CHARS, canonical, dumps, qualname, realize, typed
from .clock import ShiftedClock, clock_watch
from .fixtures import Fixtures, apply_serializer
from .params import positional_only
from .policy import TargetError, exc_line, import_path
from .typeexpr import type_answer

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~4 ms of every start
if TYPE_CHECKING:
    from typing import Any


def _last_frame(exc: BaseException) -> types.TracebackType | None:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


# --- running cases ----------------------------------------------------------------------


class Discard(io.TextIOBase):
    """``sys.stdout`` in the worker: what the function prints goes nowhere."""

    def write(self, s: str) -> int:
        return len(s)


def _line_tracer(code_filter: Callable[[Any], bool], lines: set[int]) -> Callable[..., Any]:
    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    def global_(frame: Any, event: str, arg: Any) -> Any:
        if event == "call" and code_filter(frame.f_code):
            lines.add(frame.f_lineno)
            return local
        return None

    return global_


# A block asked with ``batch`` (pool.Worker.run) writes its case replies together, in one
# write with its ``done``, not one write each: every write woke the worker's relay and then
# the parent, three processes' turns per case on two cores (#20). Replies held longer than
# this go out at once, so a slow block still reports as it goes. A crash or a hang loses
# the replies held: the parent then runs the block's unanswered cases again, one reply a
# write, so the error falls on the case that caused it.
FLUSH_AFTER = 0.05  # seconds

# The leak check compares dicts by their version tags (dictversions.py) in children forked once
# this worker has run this many blocks: reading them costs ctypes' import and a self-test,
# ~3 ms once, and saves ~25 ns per watched key and value per block (~0.4 ms a block in a
# 100-module project); a hook run of a few blocks never pays for it.
TAGS_AFTER = 16


def _too_big(msg: dict[str, Any], size: int) -> dict[str, Any]:
    what = "output" if msg.get("outcome") == "returned" else "reply"
    return {
        "case": msg["case"],
        "outcome": "error",
        "message": f"the {what} is {size / 1e6:.1f} MB as data, over the "
        f"{MAX_REPLY_CHARS / 1e6:g} MB one case may return; check a summary of it (its "
        "length, a few items) with an assertion, or return less",
        "duration_ms": msg.get("duration_ms"),
    }


def _shares_file_state(req: dict[str, Any]) -> bool:
    """A block with a ``scope: file`` fixture shares that value with the file's other blocks
    on purpose (vowel's semantics): it runs in the worker itself, where the value lives."""
    scopes = {f.get("name"): f.get("scope") for f in req.get("fixtures", [])}
    return any(scopes.get(n) == "file" for n in req.get("fixture_names", []))


def _before_fork() -> None:
    """What every child needs, imported once in the worker, not once in each child (~1 ms
    each, and a 100-module run forks 100 children): the leak check, and ``opcode`` that
    ``_raise_origin`` reads. Neither is the project's: the leak check ignores them."""
    import opcode  # noqa: F401

    from . import leaks  # noqa: F401


def _brought_up_to_date(snap: Any, tags: bool) -> Any:
    """``snap`` after the imports since it was taken (leaks.Snapshot.refresh), or None where it
    cannot be (a module left sys.modules; a new module holds state it cannot read, as an
    ``lru_cache``): then the block that follows is the child's last."""
    snap.tags = tags
    try:
        return snap if snap.refresh() else None
    except Exception:  # Opaque, RecursionError, an attribute that raises when read
        return None


class Runner:
    def __init__(self, proto: Any, fork: bool = False) -> None:
        self.proto = proto
        self.fixtures = Fixtures()
        self.fork = fork  # function blocks run in forked children (see run)
        self.child: Any = None  # the live child (children.py), if any
        self.snap: Any = None  # leaks.Snapshot of this worker's state, for the next child
        self.snap_modules = -1  # len(sys.modules) when snap was last taken (None: opaque)
        self.line = ""  # the request being handled, as it came (a child gets it verbatim)
        self.batch = False  # this block's case replies go out together (see FLUSH_AFTER)
        self.flushed = 0.0  # perf_counter at the last flush of the replies
        self.blocks = 0  # function blocks this worker has run or relayed (TAGS_AFTER)
        self.wall = "none"  # which layers of the wall hold here (runtime._raise_wall)

    def send(self, msg: dict[str, Any]) -> None:
        line = dumps(msg)
        if len(line) > MAX_REPLY_CHARS and "case" in msg:
            line = dumps(_too_big(msg, len(line)))
        self.proto.write(line + "\n")
        if self.batch and "case" in msg and time.perf_counter() - self.flushed < FLUSH_AFTER:
            return  # written with the block's next reply, its done or a fatal (run_cases)
        self.proto.flush()
        self.flushed = time.perf_counter()

    def handle(self, req: dict[str, Any]) -> None:
        op = req.get("op")
        if op == "hello":
            self.send({"ok": True, "fork": self.fork, "wall": self.wall})
        elif op == "run":
            self.run(req)
        elif op == "end_file":
            self.retire()
            self.send({"ok": True, "errors": self.fixtures.end_file(req.get("key", ""))})
        elif op == "mutate":
            self.retire()
            from . import exploring  # only when exploring

            exploring.run_mutants(self, req)
        else:
            self.send({"fatal": "protocol", "message": f"unknown op {op!r}"})

    def run(self, req: dict[str, Any]) -> None:
        target = req["target"]
        self.blocks += 1
        try:
            obj, owner, module = import_path(target)
        except TargetError as exc:
            self.send({"fatal": exc.kind, "message": str(exc)})
            return
        # A `main()` under test parses the argv of `python -m its.module`, not the worker's.
        sys.argv = [getattr(module, "__file__", None) or target]
        if not self.fork or not req.get("isolate", True) or _shares_file_state(req):
            self.retire()
            self.run_cases(obj, owner, module, req)
            return
        # In a forked child: module state its cases change dies with the child, so no verdict
        # depends on which other functions ran before in this worker (#12, children.py).
        from . import children

        if self.child is None:
            self.proto.flush()
            self._snapshot()
            self.child = children.spawn(self._child_main, self.proto.fileno())
        self.proto.flush()
        child = self.child
        stay = children.relay(child, req, self.line, self.proto.buffer)
        if stay:
            return
        self.child = None
        status = child.close(kill=False)
        if status is None:
            return
        if os.WIFSIGNALED(status):  # die the same death: the parent reports it and respawns
            os.kill(os.getpid(), os.WTERMSIG(status))
        elif os.waitstatus_to_exitcode(status) != children.CHILD_OK:
            os._exit(os.waitstatus_to_exitcode(status))

    def retire(self) -> None:
        """End the live child, if any: the worker is about to change its own state (so its
        snapshot is no longer what the next child starts from)."""
        self.snap, self.snap_modules = None, -1
        self._end_child()

    def _end_child(self) -> None:
        if self.child is not None:
            self.child.close(kill=True)
            self.child = None

    def _snapshot(self) -> None:
        """The state the next child starts from, taken here so every child inherits it
        (leaks.py): brought up to date after this worker's imports since the last fork."""
        from . import leaks
        from .policy import in_project

        _before_fork()
        if self.snap is None and self.snap_modules == len(sys.modules):
            return  # opaque, and nothing imported since: a child runs one block
        self.snap = leaks.snapshot(in_project, self.snap, self.blocks >= TAGS_AFTER)
        self.snap_modules = len(sys.modules)

    def _child_main(self, requests: Any, replies: Any) -> None:
        """The forked child: blocks from ``requests`` until one leaves state behind."""
        from .canonical import loads

        self.proto, self.child = replies, None
        wall.child_restrict()
        snap = self.snap  # the worker's, taken at the fork (_snapshot)
        if snap is not None:
            snap.forked()
        for line in requests:
            req = loads(line)
            try:
                before = len(sys.modules)
                obj, owner, module = import_path(req["target"])
                self.blocks += 1
                if snap is not None and len(sys.modules) != before:
                    # A module the worker imported after this child's fork, imported here too
                    # before the block runs (as the worker did): the snapshot is brought up to
                    # date as the worker's would be, and the child goes on. A fork per module
                    # cost ~5 ms (its pages copied as the child touches them), 100 a run.
                    snap = _brought_up_to_date(snap, self.blocks >= TAGS_AFTER)
                sys.argv = [getattr(module, "__file__", None) or req["target"]]
                self.run_cases(obj, owner, module, req)
            except TargetError as exc:
                self.send({"fatal": exc.kind, "message": str(exc)})
            except MemoryError:
                self.send({"fatal": "memory", "message": "the worker ran out of memory"})
                return
            stay = snap is not None and snap.unchanged()
            self.send({"stay": stay})
            if not stay:
                return

    def run_cases(self, obj: Any, owner: Any, module: Any, req: dict[str, Any]) -> None:
        file_key = req.get("file_key", "")
        fixture_specs = {f["name"]: f for f in req.get("fixtures", [])}
        eval_values: dict[str, Any] = {}
        eval_teardowns: list[Callable[[], None]] = []
        self.batch, self.flushed = bool(req.get("batch")), time.perf_counter()
        wall.for_block(req.get("effects"))
        try:
            for case in req["cases"]:
                if "types" not in case and req.get("types"):  # its function's, sent once (#36)
                    case["types"] = req["types"]
                self.send(
                    self.run_case(
                        obj,
                        owner,
                        module,
                        case,
                        req,
                        fixture_specs,
                        eval_values,
                        eval_teardowns,
                        file_key,
                    )
                )
        finally:
            for td in reversed(eval_teardowns):
                try:
                    td()
                except Exception:
                    pass
            self.batch = False
        self.send({"done": True})

    def _fixture_values(
        self,
        names: Iterable[str],
        specs: dict[str, dict[str, Any]],
        eval_values: dict[str, Any],
        eval_teardowns: list[Callable[[], None]],
        case_teardowns: list[Callable[[], None]],
        file_key: str,
    ) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name in names:
            spec = specs[name]
            scope = spec.get("scope", "case")
            if scope == "file" and (file_key, name) in self.fixtures.file_values:
                values[name] = self.fixtures.file_values[(file_key, name)]
                continue
            if scope == "eval" and name in eval_values:
                values[name] = eval_values[name]
                continue
            value, td = self.fixtures.setup(spec)
            values[name] = value
            if scope == "file":
                self.fixtures.file_values[(file_key, name)] = value
                if td:
                    self.fixtures.file_teardowns.setdefault(file_key, []).append(td)
            elif scope == "eval":
                eval_values[name] = value
                if td:
                    eval_teardowns.append(td)
            elif td:
                case_teardowns.append(td)
        return values

    def run_case(
        self,
        obj: Any,
        owner: Any,
        module: Any,
        case: dict[str, Any],
        req: dict[str, Any],
        fixture_specs: dict[str, dict[str, Any]],
        eval_values: dict[str, Any],
        eval_teardowns: list[Callable[[], None]],
        file_key: str,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"case": case.get("id")}
        case_teardowns: list[Callable[[], None]] = []
        wall.take()  # what an import or another case was refused is theirs
        try:
            try:
                fx = self._fixture_values(
                    req.get("fixture_names") or (),
                    fixture_specs,
                    eval_values,
                    eval_teardowns,
                    case_teardowns,
                    file_key,
                )
                if case.get("build"):  # an explorer's call: recipes become real objects
                    case = {
                        **case,
                        "args": realize(case.get("args", [])),
                        "kwargs": realize(case.get("kwargs", {})),
                    }
                    if case.get("self") is not None:
                        fx = {"\u0000self": realize(case["self"]), **fx}
                args, kwargs = apply_serializer(case, req.get("serializer"))
                if isinstance(owner, type) and isinstance(kwargs.get("self"), owner):
                    fx = {"\u0000self": kwargs.pop("self"), **fx}  # a receiver recipe (#22)
                build = _building(case)  # a test's call, built as the test builds it
                args, kwargs, fx = build(case, module, out, fx, args, kwargs, True)
                func, fx = _bind(obj, owner, fx)
                args, kwargs, fx = build(case, module, out, fx, args, kwargs, False)
            except TargetError as exc:
                out.update(outcome="error", message=str(exc))
                return out
            except BaseException as exc:
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    raise
                out.update(
                    outcome="error", message="fixture or serializer failed: " + exc_line(exc)
                )
                return out
            kwargs.update(fx)
            return _call(func, args, kwargs, module, case, out)
        finally:
            for td in reversed(case_teardowns):
                try:
                    td()
                except Exception:
                    pass
            wall.settle(out)


def _building(case: dict[str, Any]) -> Callable[..., Any]:
    """worker/exploring.py's ``built`` for a call built from expressions or on a prepared
    instance; else a step that changes nothing: a check's plain case does not import it."""
    if case.get("exprs") or getattr(case.get("self"), "calls", None):
        from . import exploring

        return exploring.built
    return _as_is


def _as_is(case: Any, module: Any, out: Any, fx: Any, args: Any, kwargs: Any, early: bool) -> Any:
    return args, kwargs, fx


def _trace_lines(func: Any, lines: set[int]) -> bool:
    """Record the lines of ``func`` (and of code defined inside it) that run; False if it has none."""
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    if code is None:
        return False
    fname = code.co_filename
    first = code.co_firstlineno
    last = (
        max((ln for _, _, ln in code.co_lines() if ln), default=first)
        if hasattr(code, "co_lines")
        else first
    )
    sys.settrace(
        _line_tracer(lambda c: c.co_filename == fname and first <= c.co_firstlineno <= last, lines)
    )
    return True


def _convert(result: Any, module: Any, case: dict[str, Any], out: dict[str, Any]) -> None:
    """The returned value's canonical form and type answers into ``out``. Apart from the call:
    a value whose conversion raises (an ``__iter__`` that raises, dict keys that cannot be
    sorted) is an error of the case, never an exception the function raised (#21)."""
    try:
        COLLISIONS.clear()
        value = canonical(result)
        if COLLISIONS:
            raise ValueError(COLLISIONS[0])
        extra: dict[str, Any] = {}
        if case.get("typed"):
            extra["typed"] = typed(result)
        types = case.get("types") or []
        if types:
            ns = vars(module) if module is not None else {}
            extra["types"] = [
                type_answer(result, t["expr"], bool(t.get("strict")), ns) for t in types
            ]
    except (SystemExit, Exception) as exc:
        try:
            text = exc_line(exc)[:2000]
        except Exception:  # an exception whose str() raises too
            text = type(exc).__name__
        out.update(outcome="error", message="the returned value could not be converted: " + text)
        return
    if case.get("after") and callable(result) and not isinstance(result, type):
        extra["callable"] = True  # the behaviour diff calls it next (worker/returned.py)
    out.update(outcome="returned", value=value, **extra)


def _call(
    func: Any,
    args: list[Any],
    kwargs: dict[str, Any],
    module: Any,
    case: dict[str, Any],
    out: dict[str, Any],
) -> dict[str, Any]:
    """Call the target once: what it returned (canonical, with its type answers) or raised."""
    if kwargs:
        args = positional_only(func, args, kwargs)
    before = _state(func, args, kwargs) if case.get("after") else None  # before any watching
    lines: set[int] = set()
    tracing = bool(case.get("trace")) and _trace_lines(func, lines)
    clock: list[str] = []
    watching = bool(case.get("watch_clock"))
    if watching:
        sys.setprofile(clock_watch(clock))
    shifted = ShiftedClock(float(case["clock_shift"])) if case.get("clock_shift") else None
    old_stdout = sys.stdout  # restored, should the function replace it
    t0 = time.perf_counter()
    try:
        if shifted is not None:
            with shifted:
                result = func(*args, **kwargs)
        else:
            result = func(*args, **kwargs)
        if case.get("then") is not None:  # a returned callable, called (the diff's, #32)
            from .returned import called

            result = called(result, case["then"])
        if type(result) not in _PLAIN_RESULTS:  # most returns: no awaitable, no iterator
            if _is_awaitable(result):
                import asyncio

                result = asyncio.run(_await(result))
            if hasattr(result, "__next__") or hasattr(result, "__anext__"):
                result = _consumed(result)  # a generator's items are its output (#22)
    except (SystemExit, Exception) as exc:
        elapsed = time.perf_counter() - t0
        out.update(outcome="raised", exc=_exc_info(exc))
    else:
        elapsed = time.perf_counter() - t0
        _convert(result, module, case, out)
    finally:
        sys.stdout = old_stdout
        if tracing:
            sys.settrace(None)
        if watching:
            sys.setprofile(None)
    out["duration_ms"] = elapsed * 1000.0
    if tracing:
        out["lines"] = sorted(lines)
    if clock:
        out["clock"] = clock[0]
    if before is not None:  # what the call left in its receiver and arguments (the diff, #32)
        out["after"] = [before, _state(func, args, kwargs)]
    return out


def _state(func: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    from .after import state  # the behaviour diff's alone: a check's worker never imports it

    return state(func, args, kwargs)


# Exact types that are neither awaitable nor iterators: a result of one needs neither check.
_PLAIN_RESULTS = frozenset({int, float, str, bool, type(None), list, dict, tuple, bytes, set})


def _consumed(result: Any) -> Any:
    from . import builders as forms

    if forms.is_iterator(result):
        return forms.consume(result)
    if forms.is_async_iterator(result):
        import asyncio

        return asyncio.run(forms.consume_async(result))
    return result


async def _await(aw: Any) -> Any:
    return await aw


def _bind(obj: Any, owner: Any, fx: dict[str, Any]) -> tuple[Callable[..., Any], dict[str, Any]]:
    """A method id (``mod.Class.method``) runs on an instance: a fixture's, or ``Class()``."""
    if isinstance(owner, type):
        if isinstance(obj, staticmethod):
            return obj.__func__, fx
        if isinstance(obj, classmethod):
            return obj.__get__(None, owner), fx
        if isinstance(obj, (types.FunctionType, property)):
            instance = None
            rest = dict(fx)
            for name, value in fx.items():
                if isinstance(value, owner):
                    instance = value
                    del rest[name]
                    break
            if instance is None:
                try:
                    instance = owner()
                except Exception as exc:
                    raise TargetError(
                        "error",
                        f"{owner.__qualname__} needs an instance: add a fixture with "
                        f"`cls: {owner.__module__}.{owner.__qualname__}` (and its args) and list it "
                        f"under `fixture:` ({exc_line(exc)})",
                    ) from exc
            if isinstance(obj, property):
                fget = obj.fget
                return (lambda: fget(instance)), rest  # type: ignore[misc]
            return obj.__get__(instance, owner), rest
    if not callable(obj):
        raise TargetError("error", f"{obj!r} is not callable")
    return obj, fx


def _exc_info(exc: BaseException) -> dict[str, Any]:
    cls = type(exc)
    mro = [c for c in cls.__mro__ if c not in (object,)]
    message = str(exc)
    tb = _last_frame(exc)
    where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb else ""
    return {
        "type": cls.__name__,
        "qualname": qualname(cls),
        "mro": [c.__name__ for c in mro] + [qualname(c) for c in mro],
        "message": message[:2000],
        "where": where,
        "origin": _raise_origin(tb),
    }


def _raise_origin(tb: types.TracebackType | None) -> str:
    """``project``: a ``raise`` in the project's own files; ``library``: a ``raise`` elsewhere;
    ``interpreter``: raised by the interpreter or C code on an operation (``2.5.lower()``),
    whose wording differs between Python versions."""
    if tb is None:
        return "interpreter"
    code = tb.tb_frame.f_code
    import opcode

    raise_op = opcode.opmap["RAISE_VARARGS"]
    if tb.tb_lasti < 0 or tb.tb_lasti >= len(code.co_code) or code.co_code[tb.tb_lasti] != raise_op:
        return "interpreter"
    path = os.path.abspath(code.co_filename)
    root = os.getcwd() + os.sep  # the worker runs in the project's root
    vendored = ("site-packages", "dist-packages")
    inside = path.startswith(root) and not any(v in path for v in vendored)
    return "project" if inside else "library"


def _is_awaitable(value: Any) -> bool:
    """``inspect.isawaitable`` without importing inspect on every worker start."""
    if isinstance(value, types.GeneratorType):
        return bool(value.gi_code.co_flags & 0x100)  # CO_ITERABLE_COROUTINE
    return isinstance(value, (types.CoroutineType, Awaitable))
