"""A drifted case whose output differs from its record only in order, run again under other
hash seeds: when the order moves with the seed, the case is no drift (#32).

A list made from a set of strings follows the process's ``PYTHONHASHSEED``. Regen's gate
runs a block under nine seeds before it writes it (explore/writing/gate.py), but a two-item
order still slips through one time in 256, and a spec written by hand or by an older codemode
may pin one. ``check`` runs a function's cases in one worker, under one seed, so re-running
the case there shows the same order every time: emoji 1.7's ``distinct_emoji_list`` case
(``[🇫🇷, 👌]``) read ``drifted`` in a run of benchmarks/upgrade_detection.py whose seed
gave ``[👌, 🇫🇷]``, a false alarm on a function the upgrade did not change.

So a function whose every failing case is such a reordering (of the record's items, the
same multiset) runs its block again in workers started with other seeds, ``SEEDS`` at most,
two at a time; a case whose output's order changes between them follows the seed, and a
function whose every failing case does so gets ``unstable`` (outside the default fail_on)
with a message that says which case and how to write it. The case keeps its ``drifted``
status and both outputs. A real reordering (a ``sorted`` dropped) gives one order under
every seed and stays ``drifted``. Nothing of this runs unless a case drifted so: a passing
check pays for a loop over its failing cases only. Comparing order-free instead would have
been cheaper, but also blind to a change of order that does not follow the seed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemode.config import Config
from codemode.report.model import CASE_DRIFTED, CASE_FAILED, CaseResult, FunctionResult

if TYPE_CHECKING:
    from codemode.specs.types import SpecFile
    from codemode.worker.pool import Worker

# Workers with seeds of their own, at most, per check; two by two, the next two only while a
# case kept its order. A two-item order that follows the seed keeps it under six other seeds
# one time in 64 (after regen's gate let it through one time in 256); a three-item one about
# one time in 50,000.
SEEDS = 6
_DEPTH = 30  # an output nested deeper is compared as it is, not as a multiset


def reordered(expected: Any, observed: Any) -> bool:
    """Whether ``observed`` holds ``expected``'s items in another order (at any depth of
    lists), and differs from it in nothing else."""
    return expected != observed and _unordered(expected) == _unordered(observed)


def _unordered(value: Any, depth: int = 0) -> Any:
    if depth > _DEPTH:
        return repr(value)
    if isinstance(value, list):
        return ("list", tuple(sorted(repr(_unordered(v, depth + 1)) for v in value)))
    if isinstance(value, dict):
        items = value.items()
        return ("dict", tuple(sorted((repr(k), repr(_unordered(v, depth + 1))) for k, v in items)))
    return value


def _suspects(f: FunctionResult) -> list[CaseResult]:
    """The function's failing cases when each is a reordering of its record, else none."""
    failing = [c for c in f.cases if c.status in (CASE_DRIFTED, CASE_FAILED)]
    if f.status != "drifted" or not failing:
        return []
    if all(c.has_expected and reordered(c.expected, c.observed) for c in failing):
        return failing
    return []


def settle(
    config: Config,
    root: Path,
    functions: Sequence[FunctionResult],
    specs: Sequence[SpecFile] | None = None,
) -> list[FunctionResult]:
    """``functions`` with each whose drift follows the hash seed made ``unstable``. ``specs``:
    the spec files verified (else each is read from ``root``)."""
    todo = [i for i, f in enumerate(functions) if _suspects(f)]
    if not todo:
        return list(functions)
    out = list(functions)
    with _Seeds(config, root) as seeds:
        for i in todo:
            spec = _spec(out[i], root, specs)
            func = spec.function(out[i].id) if spec is not None else None
            if func is not None:
                out[i] = _judge(config, out[i], func, spec, seeds)
    return out


def _spec(f: FunctionResult, root: Path, specs: Sequence[SpecFile] | None) -> SpecFile | None:
    for s in specs or ():
        if s.rel == f.spec:
            return s
    if specs is not None or f.spec is None:
        return None
    from codemode.specs.spec_files import load_spec_files

    got = load_spec_files([root / f.spec], root)
    return got[0] if got else None


def _judge(
    config: Config, f: FunctionResult, func: Any, spec: SpecFile, seeds: _Seeds
) -> FunctionResult:
    """``f`` made ``unstable`` when each of its failing cases shows another order under
    another seed; as it was when one keeps its order under all of them."""
    from codemode.check.verify import Verifier

    first = {c.id: c.observed for c in _suspects(f)}
    moved: dict[str, Any] = {}
    for worker in seeds.workers():
        verifier = Verifier(config, worker)
        try:
            again, _ = verifier.verify_function(spec, func)
        finally:
            verifier.sandbox.close()
        for c in again.cases:
            if c.id in first and c.id not in moved and reordered(first[c.id], c.observed):
                moved[c.id] = c.observed
        if len(moved) == len(first):
            from codemode.compare import render

            case = next(c for c in f.cases if c.id in moved)
            # the project's outputs, bounded: a reordered list of thousands of items is one line
            one, other = render(case.observed)[:80], render(moved[case.id])[:80]
            message = (
                f"the order of case {case.id}'s output follows the process's hash seed (a set's "
                f"order): {one} under one seed, {other} under another; "
                "the spec cannot pin it (compare it order-free, e.g. sorted)"
            )
            return f._replace(status="unstable", message=message)
    return f


class _Seeds:
    """Workers for the re-runs, each with a hash seed of its own, started two at a time when
    first needed, never forked from the warm worker (a fork keeps its parent's seed)."""

    def __init__(self, config: Config, root: Path) -> None:
        self.config, self.root = config.replace(warm_worker=False), root
        self.started: list[Worker] = []

    def __enter__(self) -> _Seeds:
        return self

    def __exit__(self, *exc: object) -> None:
        for w in self.started:
            w.close()

    def workers(self) -> Iterator[Worker]:
        for at in range(SEEDS):
            if at >= len(self.started):
                self._start(min(2, SEEDS - at))
            yield self.started[at]

    def _start(self, n: int) -> None:
        from codemode.worker.make import make_worker

        for _ in range(n):
            w = make_worker(self.config, self.root)
            # "random": the interpreter picks its own seed, even where the user fixes one
            w.env["PYTHONHASHSEED"] = "random"
            w.spawn()
            self.started.append(w)
