"""Run model-written snippets in Monty; the project is reachable only through the worker.

A snippet gets no files, environment, network, imports of host modules or real sleeps
(Monty's policy: sleeps return at once, ``random`` is seeded, so a replayed snippet makes the
same calls; the clock is the host's at the snippet's start, as the function the snippet calls
reads it, so ``f(date.today())`` passes the date the function sees as today (#22)). Every call of the target is a host function that
asks the worker, records the call, and hands back the result with its Python types where
Monty has them (Decimal, date, tuple, bytes...); a custom object arrives as its data. The
target's own module imports as in the project (``explore/llm/project_types.py``): its classes,
Enum members and exception classes. Errors become one line for the model, with the line;
a crashed or timed-out sandbox is replaced and the next snippet runs.

The pool is Monty's synchronous one, driven from a thread: with ``AsyncMonty`` a coroutine
host function reaches the snippet as a future it would have to ``await``, which model-
written code does not do, and a synchronous host function would block the event loop.
"""

from __future__ import annotations

import builtins
import datetime as dt
import decimal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codemode.explore.llm.project_types import (
    MemberRef,
    ProjectModule,
    Recipe,
    read_classes,
    rewrite_imports,
)
from codemode.explore.record import Recorder, TooManyCalls
from codemode.explore.target import TargetInfo

if TYPE_CHECKING:  # Monty loads when a model explores, not when this module does
    from pydantic_monty import Monty, OSPolicy

_DATA = (type(None), bool, int, float, str, bytes, decimal.Decimal, dt.timedelta, Recipe, MemberRef)


PRINT_LIMIT = 600  # characters of a snippet's printed output the model gets back
VALUE_LIMIT = 300


@dataclass(frozen=True)
class SnippetResult:
    index: int
    calls: tuple[int, ...]  # record numbers, in call order
    error: str | None = None  # one line for the model, None when the snippet ran through
    printed: str = ""  # what the snippet printed, capped
    value: str | None = None  # repr of its last expression, capped; None when it has none


class _Refused(TypeError):
    pass


def _check_data(value: Any, where: str, depth: int = 0) -> None:
    if depth > 20:
        raise _Refused(f"{where} is nested too deeply")
    if isinstance(value, (*_DATA, dt.date, dt.time)):
        return
    if isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            _check_data(v, where, depth + 1)
        return
    if isinstance(value, dict):
        for k, v in value.items():
            _check_data(k, where, depth + 1)
            _check_data(v, where, depth + 1)
        return
    raise _Refused(
        f"{where} is a {type(value).__name__}: only data values can be passed to the target"
    )


def _exception(exc: dict[str, Any]) -> BaseException:
    """The nearest builtin exception class, so ``except ValueError`` in a snippet works."""
    name = str(exc.get("type", "Exception"))
    message = str(exc.get("message", ""))
    for cand in exc.get("mro", []):
        cls = getattr(builtins, str(cand), None)
        if isinstance(cls, type) and issubclass(cls, Exception) and cls is not BaseException:
            text = message if cand == name else f"{name}: {message}"
            try:
                return cls(text)
            except TypeError:  # e.g. UnicodeDecodeError wants five arguments
                continue
    return Exception(f"{name}: {message}")


# Wall-clock time one snippet may spend in calls of the target (each call also has the
# worker's own timeout): Monty's feed limit does not count the time a host call takes (#11).
HOST_SECONDS = 30.0


class HostBudget(RuntimeError):
    pass


