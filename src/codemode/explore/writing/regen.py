"""``run_regen``: explore changed functions and write spec edits whose expectations were observed.

Every function is explored (concurrently, up to ``concurrency``), gated, and turned into a
``FunctionUpdate``, which is written as soon as that function is done (checked to load
cleanly, atomically, under the spec file's lock) unless ``dry_run``: a run that stops later
keeps what it finished. When a model fails, a budget runs out or exploring one function
hits a bug of ours, that function's spec is kept as it was and the report says why (a bug's
traceback goes to ``regen-errors.log`` under the cache); the other functions go on. Offline,
``--jobs N`` explores in N forks of the process (regen_lanes.py), with the same files and report.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemode.config import Config
from codemode.errors import FatalError
from codemode.explore.offline.evaluators import offline_evaluators
from codemode.explore.writing.built_fixture import refixture
from codemode.explore.writing.path_fixture import as_spec
from codemode.explore.writing.plan import (
    Done,
    Target,
    cases_summary,
    new_spec_rel,
    regen_targets,
    skip_reason,
    spec_for,
)
from codemode.explore.writing.progress import Tracker
from codemode.explore.writing.serializers import choose_serializer, own_schema
from codemode.explore.writing.summary import (
    blocked_note,
    bootstrap_summary,
    empty_scope,
    gate_refusals,
    needs_fixture,
    no_case,
)
from codemode.lock import OutsideRepository
from codemode.report.model import Cost, FunctionResult, Report, SpecEdit
from codemode.scope import Scope
from codemode.shard import in_shard
from codemode.specs.fixture_clash import FixtureClash
from codemode.specs.index import build_index
from codemode.specs.transaction import Edited, Refused, edit_spec, spec_text, unified_diff
from codemode.specs.types import FunctionSpec, SpecFile
from codemode.specs.write import FunctionUpdate, apply_updates
from codemode.worker.make import make_worker

if TYPE_CHECKING:  # the explorers load lazily (the LLM stack, the sandbox): types only here
    from pydantic_ai.models import Model

    from codemode.explore.llm.answers import AnswerCache
    from codemode.explore.llm.budget import ModelBudget
    from codemode.explore.llm.pipeline import Exploration
    from codemode.explore.llm.snippets import SnippetRunner
    from codemode.explore.offline.explorer import OfflineResult
    from codemode.explore.record import Recorder
    from codemode.explore.target import TargetInfo
    from codemode.worker.pool import Worker

Progress = Callable[[str], None]
EXPLORE_TIMEOUT = 5.0  # seconds per exploratory call: planned inputs may be slow, never hang


class Run:
    def __init__(
        self,
        config: Config,
        model: Model | None,
        progress: Progress | None,
        retry_delay: float | None,
        dry_run: bool = True,
    ) -> None:
        self.config = config
        self.dry_run = dry_run
        self.before: dict[str, str] = {}  # each written spec file's text before the run wrote
        self.model = model
        self.progress = progress
        self.retry_delay = retry_delay
        self.index = build_index(config)
        self.label = "offline"
        self.budget: ModelBudget | None = None
        self.runner: SnippetRunner | None = None
        self.cache: AnswerCache | None = None
        self.done = 0
        self.total = 0
        self.order: list[str] = []  # target ids, in the order progress is shown
        self.finished: dict[str, Done] = {}
        self.tracker = Tracker([])  # the progress lines and their estimate (#35): run_regen's
        from codemode.explore.writing.gate import GateWorkers, seeded

        # The gate's workers serve every function of the run: each block runs in a forked
        # child, so one worker start (and import) per process, not two per function.
        self.gate_workers = GateWorkers(lambda: seeded(make_worker(config)))
        self.write_here = True  # False in a --jobs run's parent: its lanes write (regen_lanes)
        self.on_done: Callable[[Done], None] | None = None  # a lane sends each result on

    def _finished(self, done: Done) -> None:
        """Write and show each function in the order of the targets, whichever finishes first,
        so that two runs write the same files and print the same lines (functions explored at
        once finish in any order)."""
        self.finished[done.id] = done
        self.tracker.arrived(done)
        while self.done < len(self.order) and self.order[self.done] in self.finished:
            ready = self.finished[self.order[self.done]]
            self.done += 1
            if self.write_here:
                self._write_now(ready)
            if self.on_done is not None:
                self.on_done(ready)
            if self.progress is not None:
                for line in self.tracker.lines(self.done, ready):
                    self.progress(line)

    def _worker(self) -> Worker:
        return make_worker(self.config.replace(timeout=min(self.config.timeout, EXPLORE_TIMEOUT)))

    async def one(self, target: Target, sem: asyncio.Semaphore) -> Done:
        from codemode.explore.llm.client import Unreachable

        async with sem:
            try:
                done = await self._explore(target)
            except FatalError as exc:  # the line names the function already: not twice
                done = Done(target.id, "error", str(exc).removeprefix(f"{target.id}: "))
            except Unreachable:
                raise  # the model's server is down: every function would fail alike
            except Exception as exc:
                # A bug of ours on one function is that function's problem: the others go on
                # and are written (toolz's memoize docstring stopped a bootstrap at 36 of 94, #23).
                done = Done(target.id, "error", self._internal_error(target.id, exc))
            if target.new and not target.explicit and done.status == "error":
                # A bootstrap goes on past a function it cannot explore: it stays without a
                # spec (missing), the reason is in the summary, and the run does not fail.
                done.status = "missing"
            self._finished(done)
            return done

    def _internal_error(self, fid: str, exc: Exception) -> str:
        """One line for the report; the traceback goes to a log under the cache."""
        import datetime
        import traceback

        from codemode.explore.llm.answers import cache_dir

        log = cache_dir(self.config.root) / "regen-errors.log"
        stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        text = "".join(traceback.format_exception(exc))
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("a", encoding="utf-8") as fh:
                fh.write(f"--- {stamp} {fid}\n{text}\n")
            where = f"the traceback is in {log}"
        except OSError:
            where = "no traceback log could be written"
        what = f"{type(exc).__name__}: {exc}"
        what = what if len(what) <= 160 else what[:157] + "..."
        return f"internal error while exploring ({what}); {where}; please report it"

    def _write_now(self, done: Done) -> None:
        """Write a finished function's cases at once: a run that dies later keeps them."""
        if self.dry_run or done.update is None or not done.spec_rel:
            return
        path = self.config.root / done.spec_rel
        try:
            edited, bad = _write_file(path, done.spec_rel, self.config.root, [done.update], False)
        except FixtureClash as exc:  # another function wrote that fixture name first (#32)
            done.status, done.message, done.update = "missing", exc.reason, None
            return
        if edited is not None:  # the file as this run found it, for the run's whole diff
            self.before.setdefault(done.spec_rel, edited.old)
        if bad:
            done.status = "error"
            done.message = f"the edited spec would not load ({bad}); not written"
            done.update = None

    async def _explore(self, target: Target) -> Done:
        from codemode.explore.target import load_target

        info = await asyncio.to_thread(load_target, self.config, target.id)
        found = spec_for(self.index, target.id)
        spec, func = found if found else (None, None)
        skip = skip_reason(target, info.fingerprint, spec, func)
        if skip is not None:
            return skip
        rel = spec.rel if spec else new_spec_rel(self.config, self.index, info.module)
        fixtures = [spec.fixtures[n].to_wire() for n in func.fixtures] if spec and func else []
        fixture_names = list(func.fixtures) if func else []
        # The explorer passes real values: its own schema would build them twice.
        serializer = (
            spec.serializers[func.serializer].to_wire()
            if spec and func and func.serializer and own_schema(target.id, spec, func) is None
            else None
        )
        taken = {c.id for c in func.cases if not c.generated} if func else set()
        from codemode.explore.record import Recorder

        worker = self._worker()
        recorder = Recorder(worker, target.id, fixtures, fixture_names, rel, serializer)
        done = Done(target.id, "ok", "", rel)
        try:
            cases, evaluators = await self._gather(target, info, recorder, func, taken, done)
            # a path it writes to (#31), a value it is handed (#32): a fixture may give cases
            recorder, fx = refixture(recorder, info, self.config.root, done, cases or func)
            if fx is not None:
                cases, evaluators = await self._gather(target, info, recorder, func, taken, done)
            if done.status != "ok":  # needs a fixture, or a budget left it unexplored
                return done
        except _ModelError as exc:
            return Done(
                target.id,
                "skipped" if exc.skipped else "error",
                f"not explored: {exc}" if exc.skipped else f"{exc}; the spec was kept as it was",
                rel,
                notes=done.notes,
                requests=exc.requests,
            )
        finally:
            await asyncio.to_thread(worker.close)
        deleted = func.deleted_ids if func else frozenset()
        if cases and deleted:  # a reviewer deleted these by hand: they stay deleted
            cases = [c for c in cases if str(c["id"]) not in deleted]
            if not cases:
                return Done(target.id, "ok", "every new case was deleted before by hand", rel)
        own = own_schema(target.id, spec, func)
        cases, written_with = choose_serializer(target.id, cases, func, done.notes, own)
        if not cases:
            done.status, done.message = "error", no_case(recorder)
            return done
        done.notes += [n for n in (blocked_note(target.id, recorder),) if n]
        if func is not None:
            # Global evaluators apply to hand-written cases too: only a new block gets them.
            evaluators = {}
        fields = (tuple(cases), info.fingerprint, self.label, (), evaluators, written_with)
        update = FunctionUpdate(target.id, *fields, *done.quality, fixtures=as_spec(fx))
        return await self._gate(update, spec, func, done)

    async def _gather(
        self,
        target: Target,
        info: TargetInfo,
        recorder: Recorder,
        func: FunctionSpec | None,
        taken: set[str],
        done: Done,
    ) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
        """Explore offline or with the model: the candidate cases and global evaluators."""
        if self.model is None:
            from codemode.explore.selection.cases import unique_id

            keep = [] if target.explicit else _kept(func)  # --function: explore afresh
            offline = await asyncio.to_thread(self._offline, info, recorder, done, keep)
            if offline.needs_fixture and not offline.cases:
                needs_fixture(done, offline.needs_fixture, done.spec_rel or "the spec file")
                return [], {}
            cases = [c for c in offline.cases if c["id"] not in taken] or offline.cases
            used = set(taken)
            for c in cases:
                c["id"] = unique_id(str(c["id"]), used)
            return cases, await asyncio.to_thread(offline_evaluators, recorder, info)
        ex = await self._explore_model(target, info, recorder, func, taken)
        done.requests, done.input_tokens, done.output_tokens = (
            ex.requests,
            ex.input_tokens,
            ex.output_tokens,
        )
        done.visible_bytes = ex.visible_bytes
        done.notes += [f"{target.id}: {n}" for n in ex.notes]
        if ex.mutants:
            done.mutation_score = round(ex.killed / ex.mutants, 2)
            done.quality_text = (
                f"; {ex.killed}/{ex.mutants} mutants killed ({ex.killed / ex.mutants:.0%})"
            )
        done.refused += ex.refused
        if not ex.cases and ex.budget_stop:  # a cap left it unexplored: skipped, not failed
            done.status, done.message = "skipped", f"not explored: {ex.stopped}"
            return [], {}
        if not ex.cases and ex.failed:
            raise _ModelError(ex.failed, ex.requests)
        if ex.sandbox_errors:
            done.notes.append(
                f"{target.id}: {len(ex.sandbox_errors)} snippet(s) failed in the sandbox; first: {ex.sandbox_errors[0]}"
            )
        return ex.cases, ex.evaluators

    async def _gate(
        self, update: FunctionUpdate, spec: SpecFile | None, func: FunctionSpec | None, done: Done
    ) -> Done:
        """Re-run the candidates twice in fresh workers; only what holds both times is kept."""
        from codemode.explore.writing.gate import EXTRA_SEEDS, GATE_PROCESSES, run_gate

        rel = done.spec_rel or ""
        path = self.config.root / rel
        base = path.read_text(encoding="utf-8") if path.is_file() else ""
        pool = self.gate_workers
        try:
            with pool.take(GATE_PROCESSES) as workers:
                gate = await asyncio.to_thread(
                    run_gate,
                    self.config,
                    update,
                    base=base,
                    rel=rel,
                    workers=workers,
                    more=lambda: pool.take(EXTRA_SEEDS),
                )
        except FixtureClash as exc:  # its cases would run under another fixture (#32)
            done.status, done.message = "error", exc.reason
            return done
        kept = [c for c in update.cases if c["id"] in set(gate.passed)]
        evals = {k: v for k, v in update.evals.items() if k not in set(gate.evaluators_failed)}
        flaky = tuple(gate.nondeterministic)
        done.refused += gate_refusals(
            update, gate.nondeterministic, gate.unfaithful, gate.why, gate.located
        )
        if not kept:
            done.status, done.message = (
                "error",
                "no case passed the gate; the spec was kept as it was",
            )
            return done
        done.update = replace(update, cases=tuple(kept), nondeterministic=flaky, evals=evals)
        extra = f", {len(flaky)} nondeterministic left out" if flaky else ""
        seen = (
            f", {done.requests} request(s), {done.visible_bytes} bytes shown" if self.model else ""
        )
        done.message = f"{len(kept)} case(s) by {self.label}{extra}{seen}{done.quality_text}"
        return done

    def _offline(
        self,
        info: TargetInfo,
        recorder: Recorder,
        done: Done,
        keep: list[tuple[str, tuple[Any, ...], dict[str, Any]]],
    ) -> OfflineResult:
        from codemode.explore.offline.explorer import explore

        res = explore(
            info, recorder, max_cases=self.config.max_cases, root=self.config.root, keep=keep
        )
        done.notes += [f"{info.id}: {n}" for n in res.notes]
        if res.mutants:
            done.mutation_score = round(res.killed / res.mutants, 2)
            done.quality = (res.sources, res.mutants, done.mutation_score)
            done.quality_text = (
                f"; {res.killed}/{res.mutants} mutants killed ({res.killed / res.mutants:.0%})"
                f"; inputs from {', '.join(res.sources) or 'nowhere'}"
            )
        else:
            done.quality = (res.sources, 0, None)
        return res

    async def _explore_model(
        self,
        target: Target,
        info: TargetInfo,
        recorder: Recorder,
        func: FunctionSpec | None,
        taken: set[str],
    ) -> Exploration:
        from codemode.explore.llm.answers import cache_key
        from codemode.explore.llm.budget import BudgetExceeded
        from codemode.explore.llm.client import ModelFailed
        from codemode.explore.llm.pipeline import explore_with_model

        budget, cache, runner, model = self.budget, self.cache, self.runner, self.model
        assert budget is not None and cache is not None and runner is not None  # with a model
        assert model is not None
        key = cache_key(target.id, info.fingerprint, self.label, self.config.coverage_rounds)
        cached = cache.get(key) if info.fingerprint else None
        before = budget.requests
        try:
            ex = await explore_with_model(
                info,
                recorder,
                runner,
                model,
                budget,
                rounds=self.config.coverage_rounds,
                spec_summary=cases_summary(func),
                changed_lines=target.changed_lines,
                taken_ids=taken,
                cached=cached,
                retry_delay=self.retry_delay,
                max_added=max(1, self.config.max_cases // 2),
            )
        except ModelFailed as exc:  # the replay of cached snippets cannot fail this way
            raise _ModelError(str(exc), budget.requests - before) from exc
        except BudgetExceeded as exc:
            raise _ModelError(str(exc), budget.requests - before, skipped=True) from exc
        if cached is None and info.fingerprint and ex.answers.get("choice"):
            cache.put(key, ex.answers)
        return ex


class _ModelError(Exception):
    def __init__(self, message: str, requests: int, skipped: bool = False) -> None:
        super().__init__(message)
        self.requests = requests
        self.skipped = skipped


def _kept(func: FunctionSpec | None) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    """The generated cases of a spec, (id, args, kwargs), for the explorer to choose first
    (#35); ``regen --function`` explores afresh. Not under a serializer or fixtures: their inputs are data the explorer's values
    are not, and a case the explorer cannot call as written is left to exploring afresh."""
    if func is None or func.serializer or func.fixtures:
        return []
    return [(c.id, c.args, dict(c.kwargs)) for c in func.cases if c.generated and not c.error]


def run_regen(
    config: Config,
    scope: Scope,
    *,
    dry_run: bool,
    model: object = None,
    function_ids: tuple[str, ...] = (),
    progress: Progress | None = None,
    retry_delay: float | None = None,
    shard: tuple[int, int] | None = None,
) -> Report:
    """Explore, gate and (unless ``dry_run``) write; the Report carries the edits and the cost.

    With ``shard`` (K, N), only the functions of the K-th share are explored, split as
    ``check --shard`` splits them, so a matrix of regen jobs never writes one spec twice.
    """
    started = time.perf_counter()
    chosen = model if model is not None else config.model
    run = Run(config, None, progress, retry_delay, dry_run)
    targets, scan = regen_targets(config, scope, function_ids, run.index)
    targets = [t for t in targets if in_shard(t.id, shard)]
    run.total = len(targets)
    run.order = [t.id for t in targets]
    run.tracker = Tracker(run.order, {f.id: f.module for f in scan.functions} if scan else None)
    if not targets:
        return Report(notes=(empty_scope(config, scope, scan),), mode="regen", scope=scope)
    if chosen is not None:
        from codemode.explore.llm.answers import AnswerCache, cache_dir
        from codemode.explore.llm.budget import ModelBudget, price_for
        from codemode.explore.llm.client import build_model, model_label

        run.model = build_model(chosen, config.base_url, base_url_origin=config.base_url_origin)
        run.label = model_label(chosen)
        run.budget = ModelBudget(
            run.label,
            config.max_model_requests,
            config.max_cost,
            config.max_seconds,
            price=price_for(run.label, config.base_url) if isinstance(chosen, str) else None,
        )
        if config.max_cost is not None and run.budget.price is None:
            raise FatalError(
                f"--max-cost {config.max_cost:g}: no price is known for {run.label} (genai-prices); "
                "cap the run with --max-model-requests instead"
            )
        run.cache = AnswerCache(cache_dir(config.root))
    try:
        done = _explore_all(run, targets)
    finally:
        run.gate_workers.close()
    report = _finish(config, run, done, dry_run)
    elapsed = time.perf_counter() - started
    summary = bootstrap_summary(done, report, scan) if scan is not None else []
    return report._replace(scope=scope, notes=(*report.notes, *summary), elapsed=elapsed)


def _explore_all(run: Run, targets: list[Target]) -> list[Done]:
    """Every target's result, in order: in ``--jobs`` lanes when they pay (offline only: a
    model's budget and answers' cache are one account the functions draw on in turn)."""
    if run.model is None:
        from codemode.explore.writing.regen_lanes import in_lanes

        done = in_lanes(run, targets, lambda share: asyncio.run(_gather(run, share)))
        if done is not None:
            return done
    return asyncio.run(_gather(run, targets))


async def _gather(run: Run, targets: list[Target]) -> list[Done]:
    sem = asyncio.Semaphore(max(1, run.config.concurrency))
    if run.model is not None:
        from codemode.explore.llm.snippets import SnippetRunner

        with SnippetRunner(processes=max(1, run.config.concurrency)) as runner:
            run.runner = runner
            return await _all_or_stop(run, targets, sem)
    return list(await asyncio.gather(*(run.one(t, sem) for t in targets)))


async def _all_or_stop(run: Run, targets: list[Target], sem: asyncio.Semaphore) -> list[Done]:
    """Every function, unless the model's server is unreachable: then the run stops (exit 2)."""
    from codemode.explore.llm.client import Unreachable

    tasks = [asyncio.ensure_future(run.one(t, sem)) for t in targets]
    try:
        return list(await asyncio.gather(*tasks))
    except Unreachable as exc:
        raise FatalError(str(exc)) from None
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _write_file(
    path: Path, rel: str, root: Path, updates: list[FunctionUpdate], dry_run: bool
) -> tuple[Edited | None, str | None]:
    """(the edit, None), or (None, why not) when the edited file would not load or lies outside
    the repository. The edit is applied under the spec's lock to the file as it is now
    (specs/transaction.py): a concurrent ``regen`` or ``accept`` that wrote meanwhile keeps its edit."""
    try:
        return edit_spec(
            path, rel, root, lambda t: apply_updates(t, updates), dry_run=dry_run
        ), None
    except Refused as exc:
        return None, exc.why
    except OutsideRepository as exc:
        return None, str(exc)


def _preview_file(
    path: Path, rel: str, root: Path, updates: list[FunctionUpdate], clashes: dict[str, str]
) -> tuple[Edited | None, str | None]:
    """A dry run's edit of a spec file, less each update whose fixture name one before took."""
    while True:
        try:
            return _write_file(path, rel, root, updates, True)
        except FixtureClash as exc:
            clashes[exc.function] = exc.reason
            updates = [u for u in updates if u.function_id != exc.function]


def _finish(config: Config, run: Run, done: list[Done], dry_run: bool) -> Report:
    by_file: dict[str, list[FunctionUpdate]] = {}
    for d in done:
        if d.update is not None and d.spec_rel:
            by_file.setdefault(d.spec_rel, []).append(d.update)
    edits: list[SpecEdit] = []
    notes = [n for d in done for n in d.notes]
    failed_files: dict[str, str] = {}
    clashes: dict[str, str] = {}  # a function's update a dry run left out: why
    for rel, updates in sorted(by_file.items()):
        if dry_run:
            edited, bad = _preview_file(config.root / rel, rel, config.root, updates, clashes)
            diff = edited.diff if edited else ""
        else:  # written as each function finished (_Run._write_now): the run's whole edit
            path = config.root / rel  # not written if it links out of the repository (#21)
            now = spec_text(path) if path.is_file() else run.before.get(rel, "")
            diff, bad = unified_diff(run.before.get(rel, ""), now, rel), None
        if bad:
            failed_files[rel] = bad
            continue
        if not diff:
            continue
        ids = ", ".join(u.function_id for u in updates)
        edits.append(
            SpecEdit(
                rel,
                diff,
                applied=not dry_run,
                summary=f"{sum(len(u.cases) for u in updates)} generated case(s) for {ids}",
            )
        )
    functions = []
    for d in sorted(done, key=lambda d: d.id):
        status, message = ("missing", clashes[d.id]) if d.id in clashes else (d.status, d.message)
        if d.spec_rel in failed_files and d.update is not None and d.id not in clashes:
            status, message = (
                "error",
                f"the edited spec would not load ({failed_files[d.spec_rel]}); not written",
            )
        functions.append(
            FunctionResult(
                d.id,
                status,
                d.spec_rel,
                None,
                message=message,
                mutation_score=d.mutation_score,
                refused=tuple(d.refused),
            )
        )
    cost = None
    if run.budget is not None:
        b = run.budget
        cost = Cost(b.requests, b.input_tokens, b.output_tokens, b.usd, run.label)
    if dry_run and edits:
        notes.append("dry run: nothing was written")
    return Report(
        functions=tuple(functions), edits=tuple(edits), cost=cost, notes=tuple(notes), mode="regen"
    )
