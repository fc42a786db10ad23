"""The behaviour diff of one change: which functions, which trees, and the verdicts it adds.

``check_change(config, scope)`` is what the delivery layers call for a change scope: the
spec check (``check.run.run_check``), then the behaviour diff on the same change (its
analysis is cached, its new tree is what the check verified). For each changed or impacted public function that exists on both
sides, the old version (HEAD for ``--staged``/``--worktree``, the merge base for ``--base``)
and the new one run on the pool of ``explore.offline.input_pool.pool_for``; a function with witnesses gets
the verdict ``changed`` (a drifted or broken function keeps its verdict and gains them).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from codemode.config import Config
from codemode.report.model import DiffRun, FunctionResult, Report
from codemode.scope import Scope
from codemode.shard import in_shard
from codemode.verdicts import DIFFED, Verdict

# The engine (the worker, the pool's parsers) is imported only when a function is diffed:
# a commit that changes no public function pays nothing for it.
if TYPE_CHECKING:
    from codemode.behaviour.bounded import Side
    from codemode.behaviour.engine import FunctionDiff
    from codemode.behaviour.parallel import Part
    from codemode.change.diff import ChangedFunction, DiffResult
    from codemode.change.git import StagedChange
    from codemode.check.change_inputs import ChangeInputs
    from codemode.explore.offline.input_pool import PoolCall
    from codemode.specs.index import SpecIndex
    from codemode.worker.pool import Worker

# What the check (in this process) and the diff (in its fork) both import: imported once,
# before the fork, which then shares it (each importing its own copy cost ~50 ms of CPU).
_SHARED = (
    "codemode.behaviour.engine",  # the diff's records, unpickled here
    "codemode.change.side_tree",
    "codemode.specs.spec_files",  # not the YAML loader: spec files parsed before are cached
    "codemode.worker.pool",
    "codemode.worker.warm_client",
)
# Verdicts a witness takes over: they say less than "this call now does something else"
# (a spec case whose exception message alone changed included: a witness of another value
# must fail as it would without that case, #32; a drift that follows the hash seed too).
_WEAKER = ("ok", "stale", "missing", "message_changed", "unstable")


def check_change(
    config: Config,
    scope: Scope,
    *,
    shard: tuple[int, int] | None = None,
    staged: StagedChange | None = None,
    worker: Worker | None = None,
) -> Report:
    """``run_check`` with the behaviour diff of a change scope (other scopes: as they were).
    The change's analysis, new side and spec files are computed once, here, and handed to
    both (``check.change_inputs``)."""
    from codemode.check.run import run_check

    started = time.perf_counter()
    if not scope.is_change or not config.diff:
        return run_check(config, scope, shard=shard, staged=staged, worker=worker)
    from codemode.check.change_inputs import prepare_change

    with prepare_change(config, scope, staged) as inputs:
        targets = diff_targets(inputs.analysis, shard)
        if not targets:  # nothing to diff: the check alone, as it was
            return run_check(
                config, scope, shard=shard, staged=staged, worker=worker, inputs=inputs
            )
        got = _check_and_diff(config, scope, shard, staged, worker, inputs, targets)
    return _with_diff(got[0], got[1], targets, started)


def _check_and_diff(
    config: Config,
    scope: Scope,
    shard: tuple[int, int] | None,
    staged: StagedChange | None,
    worker: Worker | None,
    inputs: ChangeInputs,
    targets: list[ChangedFunction],
) -> tuple[Report, Diffs]:
    from codemode.check.run import run_check

    if worker is None:
        from codemode.behaviour.ahead import Ahead

        inputs.specs()  # parsed before the fork: the fork has them too, not a parse of its own
        # The diff in a fork, with workers of its own, while the check runs here.
        ahead = Ahead.start(lambda: diff_apart(config, scope, targets, inputs), _SHARED)
        if ahead is not None:
            with ahead:
                report = run_check(config, scope, shard=shard, staged=staged, inputs=inputs)
                got = ahead.result()
            if got is None:  # the fork failed: the diff runs here, after the check
                got = diff_apart(config, scope, targets, inputs)
            return report, got
    # A change of one function: the check verifies it in one worker, never in lanes (#20),
    # and that worker can serve the diff; a larger one keeps its lanes and the diff its own.
    analysis = inputs.analysis
    share = worker is None and len(analysis.functions) + len(analysis.renames) <= 1
    with _Sides(config, scope, share, inputs.new_side, inputs.staged) as sides:
        new = worker or sides.new
        report = run_check(config, scope, shard=shard, staged=staged, worker=new, inputs=inputs)
        got = _diff_on(config, sides, targets, inputs)
    return report, got


class Diffs(NamedTuple):
    """What the diff of a change found, apart from the check's verdicts (picklable: it may
    come from a fork)."""

    ran: bool  # False: no old side (no commit yet), nothing was compared
    diffs: list[FunctionDiff]
    # per function of the spec files that name a target: (case id, call key, whether the
    # case states the outcome), for ``pinned``
    keys: dict[str, list[tuple[str, str, bool]]]
    took: float


def diff_apart(
    config: Config, scope: Scope, targets: Sequence[ChangedFunction], inputs: ChangeInputs
) -> Diffs:
    """The diff of ``targets`` with workers of its own (ahead of the check)."""
    with _Sides(config, scope, False, inputs.new_side, inputs.staged) as sides:
        return _diff_on(config, sides, targets, inputs)


def _diff_on(
    config: Config, sides: _Sides, targets: Sequence[ChangedFunction], inputs: ChangeInputs
) -> Diffs:
    if sides.old_root is None:
        return Diffs(False, [], {}, 0.0)
    from codemode.specs.index import index_specs

    started = time.perf_counter()
    # the spec files the check verifies: their inputs join the pool, and their passing
    # cases say what was accepted
    index = index_specs(inputs.specs())
    old_files = _old_files(inputs.analysis, targets)
    diffs = run_diff(config, targets, sides.old_root, sides.new_root, index, old_files, sides)
    return Diffs(True, diffs, case_keys(index), time.perf_counter() - started)


def _with_diff(
    report: Report, got: Diffs, targets: Sequence[ChangedFunction], started: float
) -> Report:
    """The check's report with the diff's witnesses merged in, and its note."""
    functions = list(report.functions)
    notes = []
    run = None
    if got.ran:
        from codemode.behaviour.left_out import dropped_notes
        from codemode.behaviour.parallel import processes

        run = DiffRun(len(targets), processes(len(targets)), got.took)
        notes += short_notes(got.diffs)
        notes += dropped_notes(got.diffs)  # behaviour/left_out.py
        accepted, covered = pinned(got.keys, functions)
        functions = merge(functions, got.diffs, targets, accepted, covered)
    return report._replace(
        functions=tuple(functions),
        notes=(*report.notes, *notes),
        elapsed=time.perf_counter() - started,
        diff=run,
    )


MAX_SHORT_NOTES = 10  # one line each; the JSON report's rows have every function's note


def short_notes(diffs: Sequence[FunctionDiff]) -> list[str]:
    """A line for each function whose search stopped short (the budget cut it...): in every
    output, the terminal's too, where a function with nothing else to say has no row (#33)."""
    short = [d for d in diffs if d.short]
    out = [f"behaviour diff of {d.id}: {d.note}" for d in short[:MAX_SHORT_NOTES]]
    if len(short) > MAX_SHORT_NOTES:
        more = len(short) - MAX_SHORT_NOTES
        out.append(f"behaviour diff: {more} more functions not fully compared (see --format json)")
    return out