class _HostGuard:
    """What every call of a snippet into the worker passes (#22): the target by its bare name,
    imported, or as a method of an instance the snippet built, and the project's constructors
    and other methods. Only data (or the project's objects) reaches the worker, and the calls
    of one snippet share one wall-clock cap."""

    def __init__(self, project: ProjectModule) -> None:
        self.project = project
        self.spent = 0.0

    def __call__(
        self,
        run: Callable[[tuple[Any, ...], dict[str, Any]], Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        if self.spent > HOST_SECONDS:
            raise HostBudget(
                f"the snippet's calls of the target ran for more than {HOST_SECONDS:g} s; "
                "stopped (call it fewer times, with smaller inputs)"
            )
        project = self.project
        args = tuple(project_value(project, a, f"argument {i + 1}") for i, a in enumerate(args))
        kwargs = {k: project_value(project, v, f"argument {k!r}") for k, v in kwargs.items()}
        started = time.monotonic()
        try:
            return run(args, kwargs)
        finally:
            self.spent += time.monotonic() - started


def _host_function(project: ProjectModule) -> Callable[..., Any]:
    """The target as the sandbox sees it: values in, the worker's result out, every call
    recorded; the project's guard (``_HostGuard``) checks and times it."""
    project.guard = _HostGuard(project)

    def target(*args: Any, **kwargs: Any) -> Any:
        return project.call_target(args, kwargs, None)

    return target


def project_value(project: ProjectModule, value: Any, where: str) -> Any:
    """A value a snippet passes: data, a project object, or a class of its own named like one."""
    from pydantic_monty import MontyClassProxy

    if isinstance(value, MontyClassProxy):
        if project.classes.get(value.name) and project.classes[value.name].kind == "class":
            path = f"{project.info.module}.{value.name}"
            return project.construct(path, (), dict(value.attributes))
        raise _Refused(
            f"{where} is an instance of a class defined in the snippet ({value.name}); "
            f"import the project's classes from {project.info.module} instead"
        )
    _check_data(value, where)
    return value


def _first_line(text: str, limit: int = 300) -> str:
    lines = [ln for ln in str(text).strip().splitlines() if ln.strip()]
    line = lines[-1].strip() if lines else ""
    return line[:limit]


class SnippetRunner:
    """A Monty pool for one run; ``run`` executes a batch of snippets against one recorder."""

    def __init__(
        self,
        *,
        feed_seconds: float = 2.0,
        memory_mb: int = 64,
        max_calls_per_snippet: int = 500,
        request_timeout: float = 20.0,
        processes: int = 1,
    ) -> None:
        self.feed_seconds = feed_seconds
        self.memory_mb = memory_mb
        self.max_calls = max_calls_per_snippet
        self.request_timeout = request_timeout
        self.processes = processes
        self._pool: Monty | None = None

    def __enter__(self) -> SnippetRunner:
        from pydantic_monty import Monty

        self._pool = Monty(
            min_processes=1, max_processes=self.processes, request_timeout=self.request_timeout
        )
        self._pool.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.__exit__(None, None, None)
            self._pool = None

    def _checkout(self, modules: dict[str, Any]) -> Any:
        from pydantic_monty import ResourceLimits

        limits = ResourceLimits(
            max_feed_duration_secs=self.feed_seconds,
            max_memory=self.memory_mb * 1024 * 1024,
            max_recursion_depth=200,
            # every host call is a suspension: this bounds the calls one snippet makes
            max_suspensions=self.max_calls,
        )
        now = dt.datetime.now().replace(microsecond=0)  # the host's clock, as the worker's
        policy: OSPolicy = {"sleep": "zero", "datetime": now, "random_start": {"seed": 0}}
        assert self._pool is not None, "use the runner as a context manager"
        return self._pool.checkout(limits=limits, os_policy=policy, external_modules=modules)

    def run(
        self,
        snippets: Sequence[str],
        recorder: Recorder,
        names: Sequence[str],
        info: TargetInfo | None = None,
    ) -> list[SnippetResult]:
        classes = read_classes(info.path.read_text(encoding="utf-8")) if info is not None else {}
        results: list[SnippetResult] = []
        for index, code in enumerate(snippets, 1):
            calls: list[int] = []
            project = ProjectModule(info or _bare(recorder), recorder, _exception, calls, classes)
            target = _host_function(project)
            modules = {}
            if info is not None:
                code = rewrite_imports(code, info.module, classes)
                modules = _module_tree(info.module, project.external(target))
            printed: list[str] = []
            value, error = self._feed(code, {n: target for n in names}, modules, printed)
            text = _cap("".join(printed).rstrip(), PRINT_LIMIT)
            results.append(SnippetResult(index, tuple(calls), error, text, value))
        return results

    def _feed(
        self, code: str, lookup: dict[str, Any], modules: dict[str, Any], printed: list[str]
    ) -> tuple[str | None, str | None]:
        """Run one snippet in a fresh session: (repr of its last expression, one-line error)."""
        from pydantic_monty import (
            MontyCrashedError,
            MontyError,
            MontyRuntimeError,
            MontySyntaxError,
        )

        def keep(_stream: str, text: str) -> None:
            if sum(map(len, printed)) <= PRINT_LIMIT:
                printed.append(text)

        try:
            # A fresh session per snippet: a timeout leaves the old heap in no known state,
            # and the suspension budget counts per checkout.
            with self._checkout(modules) as session:
                out = session.feed_run(code, external_lookup=lookup, print_callback=keep)
            return (None if out is None else _cap(repr(out), VALUE_LIMIT)), None
        except MontySyntaxError as exc:
            return None, _first_line(exc.display("type-msg"))
        except MontyRuntimeError as exc:
            frames = exc.traceback()
            where = f" (line {frames[-1].line})" if frames else ""
            return None, _first_line(exc.display("type-msg")) + where
        except MontyCrashedError as exc:
            why = "timed out" if exc.timed_out else "crashed"
            return None, f"the sandbox {why} and was restarted: {_first_line(str(exc))}"
        except MontyError as exc:
            return None, f"{type(exc).__name__}: {_first_line(str(exc))}"
        except TooManyCalls as exc:
            return None, str(exc)
        except (TypeError, ValueError) as exc:  # the trailing value could not leave the sandbox
            return None, f"{type(exc).__name__}: {_first_line(str(exc))}"


def _module_tree(module: str, external: Any) -> dict[str, Any]:
    """``pkg.sub.mod`` importable as itself and through its parents."""
    from pydantic_monty import ExternalModule

    out: dict[str, Any] = {module: external}
    parts = module.split(".")
    child = external
    for i in range(len(parts) - 1, 0, -1):
        child = ExternalModule({parts[i]: child})
        out[".".join(parts[:i])] = child
    return out


def _bare(recorder: Recorder) -> Any:
    """A stand-in TargetInfo for a run without one (tests of the runner alone)."""
    from types import SimpleNamespace

    name = recorder.target.rsplit(".", 1)[-1]
    return SimpleNamespace(module="", qualname=name, name=name)


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
