"""``run_regen``: explore changed functions and write spec edits whose expectations were observed.

Decide first, act last: every function is explored (concurrently, up to ``concurrency``),
gated, and turned into a ``FunctionUpdate``; then each spec file gets all its updates at
once, is checked to load cleanly, and is written atomically unless ``dry_run``. When a
model fails or a budget runs out, that function's spec is kept as it was and the report
says why; the other functions go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from codemode.atomic import write_atomic
from codemode.check.run import make_worker
from codemode.config import Config
from codemode.errors import FatalError
from codemode.explore.sources import Scan, scan_sources, spec_rel_for
from codemode.lock import OutsideRepository, locked
from codemode.report.model import Cost, FunctionResult, Report, SpecEdit, Verdict
from codemode.scope import Scope
from codemode.shard import in_shard
from codemode.specs import textfile
from codemode.specs.discover import find_spec_files
from codemode.specs.index import SpecIndex, build_index
from codemode.specs.load import parse_spec_text
from codemode.specs.types import FunctionSpec, SpecFile
from codemode.specs.write import FunctionUpdate, apply_updates, unified_diff

Progress = Callable[[str], None]
EXPLORE_TIMEOUT = 5.0  # seconds per exploratory call: planned inputs may be slow, never hang


@dataclass
class _Target:
    id: str
    changed_lines: tuple[int, ...] = ()
    explicit: bool = False
    changed: bool = False  # named by the diff analyzer
    new: bool = False  # no spec yet: found by a bootstrap (--all, a module or a package)


@dataclass
class _Done:
    id: str
    status: Verdict
    message: str
    spec_rel: str | None = None
    update: FunctionUpdate | None = None
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    notes: list[str] = field(default_factory=list)
    visible_bytes: int = 0  # what the model was shown of this function (prompt + tool output)
    mutation_score: float | None = None
    quality: tuple[tuple[str, ...], int, float | None] = ((), 0, None)
    quality_text: str = ""


def _targets(
    config: Config, scope: Scope, function_ids: Sequence[str], index: SpecIndex
) -> tuple[list[_Target], Scan | None]:
    """The functions to explore, and (for --all and paths) what the bootstrap searched."""
    if function_ids:
        return [_Target(fid, explicit=True) for fid in dict.fromkeys(function_ids)], None
    if scope.is_change:
        from codemode.change import diff

        analysis = diff.analyze(config, scope)
        return [
            _Target(f.id, f.changed_lines, changed=True)
            for f in analysis.functions
            if f.status in ("added", "modified", "renamed")
        ], None
    if scope.kind == "paths":
        spec_paths, source_paths = _split_paths(config, scope.paths)
        wanted = {p.resolve() for p in spec_paths}
        ids = [f.id for s in index.files if s.path.resolve() in wanted for f in s.functions]
        scan = scan_sources(config, source_paths) if source_paths else None
    else:
        ids = sorted(index.function_ids())
        scan = scan_sources(config)
    known = index.function_ids()
    ids += [f.id for f in scan.functions] if scan else []
    return [_Target(fid, new=fid not in known) for fid in dict.fromkeys(ids)], scan


def _split_paths(config: Config, paths: Sequence[str]) -> tuple[list[Path], list[Path]]:
    """Spec files (and folders of them), and modules or packages, named on the command line."""
    specs: list[Path] = []
    sources: list[Path] = []
    for p in paths:
        path = Path(p) if Path(p).is_absolute() else Path.cwd() / p
        if path.is_dir():
            specs += find_spec_files(config, (str(path),))
            sources.append(path)
        elif path.is_file() and path.suffix == ".py":
            sources.append(path)
        elif path.is_file():
            specs.append(path)
        else:
            raise FatalError(
                f"{p}: no such file or directory; name spec files, modules or packages that exist"
            )
    return specs, sources


def _spec_for(index: SpecIndex, fid: str) -> tuple[SpecFile, FunctionSpec] | None:
    for spec in index.files:
        f = spec.function(fid)
        if f is not None:
            return spec, f
    return None


def _new_spec_rel(config: Config, index: SpecIndex, module: str) -> str:
    for spec in index.files:  # next to the module's other functions, when it has some
        if any(f.id.startswith(module + ".") for f in spec.functions):
            return spec.rel
    return spec_rel_for(config, module)


def _summary(func: FunctionSpec | None) -> str:
    if func is None:
        return ""
    from codemode.specs.write import flow

    lines = []
    for c in func.cases[:10]:
        inputs = c.input_value if c.input_form != "none" else None
        want = (
            f"raises {c.raises}"
            if c.raises
            else (flow(c.expected) if c.has_expected else "(no expectation)")
        )
        lines.append(f"- {c.id}: {flow(inputs)} -> {want}"[:200])
    return "\n".join(lines)


def _skip(
    target: _Target, fingerprint: str | None, spec: SpecFile | None, func: FunctionSpec | None
) -> _Done | None:
    """Nothing to explore: the function did not change since its cases were generated, or its
    spec is hand-written and nothing asks for more."""
    meta = func.meta if func else None
    rel = spec.rel if spec else None
    if meta and meta.fingerprint == fingerprint and meta.explored_by and not target.explicit:
        return _Done(target.id, "ok", "up to date (fingerprint unchanged)", rel)
    if meta and not meta.fingerprint and not (target.explicit or target.changed):
        # --all over a hand-written spec: nothing says it is stale; adding cases is a choice.
        return _Done(
            target.id,
            "ok",
            "hand-written spec; name it with --function to add generated cases",
            rel,
        )
    return None


class _Workers:
    """Idle workers handed out to the concurrent explorations and taken back."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make
        self.idle: list[Any] = []
        self.every: list[Any] = []
        self.lock = threading.Lock()

    @contextlib.contextmanager
    def take(self, n: int) -> Iterator[list[Any]]:
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


