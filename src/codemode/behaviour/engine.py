"""Run one function's pool on the old and the new version, side by side, and keep the
witnesses: calls whose outcome differs, the same on two runs of each side, and that read no
clock.

Each side is a worker of the project's interpreter (the old side's in the work tree, with the
changed modules' old content from git's objects: change/old_side.py; codemode never imports
either). A side that cannot run at all is said so (``not_compared``). Both workers get the same
``PYTHONHASHSEED``, so a set's order is the same on both sides when the code is. The first
run of the pool is plain; only the calls whose outcomes differ run a second time on both
sides, with the clock watched, so the cost of stability is paid for the few that matter.
That second run is in two other workers, started with another hash seed when a first
difference is found: an outcome that follows the process's seed (a list made from a set of
strings) is the same on two runs of one process and differs in the next, so it is never a
witness (emoji 1.7's distinct_emoji_list drifted so, #18). There each call runs ``AGAIN``
times on each side, the random state moving on between runs: one run more was not enough for
an outcome of a few values (a coin, a shuffle of two items agrees with the first run half the
time), so a random helper of a pool of a few such calls was flagged `changed` on most runs
(#32). A function whose differing calls all vary between runs of one version is ``unstable``:
said so, not a change.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from codemode.behaviour.bounded import Loading, Ran, Side, both
from codemode.behaviour.follow_ups import FollowUps
from codemode.behaviour.outcomes import (
    Seen,
    by_state,
    difference,
    oversized,
    same,
    seen,
    shown_states,
)
from codemode.behaviour.pace import Steps
from codemode.compare import values_equal
from codemode.explore.offline.havoc import MUTANTS, RETYPED, havoc
from codemode.explore.offline.input_pool import PoolCall
from codemode.report.model import Witness
from codemode.report.witness import construction_call, then_call, witness_call
from codemode.signals import received
from codemode.worker.pool import Outcome, Worker
from codemode.worker.runner import MAX_REPLY_CHARS

MAX_WITNESSES = 20  # per function: past this, more of the same says nothing new
# Runs of each differing call on each side in the second run's workers (#32): FIRST_AGAIN for
# every one; AGAIN in all for those that held, when another varied (the function shows
# randomness) or when fewer than FEW held (a lone coin flip shows none). An outcome of two
# values equally likely then passes for stable with odds 4**-AGAIN after differing: 1 in
# 4,096, where one run more let 1 in 4 through; FEW of them all hold FIRST_AGAIN runs with
# odds 16**-FEW. A call that does not vary costs FIRST_AGAIN calls more, as a rule.
FIRST_AGAIN = 2
AGAIN = 6
FEW = 4
# The second run's requests: FIRST_AGAIN runs of every suspect, then the rest of AGAIN.
AGAIN_REQUESTS = 2
# How the note starts when a side could not run at all (#33).
NOT_COMPARED = "not compared: "


class DiffBudget(NamedTuple):
    """``[tool.codemode] diff_budget``: per function, the seconds and the calls it may take."""

    seconds: float = 2.0
    calls: int = 1000


class FunctionDiff(NamedTuple):
    id: str
    witnesses: tuple[Witness, ...] = ()
    ran: int = 0  # calls run on both sides
    pool: int = 0  # calls the pool held
    note: str = ""  # the budget cut the search, nothing could run, ...
    # the note says the search stopped short of what it should have covered (the budget cut
    # it): shown in every output, never read as "no difference" (#33)
    short: bool = False
    # the tests' calls left out of the pool, by reason (a name the test file binds no
    # value to...): (reason, count), most first (#32)
    dropped: tuple[tuple[str, int], ...] = ()
    # the calls that differ between the versions but also between runs of one version
    # (randomness, the clock, hash order), said in a sentence, or "": no change they show
    unstable: str = ""
    mutants: int = 0  # of the calls ``ran``, the pool's calls mutated (havoc.py)

    def inputs(self) -> str:
        """``140 inputs (100 of them mutants)``: how many calls ran, and how many of them
        were havoc.py's, so a miss says whether the search went past the pool (#32)."""
        mutants = f" ({self.mutants} of them mutants)" if self.mutants else ""
        return f"{self.ran} input{'s' * (self.ran != 1)}{mutants}"