class _Sides:
    """The two sides of a diff and a worker for each, set up before the check runs: the old
    side's interpreter starts while the check verifies (two cores), and with ``share``, where
    the work tree is the new side, the check's own worker serves as the diff's new side
    afterwards: one interpreter fewer (~45 ms of CPU on a hook run). The check runs the
    spec's cases in forked children (worker/leaks.py), so the diff finds that worker as fresh
    as a new one. Both get one hash seed."""

    def __init__(
        self,
        config: Config,
        scope: Scope,
        share: bool,
        new_side: Path | None,
        staged: StagedChange | None = None,
    ) -> None:
        self.config, self.scope, self.share = config, scope, share
        self.staged = staged
        self.new_side = new_side  # the run's (check.change_inputs): not this one's to remove
        self.old_tmp: Path | None = None
        self.old_root: Path | None = None  # the old side's changed files (change/old_side.py)
        self.old_manifest: Path | None = None
        self.new: Worker | None = None
        self.old: Worker | None = None
        self.seed = ""

    @property
    def new_root(self) -> Path:
        return self.new_side or self.config.root

    def __enter__(self) -> _Sides:
        try:
            old = _old_side(self.config, self.scope, self.staged)
            if old is None:
                return self  # no old side (no commit yet): nothing to diff
            self.old_tmp, self.old_root, self.old_manifest = old
            if self.share and self.new_side is None:
                self.new = _worker(self.config, self.config.root)
            # the new side's seed, else the worker's own (a warm worker's, or the user's)
            seed = self.new.env["PYTHONHASHSEED"] if self.new is not None else None
            self.old = _worker(self.config, self.config.root, seed, self.old_manifest)
            self.seed = self.old.env["PYTHONHASHSEED"]
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        from codemode.behaviour.ahead import after_reply

        after_reply(self._close)

    def _close(self) -> None:
        from codemode.tempdirs import remove

        try:
            for w in (self.new, self.old):
                if w is not None:
                    w.close()
        finally:
            remove(self.old_tmp)