class _Run:
    def __init__(
        self, config: Config, model: Any, progress: Progress | None, retry_delay: float | None
    ) -> None:
        self.config = config
        self.model = model
        self.progress = progress
        self.retry_delay = retry_delay
        self.index = build_index(config)
        self.label = "offline"
        self.budget: Any = None
        self.runner: Any = None
        self.cache: Any = None
        self.done = 0
        self.total = 0
        self.order: list[str] = []  # target ids, in the order progress is shown
        self.finished: dict[str, str] = {}
        # The gate's workers serve every function of the run: each block runs in a forked
        # child, so one worker start (and import) per process, not two per function.
        self.gate_workers = _Workers(lambda: make_worker(config))

    def _say(self, fid: str, text: str) -> None:
        """Progress in the order of the targets, whichever finishes first, so that two runs
        print the same lines (functions explored at once finish in any order)."""
        self.finished[fid] = text
        while self.done < len(self.order) and self.order[self.done] in self.finished:
            fid = self.order[self.done]
            self.done += 1
            if self.progress is not None:
                self.progress(f"[{self.done}/{self.total}] {fid}: {self.finished[fid]}")

    def _worker(self) -> Any:
        return make_worker(self.config.replace(timeout=min(self.config.timeout, EXPLORE_TIMEOUT)))

    async def one(self, target: _Target, sem: asyncio.Semaphore) -> _Done:
        async with sem:
            try:
                done = await self._explore(target)
            except FatalError as exc:  # the line names the function already: not twice
                done = _Done(target.id, "error", str(exc).removeprefix(f"{target.id}: "))
            if target.new and not target.explicit and done.status == "error":
                # A bootstrap goes on past a function it cannot explore: it stays without a
                # spec (missing), the reason is in the summary, and the run does not fail.
                done.status = "missing"
            self._say(target.id, done.message)
            return done

    async def _explore(self, target: _Target) -> _Done:
        from codemode.explore.target import load_target

        info = await asyncio.to_thread(load_target, self.config, target.id)
        found = _spec_for(self.index, target.id)
        spec, func = found if found else (None, None)
        skip = _skip(target, info.fingerprint, spec, func)
        if skip is not None:
            return skip
        rel = spec.rel if spec else _new_spec_rel(self.config, self.index, info.module)
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
        done = _Done(target.id, "ok", "", rel)
        try:
            cases, evaluators = await self._gather(target, info, recorder, func, taken, done)
            if done.status != "ok":  # needs a fixture, or a budget left it unexplored
                return done
        except _ModelError as exc:
            return _Done(
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
                return _Done(target.id, "ok", "every new case was deleted before by hand", rel)
        own = own_schema(target.id, spec, func)
        cases, written_with = _serializer(target.id, cases, func, done, own)
        if not cases:
            done.status, done.message = "error", _no_case(recorder)
            return done
        if func is not None:
            # Global evaluators apply to hand-written cases too: only a new block gets them.
            evaluators = {}
        fields = (tuple(cases), info.fingerprint, self.label, (), evaluators, written_with)
        update = FunctionUpdate(target.id, *fields, *done.quality)
        return await self._gate(update, spec, func, done)

    async def _gather(
        self,
        target: _Target,
        info: Any,
        recorder: Any,
        func: FunctionSpec | None,
        taken: set[str],
        done: _Done,
    ) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
        """Explore offline or with the model: the candidate cases and global evaluators."""
        if self.model is None:
            from codemode.explore.cases import unique_id

            offline = await asyncio.to_thread(self._offline, info, recorder, done)
            if offline.needs_fixture and not offline.cases:
                _needs_fixture(done, offline.needs_fixture, done.spec_rel or "the spec file")
                return [], {}
            cases = [c for c in offline.cases if c["id"] not in taken] or offline.cases
            used = set(taken)
            for c in cases:
                c["id"] = unique_id(str(c["id"]), used)
            return cases, await asyncio.to_thread(_offline_evaluators, recorder, info)
        ex = await self._explore_model(target, info, recorder, func, taken)
        done.requests, done.input_tokens, done.output_tokens = (
            ex.requests,
            ex.input_tokens,
            ex.output_tokens,
        )
        done.visible_bytes = ex.visible_bytes
        done.notes += [f"{target.id}: {n}" for n in ex.notes]
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
        self, update: FunctionUpdate, spec: SpecFile | None, func: FunctionSpec | None, done: _Done
    ) -> _Done:
        """Re-run the candidates twice in fresh workers; only what holds both times is kept."""
        from codemode.explore.gate import run_gate

        rel = done.spec_rel or ""
        path = self.config.root / rel
        base = path.read_text(encoding="utf-8") if path.is_file() else ""
        with self.gate_workers.take(2) as workers:
            gate = await asyncio.to_thread(
                run_gate, self.config, update, base=base, rel=rel, workers=workers
            )
        kept = [c for c in update.cases if c["id"] in set(gate.passed)]
        evals = {k: v for k, v in update.evals.items() if k not in set(gate.evaluators_failed)}
        flaky = tuple(gate.nondeterministic)
        fid = update.function_id
        for cid in gate.nondeterministic:
            done.notes.append(f"{fid}: nondeterministic, not written: {cid} ({gate.why[cid]})")
        for cid in gate.unfaithful:
            why = gate.why.get(cid, "")
            done.notes.append(f"{fid}: does not replay from YAML, not written: {cid} ({why})")
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

    def _offline(self, info: Any, recorder: Any, done: _Done) -> Any:
        from codemode.explore.offline import explore

        res = explore(info, recorder, max_cases=self.config.max_cases, root=self.config.root)
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
        self, target: _Target, info: Any, recorder: Any, func: FunctionSpec | None, taken: set[str]
    ) -> Any:
        from codemode.explore.budget import BudgetExceeded
        from codemode.explore.cache import cache_key
        from codemode.explore.llm import ModelFailed
        from codemode.explore.pipeline import explore_with_model

        key = cache_key(target.id, info.fingerprint, self.label, self.config.coverage_rounds)
        cached = self.cache.get(key) if info.fingerprint else None
        before = self.budget.requests
        try:
            ex = await explore_with_model(
                info,
                recorder,
                self.runner,
                self.model,
                self.budget,
                rounds=self.config.coverage_rounds,
                spec_summary=_summary(func),
                changed_lines=target.changed_lines,
                taken_ids=taken,
                cached=cached,
                retry_delay=self.retry_delay,
            )
        except ModelFailed as exc:  # the replay of cached snippets cannot fail this way
            raise _ModelError(str(exc), self.budget.requests - before) from exc
        except BudgetExceeded as exc:
            raise _ModelError(str(exc), self.budget.requests - before, skipped=True) from exc
        if cached is None and info.fingerprint and ex.answers.get("choice"):
            self.cache.put(key, ex.answers)
        return ex