class _Recipe:
    """A method's instance, built in the worker: ``Class(*args, **kwargs)``, then the calls
    that prepared it in the test (explore/offline/prepared.py)."""

    def __init__(self, recipe: dict[str, Any]) -> None:
        self.recipe = recipe

    def __codemode_wire__(self) -> tuple[str, dict[str, Any]]:
        return "new", {"calls": [], **self.recipe}


def wire(case_id: str, call: PoolCall, *, watch_clock: bool = False) -> dict[str, Any]:
    """One pool call as a worker case (``record.wire_call``'s shape, without tracing)."""
    by_name = bool(call.kwargs) and not call.args
    out: dict[str, Any] = {
        "id": case_id,
        "args": list(call.args),
        "kwargs": dict(call.kwargs),
        "form": "inputs_dict" if by_name else "inputs_list",
        "input": dict(call.kwargs) if by_name else list(call.args),
        "types": [],
        "trace": False,
        "watch_clock": watch_clock,
        "after": True,  # the receiver's and mutable arguments' state, before and after (#32)
        "build": True,  # a receiver's recipe becomes the instance
        "self": _Recipe(call.receiver) if call.receiver else None,
    }
    if call.then is not None:  # call what it returned (worker/returned.py, #32)
        out["then"] = call.then
    if call.exprs:
        out["exprs"] = call.exprs
        # an argument the tests build (a parsed element) has no YAML form; the versions are
        # compared on it all the same, and the witness shows how it was built (#32)
        out["built_args"] = True
    return out


# Workers for the second run of the suspects, (old, new), with a hash seed the first run's
# workers do not have; started by the caller when first asked for.
Again = Callable[[], tuple[Worker, Worker]]


def diff_function(
    function_id: str,
    pool: Sequence[PoolCall],
    old: Side,
    new: Side,
    budget: DiffBudget,
    rel_tol: float = 1e-9,
    again: Again | None = None,
) -> FunctionDiff:
    """The function's witnesses within ``budget``: on the wall clock, whatever one call costs
    (#33). The first run of the pool stops where the second run of the differences it found
    would no longer fit; a call that would cross the deadline is not started, one that
    crosses it is cut. The sides' start-up (``bounded.Loading``) is not the budget's: the
    caller waits for it first, and the second run's workers' is added to the deadline."""
    end = time.monotonic() + budget.seconds
    signalled = received()
    todo = list(pool[: budget.calls])
    look = _Looker((old.root, new.root), rel_tol)
    step, follow = Steps(), FollowUps(getattr(pool, "probes", None))
    first_cut, start, params = False, 0, getattr(pool, "params", ())  # params: for havoc
    mutants_from: int | None = None  # where the mutants start in ``todo``: after the pool
    second: tuple[Worker, Worker] | None = None
    loading: Loading | None = None
    while start < len(todo) and not look.full():
        until = end - min(budget.seconds / 2, look.cost() + AGAIN_REQUESTS * step.latency)
        size = step.size(until - time.monotonic())
        if size == 0:
            first_cut = mutants_from is None  # the mutants are the leftover time's, not owed
            break
        chunk = todo[start : start + size]
        cases = [wire(f"c{start + i}", c) for i, c in enumerate(chunk)]
        ran_old, ran_new = both(old, new, cases, until)
        if not start and (failed := not_compared(ran_old.outcomes, ran_new.outcomes)):
            if not (todo := look.without_instances(todo, ran_old.outcomes)):
                return FunctionDiff(function_id, (), 0, len(pool), failed, True)
            continue
        step.took(ran_old, ran_new)
        look.first(chunk, cases, ran_old, ran_new)
        start += size
        todo[start:start] = follow.ups(chunk, cases, ran_old.outcomes, ran_new.outcomes)
        todo = look.requeued(todo, start)  # inputs with no instance: on the pool's (#32)
        if start >= len(todo) and mutants_from is None and not look.suspects:  # see havoc.py
            start = mutants_from = len(todo)  # (a request's size may run past the pool's end)
            todo += havoc(function_id, todo, min(MUTANTS, budget.calls - start), params)
        if look.suspects and again is not None and second is None:
            # started now, they import the function while this run goes on
            second = again()
            loading = Loading(old._replace(worker=second[0]), new._replace(worker=second[1]))
        if ran_old.cut or ran_new.cut:
            first_cut = mutants_from is None
            break
    if second is not None and loading is not None:
        old, new = old._replace(worker=second[0]), new._replace(worker=second[1])
        end += loading.wait()  # their start-up is not the calls' time: bounded apart
    witnesses, unconfirmed = look.confirm(old, new, function_id, end)
    notes = [*look.notes(), _cut_note(budget, look.ran, len(pool), first_cut, unconfirmed)]
    notes.append(_signal_note(signalled))
    note = "; ".join(n for n in (*notes, look.lacking()) if n)  # lacking: not short
    found = FunctionDiff(function_id, tuple(witnesses), look.ran, len(pool), note, any(notes))
    return found._replace(unstable=look.unstable_text(function_id), mutants=look.mutants)