def diff_targets(
    analysis: DiffResult, shard: tuple[int, int] | None = None
) -> list[ChangedFunction]:
    """The changed or impacted public functions that exist on both sides, tests left out."""
    found = [f for f in analysis.functions if f.status in DIFFED and in_shard(f.id, shard)]
    if not found:
        return []  # an added function has no old side: nothing to import for it
    from codemode.explore.offline.harvest import is_test_file
    from codemode.explore.writing.scan import is_private

    return [
        f for f in found if not is_private(f.id.rsplit(".", 1)[-1]) and not is_test_file(f.path)
    ]


def _old_files(analysis: DiffResult, targets: Sequence[ChangedFunction]) -> bool:
    """Whether the change touched a Python file other than the diffed functions' modules (a
    test, a caller): only then do the old side's files hold calls the new side's do not."""
    own = {t.path for t in targets}
    return any(p.endswith(".py") and p not in own for p in analysis.changed_files)


def _old_side(
    config: Config, scope: Scope, staged: StagedChange | None = None
) -> tuple[Path, Path, Path] | None:
    """The old side's changed files written to a temporary folder (change/old_side.py): (the
    folder, the project root's place in it, the manifest for the old side's worker), or None
    when there is no old side (no commit yet). ``staged``: git's answer for ``--staged``,
    asked once by the run (the repository and HEAD: three git runs fewer in the diff's fork)."""
    from codemode import tempdirs
    from codemode.change import git, old_side

    if staged is not None:
        if staged.head is None:
            return None  # no commit yet: everything is new
        repo, base = staged.repo, staged.head
    else:
        repo = git.repo_root(config.root)
        base = git.resolve(repo, scope).base
        if git.commit_or_none(repo, base) is None:
            return None  # the empty tree: everything is new
    folder = tempdirs.make("old")
    try:
        got = old_side.build(repo, config.root, base, folder)
    except BaseException:
        tempdirs.remove(folder)
        raise
    return folder, got.root, folder / old_side.MANIFEST


def run_diff(
    config: Config,
    targets: Sequence[ChangedFunction],
    old_root: Path,
    new_root: Path,
    index: SpecIndex | None = None,
    old_files: bool = True,
    sides: _Sides | None = None,
) -> list[FunctionDiff]:
    """Each target's diff, in the order given: over two processes when there are enough
    targets to pay for the second one (``behaviour.parallel``). ``sides``: workers already
    started for this process's share (and their hash seed)."""
    from codemode.behaviour.parallel import Part, run_parts

    part = Part(
        config,
        tuple(targets),
        old_root,
        new_root,
        tuple(_spec_inputs(index, f.id) for f in targets),
        old_files,
        sides.seed if sides is not None and sides.seed else _seed(),
        sides.old_manifest if sides is not None else None,
    )
    return run_parts(part, sides.old if sides else None, sides.new if sides else None)