def serializer_name(fid: str) -> str:
    """The name of the serializer codemode writes for a function block's cases."""
    from codemode.explore.cases import safe_id

    return "codemode_" + safe_id(fid)


def own_schema(fid: str, spec: SpecFile | None, func: FunctionSpec | None) -> dict[str, str] | None:
    """The ``schema:`` of the serializer codemode itself wrote for this block, else None.

    Recognised by its name (``codemode_<id>``) and its form (a per-parameter schema): a
    regen of the block extends it instead of taking it for a hand-written one (#22).
    """
    if spec is None or func is None or func.serializer != serializer_name(fid):
        return None
    ser = spec.serializers.get(func.serializer)
    if ser is None or ser.serializer is not None or not isinstance(ser.schema, dict):
        return None
    return dict(ser.schema)


def _serializer(
    fid: str,
    cases: list[dict[str, Any]],
    func: FunctionSpec | None,
    done: _Done,
    own: dict[str, str] | None = None,
) -> tuple[list[dict[str, Any]], tuple[str, dict[str, str]] | None]:
    """Cases whose inputs need a vowel serializer share one ``schema:`` (param -> builder).

    A block with a serializer codemode wrote (``own``) keeps its schema and may extend it
    with parameters no hand-written case uses; a block with a serializer of its own, or
    hand-written cases and no serializer, gets none: cases that need one are left out (noted).
    """
    from codemode.explore.cases import SCHEMA_KEY

    schema: dict[str, str] = dict(own or {})
    kept: list[dict[str, Any]] = []
    for c in cases:
        need = c.pop(SCHEMA_KEY, {})
        if any(schema.get(k, v) != v for k, v in need.items()):
            done.notes.append(
                f"{fid}: case {c['id']} builds a parameter another way than the block's "
                "serializer; left out"
            )
            continue  # one schema per function: a conflicting case is left out
        schema.update(need)
        kept.append(c)
    if not schema:
        return kept, None
    hand = [c for c in func.cases if not c.generated] if func is not None else []
    if own is not None:
        used = {k for c in hand if isinstance(c.input_value, dict) for k in c.input_value}
        clash = (set(schema) - set(own)) & used
        if clash:  # a new builder would change how a hand-written case is built: never
            plain = [c for c in kept if not _needs(c, dict.fromkeys(clash, ""))]
            done.notes.append(
                f"{fid}: {len(kept) - len(plain)} case(s) need a builder for "
                f"{', '.join(sorted(clash))}, which hand-written cases pass as written; left out"
            )
            kept = plain
            schema = {k: v for k, v in schema.items() if k not in clash}
        return kept, (serializer_name(fid), schema)
    # A serializer added under hand-written cases would change how they are built: never.
    if func is not None and (func.serializer or hand):
        plain = [c for c in kept if not _needs(c, schema)]
        what = "its own serializer" if func.serializer else "hand-written cases"
        done.notes.append(
            f"{fid}: {len(kept) - len(plain)} case(s) need a serializer, and the block has "
            f"{what}; add their builders (`schema:`) to it by hand to keep them"
        )
        return plain, None
    return kept, (serializer_name(fid), schema)


