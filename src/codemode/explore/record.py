"""Every call of the target, run in the worker and recorded: arguments and canonical outcome.

The record is the only source of expected values: phase 2 names calls by number and the
spec gets the record's value. Identical calls are answered from the record (a snippet
that loops over the same input costs one worker call), and calls planned ahead are sent
to the worker in one batch.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from codemode.worker import canonical
from codemode.worker.pool import Outcome, Worker

MAX_CALLS = 5000  # per function: a runaway snippet stops here, the records so far stay
# A call's arguments become a case's inputs in the spec: a model that passes 20 MB would get
# a 40 MB spec written. Larger calls are refused before they reach the worker (#11).
MAX_ARGUMENT_CHARS = 64_000
# All the outputs recorded for one function (each is capped by the worker at 2 MB): past this
# the exploration stops, the records so far stay.
MAX_RECORDED_CHARS = 64_000_000


# The plain types a new block's global type evaluator may name (explore/offline/evaluators.py):
# every explorer call answers them with its outcome, so the evaluator is chosen from the
# records instead of running every call of the function a second time to ask.
EVALUATOR_TYPES = ("int", "float", "str", "bool", "list", "dict")
_EVALUATOR_TYPES_WIRE = [{"expr": t, "strict": False} for t in EVALUATOR_TYPES]

# How far `clock_free` moves the clock: years, so "2 years ago" cannot stay the same.
CLOCK_SHIFT = 3 * 365.25 * 86400.0


def _outcome_of(r: CallRecord) -> tuple[str, Any, Any]:
    return (r.kind, r.value, (r.exc or {}).get("type"))


@dataclass(frozen=True)
class CallRecord:
    n: int  # 1-based, as shown to the model
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    kind: str  # returned | raised | error
    value: Any = None
    exc: dict[str, Any] | None = None
    message: str = ""
    lines: tuple[int, ...] = ()
    round: int = 0
    typed: Any = None  # the result with its Python types, for the sandbox
    receiver: Any = None  # the instance a method was called on, when a snippet built it
    clock: str | None = None  # the project read the clock (``date.today()``): no case
    # the answers to EVALUATOR_TYPES (None: the result is of that type), when asked
    types: tuple[Any, ...] = ()
    seconds: float = 0.0  # how long the call ran in the worker (a timed-out one: the limit)

    @property
    def outcome_key(self) -> tuple[str, str]:
        if self.kind == "raised":
            return ("raised", str((self.exc or {}).get("type")))
        if self.kind == "returned":
            return ("returned", type(self.value).__name__)
        return ("error", "")


def wire_call(
    case_id: str,
    args: Sequence[Any],
    kwargs: dict[str, Any],
    *,
    types: Sequence[dict[str, Any]] = (),
    trace: bool = False,
    receiver: Any = None,
    exprs: dict[str, Any] | None = None,
    build: bool = False,
) -> dict[str, Any]:
    """One call as a worker case: positional ``args`` and ``kwargs``, nothing from a spec
    (or ``exprs``: argument expressions the worker evaluates with the module's globals).
    ``build``: the recipes in the arguments and the ``receiver`` are built in the worker.

    An explorer's call (``trace``) also asks for the result with its types, and has its
    recipes (project objects a snippet built, ``receiver`` for a method) built in the worker.
    """
    # The form check will give the case: `inputs:` a dict for keywords only (a serializer
    # function sees {"inputs": {...}} then), else a list.
    by_name = bool(kwargs) and not args
    wire = {
        **({"exprs": exprs} if exprs else {}),
        "id": case_id,
        "args": list(args),
        "kwargs": kwargs,
        "form": "inputs_dict" if by_name else "inputs_list",
        "input": dict(kwargs) if by_name else list(args),
        "types": list(types),
        "trace": trace,
        "watch_clock": trace,  # explorer's calls only: check never pays for the profile hook
    }
    if trace:
        wire.update(typed=True, build=True, self=receiver)
    elif build:  # the model's calls hold recipes of project objects (a receiver, a Charge)
        wire.update(build=True, self=receiver)
    return wire


class TooManyCalls(RuntimeError):
    pass


@dataclass
class Recorder:
    worker: Worker
    target: str
    fixtures: list[dict[str, Any]] = field(default_factory=list)
    fixture_names: list[str] = field(default_factory=list)
    file_key: str = ""
    # The spec's serializer (wire form): inputs reach the function the way `check` builds them.
    serializer: dict[str, Any] | None = None
    records: list[CallRecord] = field(default_factory=list)
    round: int = 0
    worker_calls: int = 0
    recorded_chars: int = 0
    _memo: dict[str, CallRecord] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @staticmethod
    def _key(args: Sequence[Any], kwargs: dict[str, Any], receiver: Any = None) -> str:
        return canonical.dumps([list(args), kwargs, receiver])

    def call(self, args: Sequence[Any], kwargs: dict[str, Any], receiver: Any = None) -> CallRecord:
        return self.call_many([(tuple(args), dict(kwargs))], receiver)[0]

    def side_call(
        self, target: str, args: Sequence[Any], kwargs: dict[str, Any], receiver: Any = None
    ) -> Outcome:
        """A call of another project callable (a constructor, another method): not recorded."""
        with self._lock:
            if self.worker_calls >= MAX_CALLS:
                raise TooManyCalls(f"more than {MAX_CALLS} calls of the project; stopped")
            self.worker_calls += 1
            wire = [wire_call("side", args, kwargs, trace=True, receiver=receiver)]
            out = list(self.worker.run(target, wire, file_key=self.file_key))
        return out[0] if out else Outcome(case="side", kind="error", message="no result")

    def call_many(
        self, calls: Sequence[tuple[tuple[Any, ...], dict[str, Any]]], receiver: Any = None
    ) -> list[CallRecord]:
        """Run the calls not seen before in one worker batch; records in the order asked."""
        with self._lock:
            keys = [self._key(a, k, receiver) for a, k in calls]
            fresh: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
            for key, call in zip(keys, calls):
                if key not in self._memo and key not in fresh:
                    fresh[key] = call
            if len(self.records) + len(fresh) > MAX_CALLS:
                raise TooManyCalls(f"more than {MAX_CALLS} calls of the target; stopped")
            if self.recorded_chars > MAX_RECORDED_CHARS:
                raise TooManyCalls(
                    f"the target's outputs passed {MAX_RECORDED_CHARS / 1e6:g} MB; stopped"
                )
            for key, (a, k) in list(fresh.items()):
                if len(key) > MAX_ARGUMENT_CHARS:
                    del fresh[key]
                    self._refuse(key, a, k)
            if fresh:
                wire = [
                    wire_call(key, a, k, trace=True, receiver=receiver, types=_EVALUATOR_TYPES_WIRE)
                    for key, (a, k) in fresh.items()
                ]
                self.worker_calls += len(wire)
                outcomes = {o.case: o for o in self.run_wire(wire)}
                for key, (a, k) in fresh.items():
                    o = outcomes.get(key)
                    rec = CallRecord(
                        n=len(self.records) + 1,
                        args=tuple(a),
                        kwargs=dict(k),
                        kind=o.kind if o else "error",
                        value=o.value if o else None,
                        exc=o.exc if o else None,
                        message=(o.message if o else "no result from the worker"),
                        lines=tuple(o.lines or ()) if o else (),
                        round=self.round,
                        typed=o.typed if o else None,
                        receiver=receiver,
                        clock=o.clock if o else None,
                        types=tuple(o.types) if o else (),
                        seconds=self._seconds(o),
                    )
                    self.records.append(rec)
                    self._memo[key] = rec
                    if rec.kind == "returned":
                        self.recorded_chars += len(canonical.dumps(rec.value))
            return [self._memo[key] for key in keys]

    def _seconds(self, o: Outcome | None) -> float:
        if o is not None and o.duration_ms is not None:
            return o.duration_ms / 1000.0
        timed_out = o is not None and o.kind == "error" and "timed out" in o.message
        return float(self.worker.timeout) if timed_out else 0.0

    def _refuse(self, key: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """An oversize call: an error record (never a case), without its arguments."""
        rec = CallRecord(
            n=len(self.records) + 1,
            args=(),
            kwargs={},
            kind="error",
            message=f"the arguments are {len(key) / 1000:.0f} KB as data, over the "
            f"{MAX_ARGUMENT_CHARS // 1000} KB a call may pass (they would be written into the "
            "spec); call it with smaller values",
            round=self.round,
        )
        self.records.append(rec)
        self._memo[key] = rec

    def call_exprs(self, exprs: Sequence[dict[str, Any]]) -> list[CallRecord]:
        """Calls whose arguments the worker builds from expressions (``date(2024, 1, 31)``);
        each record holds the values built, or kind ``error`` when they did not build."""
        with self._lock:
            fresh = {}
            for e in exprs:
                key = "exprs:" + canonical.dumps(e)
                if key not in self._memo:
                    fresh[key] = e
            wire = [wire_call(key, (), {}, trace=True, exprs=e) for key, e in fresh.items()]
            self.worker_calls += len(wire)
            for o in self.run_wire(wire) if wire else ():
                ok = o.args is not None and o.kind != "error"
                rec = CallRecord(
                    n=len(self.records) + 1,
                    args=tuple(o.args or ()) if ok else (),
                    kwargs=dict(o.kwargs or {}) if ok else {},
                    kind=o.kind if ok else "error",
                    value=o.value,
                    exc=o.exc,
                    message=o.message,
                    lines=tuple(o.lines or ()),
                    round=self.round,
                    clock=o.clock,
                )
                self.records.append(rec)
                self._memo[o.case] = rec
                if ok:
                    self._memo.setdefault(self._key(rec.args, rec.kwargs), rec)
            return [self._memo["exprs:" + canonical.dumps(e)] for e in exprs]

    def clock_free(self, records: Sequence[CallRecord], shift: float = CLOCK_SHIFT) -> None:
        """Of the calls that read the clock, those whose outcome stays the same with the
        clock moved years ahead no longer count as reading it (their records are replaced)."""
        todo = [r for r in records if r.clock and r.kind in ("returned", "raised")]
        if not todo:
            return
        by_case = {f"shift:{r.n}": r for r in todo}
        with self._lock:
            wire = [
                {
                    **wire_call(c, r.args, r.kwargs, trace=True, receiver=r.receiver),
                    "clock_shift": shift,
                }
                for c, r in by_case.items()
            ]
            same = {
                by_case[o.case].n
                for o in self.run_wire(wire)
                if o.case in by_case
                and (o.kind, o.value, (o.exc or {}).get("type")) == _outcome_of(by_case[o.case])
            }
            for i, r in enumerate(self.records):
                if r.n in same:
                    self.records[i] = replace(r, clock=None)
            for key, r in self._memo.items():
                if r.n in same:
                    self._memo[key] = replace(r, clock=None)

    def run_wire(self, wire: list[dict[str, Any]]) -> Iterator[Outcome]:
        """Run wire cases of the target in the worker, with this function's fixtures."""
        return self.worker.run(
            self.target,
            wire,
            fixtures=self.fixtures,
            fixture_names=self.fixture_names,
            serializer=self.serializer,
            file_key=self.file_key,
            isolate=False,  # a worker of its own per explored function (explore/writing/regen.py)
        )

    def lines(self) -> set[int]:
        return {ln for r in self.records for ln in r.lines}


def value_key(value: object, default: Callable[[Any], Any] = repr) -> str:
    """A text equal values share, to tell calls or outcomes apart: JSON where JSON can say
    it, else the value's repr. JSON cannot key a dict by a tuple (toolz's docstring
    ``memoize(cache={(1, 2): 3})`` stopped a bootstrap, #23) nor sort keys of mixed types."""
    import json

    try:
        return json.dumps(value, default=default, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        try:
            return repr(value)
        except Exception:  # a repr that raises: this value equals no other
            return f"<{type(value).__name__} at {id(value)}>"