def run_part(
    part: Part, old_worker: Worker | None = None, new_worker: Worker | None = None
) -> list[FunctionDiff]:
    """One process's share: a worker per side (those given, else new ones), the pools built
    one ahead in a thread."""
    from codemode.behaviour.engine import sides
    from codemode.behaviour.pools import Pools
    from codemode.explore.offline.harvest import files_read_once

    config = part.config
    old_w = old_worker or _old_worker(config, part, part.seed)
    new_w = new_worker or _worker(config, part.new_root, part.seed)
    if new_w.blocks and not new_w.forks and new_w.alive():
        new_w.kill()  # the check ran blocks in the worker itself (no fork): start afresh
    new_w.timeout = old_w.timeout
    # the suspects' second run: another seed than the first run's (see engine)
    first = old_w.env.get("PYTHONHASHSEED", "0")
    seed = str((int(first) + 1) % 2**32) if first.isdigit() else _seed()
    again = _Again(config, part, seed)
    with files_read_once():  # every function's pool reads the same files: once
        pools = Pools(part)
        try:
            ready = iter(pools)
            return [
                _diff_one(
                    config, f, ready, sides(old_w, new_w, f.renamed_from or f.id, f.id), again
                )
                for f in part.targets
            ]
        finally:
            from codemode.behaviour.ahead import after_reply, at_once

            pools.stop()
            after_reply(lambda: at_once(old_w.close, new_w.close, again.close))


def _diff_one(
    config: Config,
    f: ChangedFunction,
    pools: Iterator[list[PoolCall] | None],
    pair: tuple[Side, Side],
    again: _Again,
) -> FunctionDiff:
    """One target: both sides import its module while its pool is built, then its calls run
    under the budget. Neither the pool (codemode's own reading, bounded by the harvest's
    caps and ``bounded.POOL_LIMIT``) nor the start-up (``bounded.START_LIMIT``) is the
    budget's: at load 5-11 they took all of it for a large library, and its functions were
    cut "after 0 of N inputs" (#32)."""
    from codemode.behaviour.bounded import POOL_LIMIT, Loading
    from codemode.behaviour.engine import NOT_COMPARED, DiffBudget, FunctionDiff, diff_function
    from codemode.behaviour.left_out import dropped, no_inputs

    loading = Loading(*pair)
    pool = next(pools)
    loading.wait()
    if pool is None:
        why = f"its inputs took over {POOL_LIMIT:g} s to gather (the tests' calls, read and parsed)"
        return FunctionDiff(f.id, note=NOT_COMPARED + why, short=True)
    if loading.why:
        got = FunctionDiff(f.id, (), 0, len(pool), NOT_COMPARED + loading.why, True)
    elif not pool:
        got = FunctionDiff(f.id, note=no_inputs(dropped(pool)))
    else:
        budget = DiffBudget(config.diff_seconds, config.diff_calls)
        got = diff_function(f.id, pool, *pair, budget, config.float_tolerance, again)
    return got._replace(dropped=dropped(pool))


class _Again:
    """The workers of the suspects' second run, one per side, with another hash seed than the
    first run's: started only when a function's first run finds a difference. Never forked
    from the warm worker: a fork keeps its parent's seed, so another seed would need a
    second warm worker per repository, for runs that found a difference (#20)."""

    def __init__(self, config: Config, part: Part, seed: str) -> None:
        config = config.replace(warm_worker=False)
        self.config, self.part, self.seed = config, part, seed
        self.workers: tuple[Worker, Worker] | None = None

    def __call__(self) -> tuple[Worker, Worker]:
        if self.workers is None:
            self.workers = (
                _old_worker(self.config, self.part, self.seed),
                _worker(self.config, self.part.new_root, self.seed),
            )
        return self.workers

    def close(self) -> None:
        for w in self.workers or ():
            w.close()