def _signal_note(signalled: int) -> str:
    if received() > signalled:
        return (
            "a call sent a stop signal to codemode's process (SIGTERM or SIGHUP to its "
            "parent): ignored"
        )
    return ""


def not_compared(got_old: dict[str, Outcome], got_new: dict[str, Outcome]) -> str:
    """The note for a function a side could not run at all (every call an error: the module
    does not import, each call crashed), or "": no outcome of a side that did not run is
    ever a difference, so without this note the function would read as one the change left
    alone (#33)."""
    old, new = _all_failed(got_old), _all_failed(got_new)
    if not (old or new):
        return ""
    side = "both sides" if old and new else "the old side" if old else "the new side"
    outcomes = list((got_old if old else got_new).values())
    messages = [o.message for o in outcomes]
    message = max(dict.fromkeys(messages), key=messages.count)  # the commonest, first seen
    receiver = _NO_INSTANCE.match(message)
    if receiver:
        # a method none of whose inputs came with an instance: say what would give it one
        return (
            f"{NOT_COMPARED}no {receiver[1]} to call it on in any of its {len(outcomes)} "
            f"inputs ({receiver[1]}() raised {receiver[2]}), and no test of the project builds "
            "one with literal arguments (in the test, its class's setUp, or a fixture of its "
            "file)"
        )
    module, colon, why = message.partition(": ")
    if module.startswith("cannot import ") and colon:
        # worker/policy.py's words; the hint after the last "; " (install the project...)
        # is the check's to give, not the diff's
        why = why.rpartition("; ")[0] or why
        why = why.removeprefix("ModuleNotFoundError: ")
        return f"{NOT_COMPARED}{side} failed to import {module[len('cannot import ') :]}: {why}"
    return f"{NOT_COMPARED}{side} could not run it: {message}"


# worker/runner.py's ``_bind``: a method's class could not be built without arguments
_NO_INSTANCE = re.compile(r"([\w.]+) needs an instance: .*\((\w+(?:Error|Exception)?: .*)\)$", re.S)


def _no_instance(*got: Outcome) -> bool:
    return all(_NO_INSTANCE.match(o.message) for o in got)


def _all_failed(got: dict[str, Outcome]) -> bool:
    # a call whose output was too large to send, or that the sandbox's wall stopped (#31),
    # ran: each has a note of its own
    return bool(got) and all(
        o.kind == "error" and not oversized(o.kind, o.message) and not getattr(o, "blocked", None)
        for o in got.values()
    )


def _cut_note(budget: DiffBudget, ran: int, pool: int, cut: bool, unconfirmed: int) -> str:
    if cut or unconfirmed:
        note = f"the diff budget ({budget.seconds:g} s) cut the search after {ran} of {pool} "
        note += "inputs"
        if unconfirmed:
            note += f"; {unconfirmed} of the differences found could not be run a second time"
        return note
    if pool > budget.calls:
        return (
            f"the diff budget ({budget.calls} calls) cut the search: {budget.calls} of {pool} "
            "inputs run"
        )
    return ""


def built_apart(old: Outcome, new: Outcome) -> bool:
    """Whether the two sides built a test call's arguments differently: the setup the call's
    expressions run used the changed code (``o = loads(dumps(d)); dumps(o)``), so each version
    was called on another input and their outcomes say nothing of one input (#32). Plain
    arguments come back as data; others, and a prepared instance, as a digest of their
    canonical form."""
    if old.built and new.built and old.built != new.built:
        return True  # also a prepared instance, beside plain arguments
    if old.args is not None and new.args is not None:
        return not (
            values_equal(old.args, new.args) and values_equal(old.kwargs or {}, new.kwargs or {})
        )
    return False


# The wall's refusals that are no file writes (worker/wall.py's events).
_NOT_WRITES = (
    "subprocess.",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.kill",
    "os.killpg",
    "socket.",
    "pty.",
    "webbrowser.",
    "os.startfile",
)