def _needs(case: dict[str, Any], schema: dict[str, str]) -> bool:
    inputs = case.get("inputs")
    return isinstance(inputs, dict) and bool(set(inputs) & set(schema))


def _needs_fixture(done: _Done, params: Sequence[str], rel: str) -> _Done:
    names = ", ".join(params)
    done.status = "error"
    done.message = (
        f"needs a fixture: {names} (no value of its type can be written in YAML); add a "
        f"fixture that builds it under `fixtures:` in {rel} and list it under `fixture:`, "
        "then run regen again"
    )
    return done


class _ModelError(Exception):
    def __init__(self, message: str, requests: int, skipped: bool = False) -> None:
        super().__init__(message)
        self.requests = requests
        self.skipped = skipped


def _no_case(recorder: Any) -> str:
    """Why a function got no case; when every call failed the same way (an import error, a
    class that needs an instance), that cause, so a bootstrap's summary names it."""
    why = "no call could become a case"
    errors = {r.message.split(";")[0][:200] for r in recorder.records if r.kind == "error"}
    clock = {r.clock for r in recorder.records if r.clock and r.kind != "error"}
    if len(errors) == 1 and all(r.kind == "error" for r in recorder.records):
        why += f" ({errors.pop()})"
    elif clock:
        why += (
            f" (the calls that ran read the clock, {sorted(clock)[0]}: an output of today's date "
            "would drift as days pass; give it the time as a parameter, or write cases by hand)"
        )
    return why + "; the spec was kept as it was"