def _old_worker(config: Config, part: Part, seed: str) -> Worker:
    """The old side's worker: in the work tree, the changed modules served from the manifest
    (worker/old_imports.py); without a manifest, in ``part.old_root``, a whole tree."""
    if part.old_manifest is None:
        return _worker(config, part.old_root, seed)
    return _worker(config, config.root, seed, part.old_manifest)


def _worker(
    config: Config, root: Path, seed: str | None = None, old_side: Path | None = None
) -> Worker:
    """A worker for one side, started. One hash seed on both sides: a set's order is then the
    same wherever the code is. The seed is the user's ``PYTHONHASHSEED`` or a random one, as
    an interpreter would pick it (the check's worker, shared with the diff, keeps the
    randomness it always had). ``old_side``: the old side's manifest."""
    from codemode.worker.make import make_worker

    w = make_worker(config, root)
    if old_side is not None:
        _serve_old_side(w, old_side)
    own = w.env.get("PYTHONHASHSEED", "")
    # "random" (or nothing): each interpreter would pick its own; one is picked for both
    w.env["PYTHONHASHSEED"] = seed or (own if own.isdigit() else _seed())
    w.timeout = max(1.0, min(config.timeout, config.diff_seconds))
    w.spawn()
    return w


def _serve_old_side(w: Worker, manifest: Path) -> None:
    """``w`` imports the changed modules' old versions (worker/old_imports.py): its arguments
    gain the manifest, on the instance, so that a plain worker and one forked from the warm
    worker both pass it."""
    arguments = w.arguments

    def with_old_side() -> list[str]:
        return [*arguments(), "--old-side", str(manifest)]

    w.arguments = with_old_side  # type: ignore[method-assign]


def _seed() -> str:
    import random

    return str(random.SystemRandom().randrange(1, 2**32))


def _spec_inputs(index: SpecIndex | None, function_id: str) -> list[tuple[Any, dict[str, Any]]]:
    if index is None:
        return []
    out = []
    for spec in index.files:
        func = spec.function(function_id)
        if func is None or func.serializer or func.fixtures:
            continue  # inputs that need the spec's own machinery: the pool has its own
        out += [(c.args, dict(c.kwargs)) for c in func.cases if c.error is None]
    return out


def call_key(args: Sequence[Any], kwargs: Mapping[str, Any] | None) -> str:
    import json

    data = [list(args), dict(kwargs or {})]
    try:
        return json.dumps(data, sort_keys=True, default=repr)
    except TypeError:
        # a dict whose keys do not sort ({1: 'foo', '1': 'bar'}, a serializer's test input):
        # keyed in its own order, the same for the case and for a witness of the same call
        return json.dumps(data, default=repr)


def case_keys(index: SpecIndex) -> dict[str, list[tuple[str, str, bool]]]:
    """Per function, each case's (id, call key, whether it states the outcome: a ``type:``
    check does not)."""
    out: dict[str, list[tuple[str, str, bool]]] = {}
    for spec in index.files:
        for func in spec.functions:
            for c in func.cases:
                states = bool(c.has_expected or c.raises)
                out.setdefault(func.id, []).append((c.id, call_key(c.args, c.kwargs), states))
    return out