class _Looker:
    """The calls whose first outcomes differ, then those that stay so on a second run."""

    def __init__(self, roots: tuple[str, str], rel_tol: float) -> None:
        self.roots = roots
        self.rel_tol = rel_tol
        # case id -> (call, new outcome, old Seen, new Seen)
        self.suspects: dict[str, tuple[PoolCall, Outcome, Seen, Seen]] = {}
        self.by_state: set[str] = set()  # suspects whose outcomes agree: the state differs
        self.costs: dict[str, float] = {}  # a suspect's wall time on the slower side
        self.ran = 0  # calls run on both sides before the deadline
        self.mutants = 0  # of those, havoc's
        self.oversized = 0  # of those, calls whose output was too large to send on a side
        self.apart = 0  # of those, calls whose arguments each side built otherwise (#32)
        self.blocked: list[str] = []  # what the wall stopped, per call stopped on a side (#31)
        self.no_instance: list[str] = []  # calls with no instance of the method's class (#32)
        self.retry: list[str] = []  # the refusals of calls with none, since they were paired
        self.redo: list[PoolCall] = []  # those calls, to run again on an instance
        self.put_on = False  # the first request's calls were put on instances
        # suspects whose outcome varied on a side (#32), as ``suspects`` holds them
        self.unstable: list[tuple[PoolCall, Outcome, Seen, Seen]] = []

    def notes(self) -> list[str]:
        """What kept calls from being compared: the wall, outputs too large to send."""
        notes = [self.blocked_note(self.ran)]
        if self.apart:
            notes.append(
                f"not compared on {self.apart} of {self.ran} inputs: the tests build their "
                "arguments with the changed code, and each version got other ones"
            )
        if self.oversized:
            notes.append(
                f"outputs over {MAX_REPLY_CHARS:,} bytes: not compared ({self.oversized} of "
                f"{self.ran} calls)"
            )
        return notes

    def blocked_note(self, ran: int) -> str:
        """The calls the wall stopped: not compared, and said so (never "no difference")."""
        if not self.blocked:
            return ""
        what = "writes files" if any(not b.startswith(_NOT_WRITES) for b in self.blocked) else ""
        what = what or "starts processes or uses the network"
        return (
            f"not compared on {len(self.blocked)} of {ran} inputs: {what} "
            f"(blocked: {self.blocked[0]}; see [tool.codemode.effects])"
        )

    def without_instances(self, todo: list[PoolCall], got: dict[str, Outcome]) -> list[PoolCall]:
        """After a first request whose every call failed (``got``): when
        each failed for want of an instance (its class needs arguments: a docstring's
        ``Grammar(",").split(s)`` comes without one, and first), the pool with every call
        that brings none put on an instance another call brings (``with_instances``); else
        none."""
        if self.put_on or not all(_NO_INSTANCE.match(o.message) for o in got.values()):
            return []  # (once: the calls put on instances failed as well)
        self.retry, self.put_on = [o.message for o in got.values()][:1], True
        return self.with_instances(todo, todo)

    def requeued(self, todo: list[PoolCall], start: int) -> list[PoolCall]:
        """``todo`` with the calls after ``start`` and those that failed for want of an
        instance put on instances (``with_instances``), once one did; else as it is."""
        if not self.retry:
            return todo
        redo, self.redo = self.redo, []
        return todo[:start] + self.with_instances(redo + todo[start:], todo)

    def with_instances(self, rest: list[PoolCall], todo: list[PoolCall]) -> list[PoolCall]:
        """``rest`` with each call that brings no instance put on one a call of ``todo``
        brings (receiver_mixes.on_instances: the same call on both sides); one that cannot
        be is counted as left out for want of an instance (``retry``: its refusal)."""
        from codemode.explore.offline.receiver_mixes import on_instances

        why = self.retry[:1]
        self.retry, self.redo = [], []
        out, left_out = on_instances(rest, todo)
        self.no_instance += why * left_out
        return out

    def lacking(self) -> str:
        """The calls that came without an instance of a method's class, which cannot be built
        without arguments: not compared, and said so (never "no difference", #32)."""
        if not self.no_instance:
            return ""
        m = _NO_INSTANCE.match(self.no_instance[0])
        why = f" ({m[1]}() raised {m[2]})" if m else ""
        n, of = len(self.no_instance), self.ran + len(self.no_instance)
        return f"not compared on {n} of {of} inputs: no instance to call it on{why}"

    def full(self) -> bool:
        # a state that follows the process (a per-run salt in a cache the call fills) differs
        # on every call: such suspects are capped apart and never end the search for the
        # calls whose outcomes differ
        return len(self.suspects) - len(self.by_state) >= 2 * MAX_WITNESSES

    def cost(self) -> float:
        """What running the suspects again may take: what their first run took, and a half
        more for the second run's workers to import the function (the caller adds the room
        for the second run's requests: ``pace.Steps.latency``)."""
        return 1.5 * sum(self.costs.values())

    def _seen(self, o: Outcome | None) -> Seen:
        if o is None:
            return Seen("error")
        return seen(o.kind, o.value, o.exc, o.clock, self.roots, o.after)

    def first(
        self, calls: Sequence[PoolCall], cases: Sequence[dict[str, Any]], old: Ran, new: Ran
    ) -> None:
        for call, case in zip(calls, cases):
            cid = case["id"]
            if cid not in old.outcomes or cid not in new.outcomes:
                continue  # cut by the deadline on a side: not compared
            o_old, o_new = old.outcomes[cid], new.outcomes[cid]
            if o_old.kind == o_new.kind == "error" and _no_instance(o_old, o_new):
                # the same refusal on both: no input; put on an instance, and run again
                self.retry.append(o_old.message)
                self.redo.append(call)
                continue
            self.ran += 1
            self.mutants += call.source == "havoc"
            if oversized(o_old.kind, o_old.message) or oversized(o_new.kind, o_new.message):
                self.oversized += 1  # an error on a side compares as nothing: say so
            if self.full():
                continue
            stopped = o_old.blocked or o_new.blocked
            if stopped:  # the wall stopped it on a side: not compared, and said so (#31)
                self.blocked.append(stopped)
                continue
            if built_apart(o_old, o_new):
                self.apart += 1  # each version got another input: not compared, and said so
                continue
            if call.label.endswith(RETYPED) and o_old.kind == o_new.kind == "raised":
                continue  # a type the tests never pass, refused by both: no input (havoc.py)
            a, b = self._seen(o_old), self._seen(o_new)
            if difference(a, b, self.rel_tol) is not None:
                if by_state(a, b):
                    if len(self.by_state) >= MAX_WITNESSES:
                        continue
                    self.by_state.add(cid)
                self.suspects[cid] = (call, new.outcomes[cid], a, b)
                self.costs[cid] = max(old.took.get(cid, 0.0), new.took.get(cid, 0.0))

    def confirm(
        self, old: Side, new: Side, function_id: str, until: float
    ) -> tuple[list[Witness], int]:
        """The witnesses, and how many suspects the deadline left without a second run.

        Each suspect runs FIRST_AGAIN times on each side, then AGAIN in all where the first
        runs leave doubt (see AGAIN); each run of every suspect, cheapest first, before the
        next, so a deadline cuts the later runs and the dearest suspects (a large input) first.
        A suspect whose runs all agree with its first run is a witness; one the deadline cut
        short of them is one only when no suspect of the function varied."""
        if not self.suspects:
            return [], 0
        if time.monotonic() >= until:
            return [], len(self.suspects)
        ids, cheap = list(self.suspects), sorted(self.suspects, key=self.costs.__getitem__)
        got = self._again(old, new, cheap, range(FIRST_AGAIN), until)
        steady, varied, unconfirmed = self._sort(got, ids, FIRST_AGAIN)
        if steady and (varied or len(steady) < FEW) and time.monotonic() < until:
            more = self._again(old, new, list(steady), range(FIRST_AGAIN, AGAIN), until)
            got = ({**got[0], **more[0]}, {**got[1], **more[1]})
            steady, also, _ = self._sort(got, list(steady), AGAIN)
            varied += also
        self.unstable = [self.suspects[cid] for cid in varied]
        out: list[Witness] = []
        for cid, complete in steady.items():
            call, new_outcome, a, b = self.suspects[cid]
            if not complete and varied:
                unconfirmed += 1  # too few runs to tell it from its function's randomness
                continue
            kind = difference(a, b, self.rel_tol)
            if kind is None or len(out) >= MAX_WITNESSES:
                continue
            out.append(_witness(function_id, call, new_outcome, a, b, kind))
        return out, unconfirmed

    def _again(
        self, old: Side, new: Side, ids: list[str], runs: range, until: float
    ) -> tuple[dict[str, Outcome], dict[str, Outcome]]:
        """Runs ``runs`` of the suspects ``ids`` on both sides: each run of all before the next."""
        cases = [
            wire(f"{cid}~{r}", self.suspects[cid][0], watch_clock=True) for r in runs for cid in ids
        ]
        ran_old, ran_new = both(old, new, cases, until)
        return ran_old.outcomes, ran_new.outcomes

    def _sort(
        self, got: tuple[dict[str, Outcome], dict[str, Outcome]], ids: list[str], runs: int
    ) -> tuple[dict[str, bool], list[str], int]:
        """The suspects whose runs agree with their first (-> whether all ``runs`` came), those
        that varied on a side, and how many got no run on a side."""
        steady: dict[str, bool] = {}
        varied: list[str] = []
        unrun = 0
        for cid in ids:
            _, _, a, b = self.suspects[cid]
            runs_old, runs_new = self._runs(got[0], cid, runs), self._runs(got[1], cid, runs)
            if not runs_old or not runs_new:
                unrun += 1
            elif self._varies(a, runs_old, cid) or self._varies(b, runs_new, cid):
                varied.append(cid)  # it follows chance or the day
            else:
                steady[cid] = len(runs_old) == len(runs_new) == runs
        return steady, varied, unrun

    def _runs(self, got: dict[str, Outcome], cid: str, runs: int) -> list[Seen]:
        """A suspect's runs in the second run's workers, in order, up to the first missing."""
        out: list[Seen] = []
        for r in range(runs):
            o = got.get(f"{cid}~{r}")
            if o is None:
                break
            out.append(self._seen(o))
        return out

    def _varies(self, first: Seen, runs: Sequence[Seen], cid: str) -> bool:
        """Whether a side's outcome follows anything but the call: a run that read the clock,
        or one whose outcome is not the first run's. A suspect whose returned value or
        exception differs is judged on those alone: a state that varies between runs (a
        cache keyed by a per-process salt) made every such call "unstable", and a real
        change of value went unflagged (#32)."""
        state = cid in self.by_state
        return first.clock or any(
            r.clock or not same(first, r, self.rel_tol, state=state) for r in runs
        )

    def unstable_text(self, function_id: str) -> str:
        """The sentence for the calls that vary between runs of one version, or ""."""
        if not self.unstable:
            return ""
        n = len(self.unstable)
        shown = _witness(function_id, *self.unstable[0], "value")
        calls = "1 call differs" if n == 1 else f"{n} calls differ"
        return (
            f"unstable: {calls} between the versions and between runs of one version "
            f"(randomness, the clock, hash order), e.g. {shown.call}: not a behaviour change"
        )


