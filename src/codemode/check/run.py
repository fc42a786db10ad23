"""``run_check``: decide which specs a scope affects, verify them, and return one Report.

Decide first, act last: this returns a value; printing, files and exit codes belong to
the CLI and the Action.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemode.config import Config
from codemode.report.model import FunctionResult, Problem, Report
from codemode.scope import Scope, regen_command
from codemode.shard import in_shard
from codemode.specs.discover import find_spec_files
from codemode.specs.index import index_specs
from codemode.worker.python import find_python, missing_module_hint

# The verification stack (worker, sandbox, comparison) is imported only when something is
# verified: a pre-commit run whose change touches no spec'd function should not pay for it.
if TYPE_CHECKING:
    from codemode.change.git import StagedChange
    from codemode.check.verify import VerifyResult
    from codemode.specs.types import SpecFile
    from codemode.worker.pool import Worker


def describe_scope(scope: Scope) -> str:
    if scope.kind == "range":
        return f"{scope.base}...{scope.head or 'HEAD'}"
    if scope.kind == "paths":
        return " ".join(scope.paths)
    return scope.kind


def make_worker(config: Config, root: Path | None = None) -> Worker:
    from codemode.worker.pool import Worker

    return Worker(
        find_python(config.root, config.python),
        root or config.root,
        config.source_roots,
        timeout=config.timeout,
        memory_mb=config.memory_limit_mb,
    )


def _load_specs(config: Config, scope: Scope, root: Path) -> list[SpecFile]:
    from codemode.specs.load import load_spec_file  # yaml: only when specs are parsed

    paths = scope.paths if scope.kind == "paths" else ()
    return [
        load_spec_file(p, root)
        for p in find_spec_files(config, paths, root=None if paths else root)
    ]


def run_check(
    config: Config,
    scope: Scope,
    *,
    shard: tuple[int, int] | None = None,
    worker: Worker | None = None,
    staged: StagedChange | None = None,
) -> Report:
    """``staged``: ``git.staged_change(config.root)`` for a staged scope, when the caller has
    it (the hook's fast path asked git already)."""
    started = time.perf_counter()
    if scope.is_change:
        report = _check_change(config, scope, shard, worker, staged)
    else:
        own = worker is None
        w = worker or make_worker(config)
        if own:
            w.spawn()  # the interpreter starts while the specs are parsed
        try:
            specs = _load_specs(config, scope, config.root)
            result = _verify(config, w, specs, shard=shard)
        finally:
            if own:
                w.close()
        report = Report(
            functions=tuple(result.functions),
            problems=tuple(result.problems),
            notes=(no_specs_note(config),) if not specs and scope.kind == "all" else (),
            scope=describe_scope(scope),
        )
    notes = list(report.notes)
    # Inside pre-commit's private env with no project interpreter, a missing module almost
    # always means "set the interpreter"; say how, once, not on each of twenty cases.
    hint = missing_module_hint(config, _messages(report))
    if hint:
        notes.append(hint)
    elapsed = time.perf_counter() - started
    return report._replace(notes=(*notes, f"elapsed {elapsed:.2f} s"))


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


def _verify(config: Config, worker: Worker, specs: list[SpecFile], **kwargs: Any) -> VerifyResult:
    from codemode.check.verify import Verifier

    return Verifier(config, worker).verify(specs, **kwargs)


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
) -> Report:
    from codemode.change import diff as diff_mod
    from codemode.change import git

    analysis = diff_mod.analyze(config, scope, staged=staged)
    regen = regen_command(describe_scope(scope)) or "codemode regen --staged"
    notes: list[str] = list(analysis.problems)
    # --staged verifies the staged content even when the work tree has unstaged edits.
    staged_root = git.materialize_staged(config.root) if scope.kind == "staged" else None
    root = staged_root or config.root
    own = worker is None
    try:
        paths = _affected_spec_paths(config, root, analysis)
        if paths and own:
            # The worker's interpreter starts while the YAML is imported and parsed.
            worker = make_worker(config, root)
            worker.spawn()
        specs = _load_specs_at(paths, root)
        index = index_specs(specs)
        changed = {f.id: f for f in analysis.functions if f.status != "removed"}
        removed = {f.id for f in analysis.functions if f.status == "removed"}
        removed |= set(analysis.renames)
        to_verify = {fid for fid in changed if index.files_for(fid)}
        # A spec file edited by the change is re-verified whole: the change is the spec itself.
        changed_specs = _changed_spec_files(analysis)
        for spec in specs:
            if spec.rel in changed_specs:
                to_verify |= {f.id for f in spec.functions}
        to_verify = {fid for fid in to_verify if in_shard(fid, shard)}
        verified_results: list[FunctionResult] = []
        problems: list[Problem] = []
        lines_run: dict[str, set[int]] = {}
        if specs:
            assert worker is not None  # the caller's, or spawned above once paths were known
            result = _verify(config, worker, specs, only=to_verify, trace=True, shard=shard)
            verified_results, problems, lines_run = result.functions, result.problems, result.lines
        functions: list[FunctionResult] = []
        for fr in verified_results:
            cf = changed.get(fr.id)
            if fr.id in removed and fr.id not in analysis.head_ids:
                renamed = analysis.renames.get(fr.id)
                functions.append(_orphan(fr.id, fr.spec, fr.line, renamed, regen))
                continue
            if cf is not None and fr.status == "ok" and cf.status == "modified":
                fr = _stale_or_ok(fr, cf, root, lines_run.get(fr.id, set()), regen)
            if cf is not None:
                fr = fr._replace(path=cf.path, impacted_by=cf.impacted_by)
            functions.append(fr)
        verified = {f.id for f in functions}
        for fid, cf in sorted(changed.items()):
            if fid in verified or not in_shard(fid, shard):
                continue
            if cf.renamed_from and index.files_for(cf.renamed_from):
                continue  # the orphaned old spec names this rename; one finding, not two
            if cf.status in ("added", "modified", "renamed") and not index.files_for(fid):
                functions.append(
                    FunctionResult(
                        fid,
                        "missing",
                        None,
                        None,
                        message=f"{cf.status} with no spec; run `{regen}` to write one",
                        path=cf.path,
                        impacted_by=cf.impacted_by,
                    )
                )
        for old in sorted(removed):
            if old in verified or not in_shard(old, shard):
                continue
            for ref in index.refs_for(old):
                if old not in analysis.head_ids:
                    renamed = analysis.renames.get(old)
                    functions.append(_orphan(old, ref.file, ref.line, renamed, regen))
        return Report(
            functions=tuple(functions),
            problems=tuple(problems),
            notes=tuple(notes),
            scope=describe_scope(scope),
        )
    finally:
        if own and worker is not None:
            worker.close()
        if staged_root is not None:
            import shutil  # bz2, lzma: only when a staged tree was written

            shutil.rmtree(staged_root, ignore_errors=True)