def pinned(
    keys: Mapping[str, Sequence[tuple[str, str, bool]]], functions: Sequence[FunctionResult]
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Per function, (the calls a passing case of its spec pins: a witness on one of them is
    a behaviour change already accepted, the spec expecting the new outcome; the calls any
    case holds: the case's own verdict already tells of them). ``keys``: ``case_keys``."""
    passed = {(f.id, c.id) for f in functions for c in f.cases if c.status == "passed"}
    out: dict[str, set[str]] = {}
    covered: dict[str, set[str]] = {}
    for fid, cases in keys.items():
        for case_id, key, states in cases:
            covered.setdefault(fid, set()).add(key)
            if states and (fid, case_id) in passed:
                out.setdefault(fid, set()).add(key)
    return out, covered


def merge(
    functions: list[FunctionResult],
    diffs: Sequence[FunctionDiff],
    targets: Sequence[ChangedFunction],
    accepted: Mapping[str, set[str]] | None = None,
    covered: Mapping[str, set[str]] | None = None,
) -> list[FunctionResult]:
    """The check's verdicts with the witnesses added: ``changed`` where a witness was found
    and the verdict said less; a function the check did not list gets a result of its own.
    ``accepted``: calls whose new outcome a passing case pins, per function (the change
    is accepted); ``covered``: calls a case holds (its verdict tells of them already)."""
    by_id = {f.id: i for i, f in enumerate(functions)}
    by_target = {t.id: t for t in targets}
    out = list(functions)
    for d in diffs:
        keep = (accepted or {}).get(d.id, set())
        if keep and any(call_key(w.args, w.kwargs) in keep for w in d.witnesses):
            # The spec already expects the new outcome of a call whose outcome changed: the
            # change was accepted (`codemode accept`), and the rest of it with it.
            n = len(d.witnesses)
            note = (
                f"behaviour change accepted: the spec records the new outcomes ({n} calls differ)"
            )
            d = d._replace(witnesses=(), note=note)
        held = (covered or {}).get(d.id, set())
        if held:
            # a case checks what a call returns, never the state it leaves (#32)
            kept = [w for w in d.witnesses if call_key(w.args, w.kwargs) not in held or "after" in w.new]
            d = d._replace(witnesses=tuple(kept))
        i = by_id.get(d.id)
        counted = {"diff_inputs": d.inputs()} if d.ran else {}  # a miss reads by it (#32)
        if not (d.witnesses or d.note or d.unstable) and i is not None:
            out[i] = out[i]._replace(**counted)
            continue
        fr = out[i] if i is not None else _unlisted(d.id, by_target.get(d.id))
        # in scope, with no spec: a row that says what the diff saw, never absent (#32)
        same = i is None and d.ran > 0 and not (d.witnesses or d.unstable)
        seen = f"no difference on {d.inputs()}" if same else ""
        note = "; ".join(n for n in (seen, d.note) if n)
        if d.witnesses:
            status = _changed(d) if fr.status in _WEAKER else fr.status
            message = fr.message if fr.status not in _WEAKER else _message(d)
            fr = fr._replace(status=status, witnesses=d.witnesses, message=message)
        if d.unstable and not d.witnesses and fr.status == "ok":
            # every call that differs varies between runs of one version: said, not failed (#32)
            fr = fr._replace(status="unstable", message=d.unstable.removeprefix("unstable: "))
        elif d.unstable:
            note = "; ".join(n for n in (note, d.unstable) if n)
        fr = fr._replace(diff_note=note, **counted)
        if i is None:
            out.append(fr)  # a note alone too: why it was not (fully) compared (#32)
        else:
            out[i] = fr
    return out


def _unlisted(fid: str, target: ChangedFunction | None) -> FunctionResult:
    """A result for a function the check did not list (no spec): where it is, and what it
    goes through to reach the change when only that reaches it (#32)."""
    if target is None:
        return FunctionResult(fid, "ok")
    return FunctionResult(
        fid, "ok", path=target.path, impacted_by=target.impacted_by, via=target.via
    )


def _changed(d: FunctionDiff) -> Verdict:
    """``message_changed`` when every witness raises the same exception type as before with
    another message (outside the default fail_on, #32), else ``changed``."""
    from codemode.report.witness import only_messages

    return "message_changed" if only_messages(d.witnesses) else "changed"


def _message(d: FunctionDiff) -> str:
    n = len(d.witnesses)
    calls = "call" if n == 1 else "calls"
    if _changed(d) == "message_changed":
        return f"the change alters only the exception message of {n} {calls}, e.g. {d.witnesses[0].call}"
    return f"the change alters the outcome of {n} {calls}, e.g. {d.witnesses[0].call}"
