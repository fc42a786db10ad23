"""``run_check``: decide which specs a scope affects, verify them, and return one Report.

Decide first, act last: this returns a value; printing, files and exit codes belong to
the CLI and the Action.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from codemode.config import Config
from codemode.report.model import FunctionResult, Report
from codemode.scope import Scope, regen_command
from codemode.specs.discover import find_spec_files
from codemode.specs.index import index_specs
from codemode.worker.make import make_worker, started_worker
from codemode.worker.python import missing_module_hint

# The verification stack (worker, sandbox, comparison) is imported only when something is
# verified: a pre-commit run whose change touches no spec'd function should not pay for it.
if TYPE_CHECKING:
    from codemode.change.git import StagedChange
    from codemode.check import lanes
    from codemode.check.change_inputs import ChangeInputs
    from codemode.check.lanes import Unit
    from codemode.check.verify import VerifyResult
    from codemode.specs.index import SpecIndex
    from codemode.specs.types import SpecFile
    from codemode.worker.pool import Worker


def run_check(
    config: Config,
    scope: Scope,
    *,
    shard: tuple[int, int] | None = None,
    worker: Worker | None = None,
    staged: StagedChange | None = None,
    inputs: ChangeInputs | None = None,
) -> Report:
    """``staged``: ``git.staged_change(config.root)`` for a staged scope, when the caller has
    it (the hook's fast path asked git already); ``inputs``: the change's analysis, new side
    and spec files, when the caller computed them (``check.change_inputs``)."""
    started = time.perf_counter()
    if scope.is_change:
        report = _check_change(config, scope, shard, worker, staged, inputs)
    else:
        result, found = _check_files(config, scope, shard, worker)
        result.functions = _settled(config, config.root, result.functions)
        report = Report(
            functions=tuple(result.functions),
            problems=tuple(result.problems),
            notes=(no_specs_note(config),) if not found and scope.kind == "all" else (),
            scope=scope,
        )
    notes = list(report.notes)
    # Inside pre-commit's private env with no project interpreter, a missing module almost
    # always means "set the interpreter"; say how, once, not on each of twenty cases.
    hint = missing_module_hint(config, _messages(report))
    if hint:
        notes.append(hint)
    scratch = sys.modules.get("codemode.worker.scratch")  # imported by a worker, if any ran
    notes += scratch.wall_notes() if scratch else []  # where Landlock does not hold (#31)
    return report._replace(notes=tuple(notes), elapsed=time.perf_counter() - started)


def _check_files(
    config: Config, scope: Scope, shard: tuple[int, int] | None, worker: Worker | None
) -> tuple[VerifyResult, int]:
    """Every spec file of a paths or ``--all`` scope, verified; and how many there were."""
    paths = find_spec_files(config, scope.paths if scope.kind == "paths" else ())
    if worker is None:
        from codemode.check import lanes

        weights = [_size(p) for p in paths]
        count = lanes.lane_count(config.jobs, sum(weights))
        if count > 1 and paths and lanes.can_fork():
            units = lanes.queue(weights, count)
            load = _loader(paths, config.root, units)
            if not config.jobs and len(units) <= lanes.QUEUE_MAX:  # lanes stand by (default)
                return _with_standby(config, units, count, load, shard), len(paths)
            # Each lane parses its own files, in parallel; a file split between lanes is
            # parsed here once, and the lanes inherit it.
            for i in sorted({u.spec for u in units if u.parts > 1}):
                load(i)
            result = _in_lanes(config, config.root, units, count, load, None, False, shard)
            return result, len(paths)
    own = worker is None
    w = worker or make_worker(config)
    if own:
        w.spawn()  # the interpreter starts while the specs are parsed
    try:
        specs = _load_specs_at(paths, config.root)
        return _verify(config, w, specs, shard=shard), len(specs)
    finally:
        if own:
            w.close()


def _loader(paths: list[Path], root: Path, units: list[Unit]) -> Callable[[int], SpecFile]:
    """The spec file of a unit; a file split into several units is parsed once, and kept."""
    split = {u.spec for u in units if u.parts > 1}
    parsed: dict[int, SpecFile] = {}

    def load(i: int) -> SpecFile:
        spec = parsed.get(i) or _load_specs_at([paths[i]], root)[0]
        if i in split:
            parsed[i] = spec
        return spec

    return load


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # the loader says what is wrong with it


def _lane_work(
    config: Config,
    root: Path,
    load: Callable[[int], SpecFile],
    only: set[str] | None,
    trace: bool,
    shard: tuple[int, int] | None,
) -> lanes.Work[VerifyResult]:
    """What a lane does with the units it draws: each verified with a worker of its own,
    started once it has a first unit (a lane left without one starts nothing). The
    verification stack is imported in the lane, once it has a unit: a lane standing by is
    forked before this process imports it, and its worker starts meanwhile (#36)."""
    from codemode.check import lanes

    def work(mine: Iterable[Unit], send: lanes.Send[VerifyResult]) -> None:
        units = iter(mine)
        first = next(units, None)
        if first is None:
            return
        worker = make_worker(config, root)
        worker.spawn()
        from codemode.check.assertions import AssertionSandbox
        from codemode.check.verify import Verifier

        sandbox = AssertionSandbox()  # one per lane, not one per unit
        try:
            verifier = Verifier(config, worker, sandbox)
            drawn = itertools.chain([first], units)
            pieces = ((u, lanes.part_of(load(u.spec), u, only, shard)) for u in drawn)
            for piece in verifier.verify_pieces(pieces, only, trace, shard):
                send(piece)
        finally:
            sandbox.close()
            worker.close()

    return work


def _in_lanes(
    config: Config,
    root: Path,
    units: list[Unit],
    count: int,
    load: Callable[[int], SpecFile],
    only: set[str] | None,
    trace: bool,
    shard: tuple[int, int] | None,
) -> VerifyResult:
    """``_verify`` of the units in ``count`` lanes, each a fork with a worker of its own that
    takes the next unit when it is free (check/lanes.py); the result is the serial one, in
    the serial order."""
    # Imported here, before the lanes fork: once, not once in each lane (~30 ms of CPU each;
    # the worker's pool, ~8 ms more, on the way to each lane's first case).
    from codemode.check import assertions, lanes, verify  # noqa: F401
    from codemode.worker import pool  # noqa: F401

    work = _lane_work(config, root, load, only, trace, shard)
    try:
        return lanes.merge(lanes.run_queue(units, count, work))
    except lanes.LaneLost as lost:
        return lanes.merge(lanes.with_lost(lost, [units], load, only, shard))


def _with_standby(
    config: Config,
    units: list[Unit],
    count: int,
    load: Callable[[int], SpecFile],
    shard: tuple[int, int] | None,
) -> VerifyResult:
    """The units verified here, with ``count - 1`` lanes standing by (check/standby.py),
    each woken when it pays; the result is the serial one, in the serial order."""
    from codemode.check import lanes, standby

    helpers = standby.Standby(
        units, count - 1, _lane_work(config, config.root, load, None, False, shard)
    )
    mine: list[tuple[Unit, VerifyResult]] = []
    try:
        for _ in range(standby.at_once(lanes.available_cores())):
            helpers.wake()
        worker = started_worker(config)  # after the forks: its reader is a thread
        from codemode.check.assertions import AssertionSandbox
        from codemode.check.verify import Verifier

        sandbox = AssertionSandbox()
        try:
            verifier = Verifier(config, worker, sandbox)
            # The next unit is drawn (and its first block sent) while this one is judged.
            drawn = ((u, lanes.part_of(load(u.spec), u, None, shard)) for u in helpers.mine)
            cpu = time.process_time()
            for unit, result in verifier.verify_pieces(drawn, None, False, shard):
                mine.append((unit, result))
                helpers.drain()
                if standby.calls_outweigh_judging(result, time.process_time() - cpu):
                    helpers.wake()
                cpu = time.process_time()
        finally:
            sandbox.close()
            worker.close()
        pieces = helpers.finish()
    except lanes.LaneLost as lost:
        lost.pieces += mine
        return lanes.merge(lanes.with_lost(lost, [units], load, None, shard))
    finally:
        helpers.end()
    return lanes.merge(sorted([*mine, *pieces], key=lambda p: p[0]))


def no_specs_note(config: Config) -> str:
    """What an empty project hears instead of a bare "0 functions": where it looked, and how
    to start."""
    globs = ", ".join(config.specs)
    roots = ", ".join(config.source_roots)
    return (
        f"no spec files found under {config.root}: searched {globs} "
        "(the `specs` globs of [tool.codemode])\n"
        f"To write a first spec for every function (source roots: {roots}):\n"
        "  codemode regen --all"
    )


def _verify(
    config: Config,
    worker: Worker,
    specs: list[SpecFile],
    only: set[str] | None = None,
    trace: bool = False,
    shard: tuple[int, int] | None = None,
) -> VerifyResult:
    from codemode.check.verify import Verifier

    return Verifier(config, worker).verify(specs, only, trace, shard)


def _settled(
    config: Config,
    root: Path,
    functions: list[FunctionResult],
    specs: list[SpecFile] | None = None,
) -> list[FunctionResult]:
    """``functions``, a drift that follows the hash seed made ``unstable`` (check/hash_order.py);
    imported only when a case drifted."""
    if not any(f.status == "drifted" for f in functions):
        return functions
    from codemode.check.hash_order import settle

    return settle(config, root, functions, specs)


def _messages(report: Report) -> Iterator[str]:
    for f in report.functions:
        yield f.message or ""
        yield from (c.message or "" for c in f.cases)


def _check_change(
    config: Config,
    scope: Scope,
    shard: tuple[int, int] | None,
    worker: Worker | None,
    staged: StagedChange | None,
    inputs: ChangeInputs | None,
) -> Report:
    """The check of a change scope, on ``inputs`` when the caller computed them (the
    behaviour diff uses the same), else on its own, removed when done."""
    if inputs is None:
        from codemode.check.change_inputs import prepare_change

        with prepare_change(config, scope, staged) as own:
            return _check_prepared(config, scope, shard, worker, staged, own)
    return _check_prepared(config, scope, shard, worker, staged, inputs)


def _check_prepared(
    config: Config,
    scope: Scope,
    shard: tuple[int, int] | None,
    worker: Worker | None,
    staged: StagedChange | None,
    inputs: ChangeInputs,
) -> Report:
    from codemode.check import review
    from codemode.check.classify import classify_change

    analysis, root = inputs.analysis, inputs.root
    plan = review.prepare(config, scope, analysis, staged)  # the spec files the change edited
    removed = plan.removed_at_head(analysis.head_ids) if plan else []
    index, result, removed_runs = _verify_change(config, inputs, shard, worker, removed)
    verified = result.functions if result else ()
    functions = classify_change(
        analysis,
        index,
        verified,
        result.lines if result else None,
        shard=shard,
        source=lambda path: _read_text(root / path),
        regen=regen_command(scope) or "codemode regen --staged",
    )
    reviews = review.build(plan, verified, removed_runs, analysis) if plan else ()
    return Report(
        functions=tuple(functions),
        problems=tuple(result.problems) if result else (),
        reviews=reviews,
        notes=tuple(analysis.problems),
        scope=scope,
    )


def _verify_change(
    config: Config,
    inputs: ChangeInputs,
    shard: tuple[int, int] | None,
    worker: Worker | None,
    removed: list[SpecFile],
) -> tuple[SpecIndex, VerifyResult | None, list[FunctionResult]]:
    """Verify the functions of the change in the specs it can affect, then run the cases the
    change removed at head (the worker's lifetime, when it is ours, is this call)."""
    from codemode.check import lanes
    from codemode.check.classify import to_verify

    own = worker is None
    root = inputs.root
    try:
        # Work that may fill lanes starts no worker here: each lane starts its own.
        may_split = own and inputs.named > 1 and lanes.lane_count(config.jobs, inputs.size()) > 1
        if (inputs.reads or removed) and own and not may_split:
            # The worker's interpreter starts while the YAML is imported and parsed.
            worker = started_worker(config, root)
        specs = inputs.specs()
        index = index_specs(specs)
        result = None
        if specs:
            only = to_verify(inputs.analysis, index, shard)
            if may_split:
                result = _change_in_lanes(config, root, specs, only, shard)
            if result is None:
                worker = worker or started_worker(config, root)
                result = _verify(config, worker, specs, only=only, trace=True, shard=shard)
            result.functions = _settled(config, root, result.functions, specs)
        runs: list[FunctionResult] = []
        if removed:
            worker = worker or started_worker(config, root)
            runs = _verify(config, worker, removed, shard=shard).functions
        return index, result, runs
    finally:
        if own and worker is not None:
            worker.close()


def _change_in_lanes(
    config: Config,
    root: Path,
    specs: list[SpecFile],
    only: set[str],
    shard: tuple[int, int] | None,
) -> VerifyResult | None:
    """The change's function blocks in lanes, when they are enough to pay for them."""
    from codemode.check import lanes
    from codemode.shard import in_shard

    runs = [[f for f in s.functions if f.id in only and in_shard(f.id, shard)] for s in specs]
    weights = [lanes.CASE_BYTES * sum(len(f.cases) for f in fs) for fs in runs]
    # A function's blocks are never split: no more lanes than functions.
    count = min(lanes.lane_count(config.jobs, sum(weights)), sum(map(len, runs)))
    if count < 2 or not lanes.can_fork():
        return None
    units = lanes.queue(weights, count)
    return _in_lanes(config, root, units, count, specs.__getitem__, only, True, shard)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _load_specs_at(paths: list[Path], root: Path, project: Path | None = None) -> list[SpecFile]:
    if not paths:
        return []
    from codemode.specs.spec_files import load_spec_files  # yaml: only when a spec matters

    return load_spec_files(paths, root, project)
