"""The gate before writing: every new case, as it will be written, run twice in two workers.

The cases are written into the spec file's text and parsed back with the spec loader first,
so the gate judges exactly what lands on disk (a tuple that becomes a list, a float that
rounds, the block's serializer and fixtures, the hand-written cases that run before). Each
run is a function block in a forked child, as in ``check``, so what other functions did in
those workers cannot change it. A case that fails in any run is not written.

Two runs let a coin flip through one time in four (#22): a case whose output is a 50/50 pick
agrees with its record in both runs with probability 1/4. So the block runs ``GATE_RUNS``
times (two workers, alternating): a 50/50 output agrees with the record in all ten with
probability 1/1024, a 90/10 one still one time in three (no repeat count catches that; the
README says so). The runs after one per worker stop early when the block is slow
(``GATE_SECONDS``): a case that takes seconds is rarely a coin flip, and regen must end.

An output can also vary per process and never within one: a list made from a set of
strings follows the process's hash seed. Forked children share their worker's seed, so runs
that alternate two workers see two seeds, and a two-item order slipped through one time in
four (the record's process agreeing with both), to drift later in `check`. So the runs go
to ``GATE_PROCESSES`` workers in turn, each started with a hash seed of its own: with the
record's, five seeds, and a two-item order slips through one time in sixteen. That was
still a false alarm in one of two complete runs of benchmarks/upgrade_detection.py (emoji's
`distinct_emoji_list`, a two-item list from a set). So a block whose outputs hold an order
(a list or tuple of two items or more) that passed every run goes to ``EXTRA_SEEDS`` more
workers, started only then: nine seeds, and a two-item order slips through one time in 256.
Blocks without such an output (most) never start them.

An output can also hold where this checkout is: a relative path made absolute against the
working directory (`file:///home/alice/proj/x`), the user's home. Every run here agrees, and
`check` on another checkout (CI's runner, a colleague's clone) fails: the benchmark's cached
specs drifted so when its temporary repository moved (w3lib's `any_to_uri`). Such a case is
not written, and the summary says which path it holds.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codemode.check.verify import Verifier
from codemode.config import Config
from codemode.report.model import CASE_PASSED, FunctionResult
from codemode.specs.load import parse_spec_text
from codemode.specs.write import FunctionUpdate, apply_updates
from codemode.worker.pool import Worker

GATE_RUNS = 10  # a 50/50 output matches its record in every run with probability 2**-10
GATE_SECONDS = 3.0  # wall time the runs after the second may take, per function
GATE_PROCESSES = 4  # workers (hash seeds) the runs go to in turn; started when first needed
EXTRA_SEEDS = 4  # more workers for a block whose passing outputs hold an order


@dataclass
class GateResult:
    passed: list[str] = field(default_factory=list)
    nondeterministic: list[str] = field(default_factory=list)  # the runs disagreed
    why: dict[str, str] = field(default_factory=dict)  # case id -> why it was not written
    unfaithful: list[str] = field(default_factory=list)  # both runs agree, but not with the record
    located: list[str] = field(default_factory=list)  # the output holds this checkout's path
    evaluators_failed: list[str] = field(default_factory=list)


def run_gate(
    config: Config,
    update: FunctionUpdate,
    *,
    base: str = "",
    rel: str = "gate.yml",
    workers: Sequence[Worker],
    runs: int = GATE_RUNS,
    more: Callable[[], AbstractContextManager[Sequence[Worker]]] | None = None,
) -> GateResult:
    """Run the function's block as it will be written into ``base`` (the spec file's current
    text, "" for a new file), the way ``check`` runs it: every case of the block in file order,
    with the block's fixtures and serializer. Run ``n`` goes to ``workers[n % len(workers)]``:
    separate processes, so each has a hash seed of its own. ``more`` lends the workers of
    the extra seeds, asked for only when a passing output holds an order."""
    text = apply_updates(base, [update])
    spec = parse_spec_text(text, config.root / rel, rel)
    func = spec.function(update.function_id)
    result = GateResult()
    if func is None or func.error:
        why = func.error if func is not None else "not found"
        result.unfaithful = [str(c["id"]) for c in update.cases]
        result.evaluators_failed = [f"the generated block does not load: {why}"]
        return result
    observed: list[dict[str, tuple[bool, Any]]] = []
    failed_checks: set[str] = set()
    started = time.monotonic()
    for n in range(max(runs, len(workers))):
        # A slow block stops early, but not before one run per worker: the seeds are what
        # shows a per-process order (on a loaded machine emoji 1.7's block stopped after two)
        slow = n >= len(workers) and time.monotonic() - started > GATE_SECONDS
        if n >= 2 and (slow or _settled(observed, update)):
            break
        fr, _ = Verifier(config, workers[n % len(workers)]).verify_function(spec, func)
        observed.append(_run(fr, update, failed_checks))
    if more is not None and _holds_order(observed, update):
        with more() as extra:
            for w in extra:
                fr, _ = Verifier(config, w).verify_function(spec, func)
                observed.append(_run(fr, update, failed_checks))
    _sort(result, update, observed)
    _locate(result, update, observed, here(config), config.root)
    result.evaluators_failed = sorted(failed_checks)
    return result


def _run(
    fr: FunctionResult, update: FunctionUpdate, failed_checks: set[str]
) -> dict[str, tuple[bool, Any]]:
    run: dict[str, tuple[bool, Any]] = {}
    for c in fr.cases:
        # A failing global evaluator is dropped by the caller; the case itself may be right.
        own = [k for k in c.checks if k.passed is False and k.name not in update.evals]
        failed_checks |= {k.name for k in c.checks if k.passed is False and k.name in update.evals}
        ok = c.status == CASE_PASSED or (not own and c.status != "error" and bool(c.checks))
        run[c.id] = (ok, c.observed)
    return run


def ordered(value: Any, depth: int = 0) -> bool:
    if depth > 50:  # an output nested this deep: assume an order rather than recurse on
        return True
    if isinstance(value, (list, tuple)):
        return len(value) >= 2 or any(ordered(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(ordered(v, depth + 1) for v in value.values())
    return False


def _holds_order(observed: list[dict[str, tuple[bool, Any]]], update: FunctionUpdate) -> bool:
    """A new case passed every run so far with an output that holds an order."""
    for c in update.cases:
        outcomes = [o.get(str(c["id"]), (False, None)) for o in observed]
        if all(ok for ok, _ in outcomes) and any(ordered(v) for _, v in outcomes):
            return True
    return False


def _settled(observed: list[dict[str, tuple[bool, Any]]], update: FunctionUpdate) -> bool:
    """No new case passed every run so far: more runs cannot change what is written."""
    return not any(
        all(o.get(str(c["id"]), (False, None))[0] for o in observed) for c in update.cases
    )


def _sort(result: GateResult, update: FunctionUpdate, observed: list[dict[str, Any]]) -> None:
    from codemode.compare import render

    for new in update.cases:
        cid = str(new["id"])
        outcomes = [o.get(cid, (False, None)) for o in observed]
        if all(ok for ok, _ in outcomes):
            result.passed.append(cid)
        elif len({repr(v) for _, v in outcomes}) > 1:
            result.nondeterministic.append(cid)
            bad = next(i for i, (ok, _) in enumerate(outcomes) if not ok)
            result.why[cid] = (
                f"run {bad + 1} of {len(outcomes)} gave {render(outcomes[bad][1])[:80]}, "
                f"{sum(1 for ok, _ in outcomes if not ok)} of them disagreed with the record"
            )
        else:
            result.unfaithful.append(cid)
            result.why[cid] = f"every run gave {render(outcomes[0][1])[:80]}, not the record"


def here(config: Config) -> re.Pattern[str] | None:
    """This checkout's paths, as they would appear in an output: the project's root and the
    user's home, each ending where a path's name ends."""
    paths = {str(config.root.resolve()), str(config.root)}
    home = os.path.expanduser("~")
    if len(home) > 1:
        paths.add(home)
    paths = {p for p in paths if len(p) > 1}
    if not paths:
        return None
    alts = "|".join(re.escape(p) for p in sorted(paths, key=len, reverse=True))
    return re.compile(rf"(?:{alts})(?![\w.-])")


def _locate(
    result: GateResult,
    update: FunctionUpdate,
    observed: list[dict[str, Any]],
    paths: re.Pattern[str] | None,
    root: Path,
) -> None:
    """Moves the passing cases whose output holds this checkout's path, or lists its files
    (listed_files.py), out of ``passed``."""
    from codemode.compare import render
    from codemode.explore.writing.listed_files import listed

    cases = {str(c.get("id")): c for c in update.cases}
    for cid in list(result.passed):
        values = [v for _, v in (o.get(cid, (False, None)) for o in observed)]
        found = None
        if paths is not None:
            found = next((m for m in map(paths.search, map(render, values)) if m), None)
        if found is not None:
            why = f"its output holds this checkout's path {found[0]!r}"
        elif names := listed(root, cases.get(cid, {}), values[:1]):
            why = f"its output lists this checkout's files ({', '.join(map(repr, names[:3]))})"
        else:
            continue
        result.passed.remove(cid)
        result.located.append(cid)
        result.why[cid] = why


class GateWorkers:
    """Idle gate workers handed out to the concurrent explorations and taken back: each block
    runs in a forked child, so one worker start (and import) per process serves every function."""

    def __init__(self, make: Callable[[], Worker]) -> None:
        self.make = make
        self.idle: list[Worker] = []
        self.every: list[Worker] = []
        self.lock = threading.Lock()

    @contextlib.contextmanager
    def take(self, n: int) -> Iterator[list[Worker]]:
        with self.lock:
            got = [self.idle.pop() for _ in range(min(n, len(self.idle)))]
        fresh = [self.make() for _ in range(n - len(got))]
        with self.lock:
            self.every += fresh
        try:
            yield got + fresh
        finally:
            with self.lock:
                self.idle += got + fresh

    def close(self) -> None:
        for w in self.every:
            w.close()


def seeded(worker: Worker) -> Worker:
    """A gate worker hashes strings with a seed of its own, even where the user's environment
    fixes PYTHONHASHSEED: an output that follows the seed (a list made from a set) varies
    between processes in CI, so the gate must see it vary (#18)."""
    worker.env["PYTHONHASHSEED"] = "random"
    return worker