def _witness(
    function_id: str, call: PoolCall, new_outcome: Outcome, a: Seen, b: Seen, kind: Any
) -> Witness:
    # Expressions (a test's `parse(date(2024, 1, 31))`) were evaluated by the new side's
    # worker: the witness shows, and accept writes, the values it built.
    args: Sequence[Any] = call.args
    kwargs: dict[str, Any] = call.kwargs
    # an instance the test built and prepared (exprs["self"]) is shown as it built it
    built = bool(call.exprs) and (new_outcome.args is None or "self" in (call.exprs or {}))
    if call.exprs and new_outcome.args is not None:
        args, kwargs = new_outcome.args, new_outcome.kwargs or {}
    shown = witness_call(function_id, list(args), kwargs, call.receiver)
    if built and call.exprs:  # arguments with no YAML form: the call as the tests build it
        shown = construction_call(function_id, call.exprs)
        if call.receiver:  # Renderer('-').render(parse('h1'))
            shown = witness_call(function_id, [], {}, call.receiver).rsplit(".", 1)[0] + "." + shown
    if call.then is not None:  # natsort_keygen()(x), sorted(xs, key=natsort_keygen())
        shown = then_call(shown, call.then)
    old, new = shown_states(a, b)
    return Witness(
        call=shown,
        old=old,
        new=new,
        kind=kind,
        args=tuple(args),
        kwargs=dict(kwargs) or None,
        receiver=call.receiver,
        source=call.source,
        built=call.exprs if built else None,
        then=call.then,
    )


def sides(old: Worker, new: Worker, old_id: str, new_id: str) -> tuple[Side, Side]:
    return Side(old, old_id, str(old.root)), Side(new, new_id, str(new.root))