def _stale_or_ok(
    fr: FunctionResult, cf: Any, root: Path, ran: set[int], regen: str
) -> FunctionResult:
    """Stale: the spec passes, yet a changed statement of the function ran in no case."""
    from codemode.change.stale import unexecuted_changes

    if not cf.changed_lines or cf.lineno is None:
        return fr
    try:
        source = (root / cf.path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return fr
    missed = unexecuted_changes(source, cf.lineno, cf.changed_lines, ran)
    if not missed:
        return fr
    lines = ", ".join(str(n) for n in missed[:8])
    return FunctionResult(
        fr.id,
        "stale",
        fr.spec,
        fr.line,
        fr.cases,
        message=f"the spec passes, but no case runs the changed line(s) {cf.path}:{lines}; "
        f"add a case or run `{regen}`",
        path=cf.path,
    )


def _affected_spec_paths(config: Config, root: Path, analysis: Any) -> list[Path]:
    """The spec files that name a function the change touched, or that the change edited.

    The others cannot change a verdict; parsing every spec file is most of what a hook pays
    when the staged change touches no spec'd function. Read without a YAML parser.
    """
    from codemode.check.fastpath import spec_keys

    wanted = {f.id for f in analysis.functions} | set(analysis.renames)
    edited = _changed_spec_files(analysis)
    out: list[Path] = []
    for path in find_spec_files(config, root=root):
        rel = path.relative_to(root).as_posix()
        try:
            keys = spec_keys(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            keys = None  # the loader says what is wrong with it
        if keys is None or rel in edited or wanted & keys.keys():
            out.append(path)
    return out


def _load_specs_at(paths: list[Path], root: Path) -> list[SpecFile]:
    if not paths:
        return []
    from codemode.specs.load import load_spec_file  # yaml: only when a spec matters

    return [load_spec_file(p, root) for p in paths]


def _orphan(
    fid: str, spec: str | None, line: int | None, renamed_to: str | None, regen: str
) -> FunctionResult:
    if renamed_to:
        msg = f"the function was renamed to {renamed_to}; rename the spec block (or run `{regen}`)"
    else:
        msg = "the function no longer exists; delete its spec block or point it at the new function"
    return FunctionResult(fid, "orphaned", spec, line, message=msg, renamed_to=renamed_to)


def _changed_spec_files(analysis: Any) -> set[str]:
    return set(analysis.changed_files)
