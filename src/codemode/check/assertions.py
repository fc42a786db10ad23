"""``assertion:`` expressions run inside Monty, never by ``eval`` on the host.

Spec files are edited by anyone who can open a pull request; an assertion is code from
that file. Monty gives it no files, no environment, no network and no imports, and a
time and memory bound. One feed evaluates one assertion over every case of a function,
so two thousand cases cost a handful of round trips rather than two thousand.
"""

from __future__ import annotations

import ast
import sys
import threading
from collections.abc import Sequence
from typing import Any, NamedTuple

from codemode.check.monty_native import monty_native


class SandboxAnswer(NamedTuple):
    """What Monty said of one assertion on one case, when it did not say True or False."""

    message: str
    spec_error: bool = False  # the sandbox refused it, or it is not an expression


class AssertionRow(NamedTuple):
    """The names an assertion sees for one case (vowel's): canonical values, bytes as bytes."""

    input: Any
    output: Any
    expected: Any = None
    duration: float = 0.0  # seconds
    metadata: Any = None


_TEMPLATE = """
__results = []
for input, output, expected, duration, metadata in __rows:
    try:
        __results.append(bool({expr}))
    except Exception as __exc:
        __results.append(type(__exc).__name__ + ": " + str(__exc))
__results
"""


# What an assertion meets when it reaches outside the sandbox: files, imports, the host's
# builtins. These are the spec's problem (an error), not the function's (a failure).
_DENIED_TYPES = (
    "PermissionError",
    "OSError",
    "FileNotFoundError",
    "ImportError",
    "ModuleNotFoundError",
)
_DENIED_NAMES = (
    "__import__",
    "__builtins__",
    "compile",
    "globals",
    "locals",
    "vars",
    "open",
    "input",
    "breakpoint",
    "help",
    "exit",
    "quit",
    "__loader__",
    "__spec__",
)
SANDBOX_ERROR = "sandbox error: "


def _classify(error: str) -> SandboxAnswer:
    """Mark an assertion's exception as a sandbox error when it tried a forbidden operation."""
    kind, _, detail = error.partition(": ")
    denied = kind in _DENIED_TYPES or (
        kind == "NameError" and any(f"'{n}'" in detail for n in _DENIED_NAMES)
    )
    if denied:
        return _refused(
            f"{error} (assertions run in a sandbox with no files, imports "
            "or environment; compare `output`, `input`, `expected` and `duration` only)"
        )
    return SandboxAnswer(error)


def _refused(why: str) -> SandboxAnswer:
    return SandboxAnswer(SANDBOX_ERROR + why, spec_error=True)


def _discard(*_: object) -> None:
    pass


def _feed(session: Any, code: str, rows: list[list[Any]]) -> Any:
    """``code`` run in ``session`` over ``rows``. Monty looks up OpenTelemetry's current context
    at every feed, importing it (with logging, uuid, platform: ~10 ms of CPU in each process
    that checks an assertion, each --jobs lane) to trace a feed nobody traces here. Where
    nothing imported it before, the feed finds it missing, as where it is not installed."""
    blocked = "opentelemetry" not in sys.modules
    if blocked:
        sys.modules["opentelemetry"] = None  # type: ignore[assignment]
    try:
        return session.feed_run(code, inputs={"__rows": rows}, print_callback=_discard)
    finally:
        if blocked and "opentelemetry" in sys.modules and sys.modules["opentelemetry"] is None:
            del sys.modules["opentelemetry"]


class AssertionSandbox:
    """Evaluates assertion expressions over rows of (input, output, expected, duration, metadata)."""

    def __init__(self, timeout: float = 5.0, memory_mb: int = 256) -> None:
        self.timeout = timeout
        self.memory_mb = memory_mb
        self._pool: Any = None
        self._warming: threading.Thread | None = None

    def warm_up(self) -> None:
        """Import Monty and start its process in the background, while the worker runs cases.

        Both take tens of milliseconds; the caller is mostly waiting on the worker's pipe by
        then, so the time is hidden. ``evaluate`` waits for the warm-up to finish.
        """
        if self._pool is None and self._warming is None:
            self._warming = threading.Thread(target=self._start, name="monty-warm-up", daemon=True)
            self._warming.start()

    def _start(self) -> None:
        if self._pool is None:
            native = monty_native()
            pool = native.Monty(min_processes=1, max_processes=1, request_timeout=self.timeout + 5)
            pool.__enter__()
            self._pool = pool

    def _session(self) -> Any:
        if self._warming is not None:
            self._warming.join()
            self._warming = None
        self._start()  # no-op when warmed up; if the warm-up failed, fail here, visibly
        # pydantic_monty.ResourceLimits is a TypedDict: a plain dict is what it builds.
        limits = {"max_feed_duration_secs": self.timeout, "max_memory": self.memory_mb << 20}
        return self._pool.checkout(limits=limits)

    def evaluate(self, expr: str, rows: Sequence[AssertionRow]) -> list[bool | SandboxAnswer]:
        """One result per row: True/False, or a one-line error (flagged when the spec is at fault)."""
        if not rows:
            return []
        try:
            tree = ast.parse(expr.strip(), mode="eval")
            # Re-emit from the AST, so the text spliced into the template is one expression.
            code = _TEMPLATE.format(expr=ast.unparse(tree))
        except SyntaxError as exc:
            why = f"assertion is not a Python expression: {exc.msg}"
            return [SandboxAnswer(why, spec_error=True)] * len(rows)
        except (RecursionError, MemoryError, ValueError) as exc:  # 20,000 terms, a NUL byte
            why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            return [SandboxAnswer(f"assertion cannot be parsed ({why}); simplify it")] * len(rows)
        native = monty_native()
        try:
            with self._session() as session:
                # print() inside an assertion goes nowhere: never to codemode's stdout, where
                # it could forge workflow commands or break --format json (#11).
                result = _feed(session, code, [list(r) for r in rows])
        except native.MontyCrashedError as exc:
            return [_refused(f"the sandbox stopped ({exc})")] * len(rows)
        except native.MontyError as exc:
            first = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
            return [_refused(first)] * len(rows)
        except (TypeError, ValueError) as exc:  # a value Monty cannot take in
            return [_refused(f"cannot pass the values into the sandbox ({exc})")] * len(rows)
        if not isinstance(result, list) or len(result) != len(rows):
            return [_refused("unexpected result")] * len(rows)
        return [_classify(r) if isinstance(r, str) else bool(r) for r in result]

    def close(self) -> None:
        if self._warming is not None:
            self._warming.join()
            self._warming = None
        if self._pool is not None:
            try:
                self._pool.__exit__(None, None, None)
            finally:
                self._pool = None