def _offline_evaluators(recorder: Any, info: Any) -> dict[str, dict[str, Any]]:
    from codemode.explore.pipeline import validate_evaluators
    from codemode.explore.prompts import ProposedEvaluator

    kinds = {type(r.value).__name__ for r in recorder.records if r.kind == "returned"}
    if len(kinds) != 1:
        return {}
    kind = kinds.pop()
    if kind not in ("int", "float", "str", "bool", "list", "dict"):
        return {}
    return validate_evaluators(recorder, info, [ProposedEvaluator(name=f"is_{kind}", type=kind)])


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
    run = _Run(config, None, progress, retry_delay)
    targets, scan = _targets(config, scope, function_ids, run.index)
    targets = [t for t in targets if in_shard(t.id, shard)]
    run.total = len(targets)
    run.order = [t.id for t in targets]
    if not targets:
        return Report(notes=(_empty_scope(config, scope, scan),), mode="regen", scope=scope)
    if chosen is not None:
        from codemode.explore.budget import Budget, price_for
        from codemode.explore.cache import AnswerCache, cache_dir
        from codemode.explore.llm import build_model, model_label

        run.model = build_model(chosen, config.base_url, base_url_origin=config.base_url_origin)
        run.label = model_label(chosen)
        run.budget = Budget(
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
        done = asyncio.run(_gather(run, targets))
    finally:
        run.gate_workers.close()
    report = _finish(config, run, done, dry_run)
    elapsed = time.perf_counter() - started
    summary = _bootstrap_summary(done, report, scan) if scan is not None else []
    return report._replace(
        scope=scope,
        notes=(*report.notes, *summary, f"elapsed {elapsed:.2f} s"),
    )


def _empty_scope(config: Config, scope: Scope, scan: Scan | None) -> str:
    """Nothing to explore: say where we looked and what to run instead."""
    if scan is None:
        if scope.is_change:
            return (
                f"no function changed in the {scope.describe()} change; "
                "run `codemode regen --all` to write specs for every function that has none"
            )
        return "nothing to explore"
    where = ", ".join(scan.searched) or "nothing (no source root exists)"
    left = []
    if scan.excluded_files:
        left.append(f"{len(scan.excluded_files)} excluded file(s) (tests, setup.py, `exclude`)")
    if scan.private:
        left.append(f"{scan.private} private function(s) (`include_private = true` adds them)")
    left += list(scan.problems[:3])
    return (
        f"nothing to explore: searched {where} ({scan.modules} module(s), no public function "
        f"and no spec){'; left out: ' + '; '.join(left) if left else ''}. Name a module or "
        "package (`codemode regen src/pkg`), set `source_roots` under [tool.codemode], or "
        "explore one function with `codemode regen --function pkg.mod.func`"
    )


def _bootstrap_summary(done: list[_Done], report: Report, scan: Scan | None) -> list[str]:
    """One line a bootstrap ends with: functions, spec files written, cases, skipped and why."""
    cases = sum(len(d.update.cases) for d in done if d.update is not None)
    written = sum(1 for e in report.edits if e.applied)
    skipped = Counter(d.message.split(";")[0] for d in done if d.status in ("missing", "error"))
    fresh = sum(1 for d in done if d.update is not None)
    parts = [f"{fresh} got {cases} generated case(s) in {written} spec file(s) written"]
    same = len(done) - fresh - sum(skipped.values())
    if same:
        parts.append(f"{same} up to date or hand-written")
    if skipped:
        why = "; ".join(f"{n} {reason}" for reason, n in skipped.most_common())
        parts.append(f"{sum(skipped.values())} without cases ({why})")
    line = f"{len(done)} function(s): " + ", ".join(parts)
    out = [line]
    if scan is not None and (scan.excluded_files or scan.private):
        out.append(
            f"left out: {len(scan.excluded_files)} excluded file(s), "
            f"{scan.private} private function(s) (`exclude`, `include_private` under "
            "[tool.codemode])"
        )
    out += [f"skipped {p}" for p in scan.problems] if scan else []
    return out


async def _gather(run: _Run, targets: list[_Target]) -> list[_Done]:
    sem = asyncio.Semaphore(max(1, run.config.concurrency))
    if run.model is not None:
        from codemode.explore.snippets import SnippetRunner

        with SnippetRunner(processes=max(1, run.config.concurrency)) as runner:
            run.runner = runner
            return await _all_or_stop(run, targets, sem)
    return list(await asyncio.gather(*(run.one(t, sem) for t in targets)))


async def _all_or_stop(run: _Run, targets: list[_Target], sem: asyncio.Semaphore) -> list[_Done]:
    """Every function, unless the model's server is unreachable: then the run stops (exit 2)."""
    from codemode.explore.llm import Unreachable

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
) -> tuple[str, str | None]:
    """(diff, None), or ("", why not) when the edited file would not load.

    Under the spec's lock the edit is applied to the file as it is now, not as it was when
    the run began: a concurrent ``regen`` or ``accept`` that wrote meanwhile keeps its edit.
    """
    try:
        return _write_locked(path, rel, root, updates, dry_run)
    except OutsideRepository as exc:
        return "", str(exc)


