"""``regen --jobs N``: functions explored in N lanes at once (#20).

The lanes are ``check``'s (``check/lanes.py``): forks of this process, each running the
regen of its share of the functions (exploring, the mutation analysis that chooses the
cases, the gate, the write) with workers of its own, while this process shows the progress.
A share is made of whole groups: every function whose cases go to one spec file and every
function of one module are in one group, so two lanes never write one file, and a module is
imported by one lane's workers only. A lane writes each function's cases as it finishes, in
the targets' order, atomically and under the file's lock, as a serial run does; it sends
each result (and a file's text before its first write, for the run's diff) as soon as it is
written. This process shows the progress lines in the targets' order and builds the report
from the results in that order, so the files and the report are the ones ``--jobs 1`` gives.

Only the offline explorer runs in lanes: a model's run draws on one budget (requests, cost,
seconds) in the order its functions ask, and on one cache of answers, which lanes would
split by timing; it overlaps the model's latency with ``concurrency`` in one process.
Memory stays bounded by N: each lane explores at most ``concurrency`` functions at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from codemode.check import lanes
from codemode.config import Config
from codemode.errors import FatalError
from codemode.explore.writing.plan import Done, Target, new_spec_rel, spec_for
from codemode.specs.index import SpecIndex

if TYPE_CHECKING:
    from codemode.explore.writing.regen import Run

Explore = Callable[[list[Target]], list[Done]]


def groups(config: Config, index: SpecIndex, targets: list[Target]) -> list[list[int]]:
    """The targets' indices in groups that hold every target of a spec file and of a module,
    each group in the targets' order, the groups in the order of their first target."""
    parent = list(range(len(targets)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[str, int] = {}
    for i, t in enumerate(targets):
        for key in _keys(config, index, t.id):
            j = find(first.setdefault(key, i))
            parent[find(i)] = j
    out: dict[int, list[int]] = {}
    for i in range(len(targets)):
        out.setdefault(find(i), []).append(i)
    return sorted(out.values())


def _keys(config: Config, index: SpecIndex, fid: str) -> tuple[str, ...]:
    """The spec file a function's cases go to (as ``_Run._explore`` finds it) and its module."""
    from codemode.explore.target import split_id

    found = spec_for(index, fid)
    try:
        module = split_id(config, fid)[0]
    except FatalError:  # no module: the function fails alone, and writes nothing
        return (f"spec {found[0].rel}",) if found else ()
    rel = found[0].rel if found else new_spec_rel(config, index, module)
    return f"spec {rel}", f"module {module}"


def in_lanes(run: Run, targets: list[Target], explore: Explore) -> list[Done] | None:
    """Every target's result in the targets' order, explored in lanes; None when the run
    should stay in this process (one lane, or no fork)."""
    shares = groups(run.config, run.index, targets)
    # One function's exploration (a worker start, its mutants, the gate) outweighs a lane's
    # start: by default, a lane for each group up to the cores available.
    count = min(lanes.lane_count(run.config.jobs, len(shares) * lanes.LANE_BYTES), len(shares))
    if count < 2 or not lanes.can_fork():
        return None
    plan = lanes.plan([len(g) for g in shares], count, split=False)
    _preload()

    def work(units: Iterable[lanes.Unit], send: lanes.Send[tuple[Done, str | None]]) -> None:
        mine = sorted(i for u in units for i in shares[u.spec])
        at = {targets[i].id: i for i in mine}
        sent: set[str] = set()

        def on_done(done: Done) -> None:
            rel = done.spec_rel or ""
            before = run.before.get(rel) if rel not in sent else None
            if before is not None:
                sent.add(rel)
            send((at[done.id], (done, before)))

        # This process's copy of the run writes its files; the parent shows the progress.
        run.write_here, run.progress, run.on_done = True, None, on_done
        run.order = [targets[i].id for i in mine]
        try:
            explore([targets[i] for i in mine])
        finally:
            run.gate_workers.close()

    def arrived(piece: tuple[object, tuple[Done, str | None]]) -> None:
        done, before = piece[1]
        if before is not None and done.spec_rel:
            run.before.setdefault(done.spec_rel, before)
        run._finished(done)  # the progress line, in the targets' order

    run.write_here = False
    try:
        got = {i: done for i, (done, _) in lanes.run_lanes(plan, work, arrived)}
    except lanes.LaneLost as exc:  # its functions fail, the other lanes' stand
        got = {i: done for i, (done, _) in exc.pieces}
        for i, t in enumerate(targets):
            if i not in got:
                why = f"not explored: {exc} (killed? out of memory?); the spec was kept as it was"
                got[i] = Done(t.id, "error", why)
                run._finished(got[i])
    finally:
        run.write_here = True
    return [got[i] for i in range(len(targets))]


def _preload() -> None:
    """What each lane's exploration imports (the explorer, the mutation analysis, the gate,
    pydantic through the evaluators' models: ~0.23 s of CPU), imported once before the forks
    rather than once in each lane."""
    import codemode.check.assertions
    import codemode.explore.llm.pipeline
    import codemode.explore.offline.explorer
    import codemode.explore.record
    import codemode.explore.selection.by_mutation
    import codemode.explore.writing.gate  # noqa: F401