def _write_locked(
    path: Path, rel: str, root: Path, updates: list[FunctionUpdate], dry_run: bool
) -> tuple[str, str | None]:
    with locked(path, root) as target:
        old, form = textfile.decode(target.read_bytes()) if target.is_file() else ("", None)
        new = apply_updates(old, updates)
        loaded = parse_spec_text(new, path, rel)
        bad = (
            [p.message for p in loaded.problems]
            + [f"{f.id}: {f.error}" for f in loaded.functions if f.error]
            + [f"{f.id}[{c.id}]: {c.error}" for f in loaded.functions for c in f.cases if c.error]
        )
        if bad:  # never write a file the loader would reject
            return "", bad[0]
        diff = unified_diff(old, new, rel)
        if diff and not dry_run:
            write_atomic(target, textfile.encode(new, form or textfile.Form()))
    return diff, None


def _finish(config: Config, run: _Run, done: list[_Done], dry_run: bool) -> Report:
    by_file: dict[str, list[FunctionUpdate]] = {}
    for d in done:
        if d.update is not None and d.spec_rel:
            by_file.setdefault(d.spec_rel, []).append(d.update)
    edits: list[SpecEdit] = []
    notes = [n for d in done for n in d.notes]
    failed_files: dict[str, str] = {}
    for rel, updates in sorted(by_file.items()):
        diff, bad = _write_file(config.root / rel, rel, config.root, updates, dry_run)
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
        status, message = d.status, d.message
        if d.spec_rel in failed_files and d.update is not None:
            status, message = (
                "error",
                f"the edited spec would not load ({failed_files[d.spec_rel]}); not written",
            )
        functions.append(
            FunctionResult(
                d.id, status, d.spec_rel, None, message=message, mutation_score=d.mutation_score
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
