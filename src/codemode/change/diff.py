"""The functions a change touched: added, modified, removed, renamed, and those impacted.

``analyze(config, scope)`` compares the two sides of a scope (see ``codemode.change.git.resolve``)
function by function. Only the chunks of a file that a hunk touches are parsed on each side;
the rest of a modified file is text-identical on both sides and so unchanged. Functions whose
behaviour may change through a changed callee, base-class method or constant come from
``codemode.change.impact``. Problems (a syntax error, an undecodable file) are collected, one line each,
and the rest of the analysis goes on.

Speed: a result is cached under ``<git-dir>/codemode-cache`` by what pins it (two commits, or
HEAD and the staged blobs), and identifiers per blob id (see ``codemode.change.cache``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Set
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple, cast

from codemode import probe
from codemode.background import in_background
from codemode.cachedir import digest
from codemode.change.cache import (
    AnalysisCache,
    PinnedRange,
    pin_range,
    source_roots,
)
from codemode.config import Config
from codemode.scope import Scope
from codemode.verdicts import CODE_CHANGED, ChangeStatus

if TYPE_CHECKING:  # imported where used: a cached answer needs none (a hook's startup)
    from codemode.change import git
    from codemode.change.cache import CachedAnalysis as _Cached
    from codemode.change.chunks import Function
    from codemode.change.functions import SourceFile
    from codemode.change.impact import Project
    from codemode.change.parse_sides import Job, OldSides


# changed .py files from which identifiers are read in a helper process (fewer: not worth it)
_HELPER_MIN_CHANGES = 32
_NO_RENAMES: Mapping[str, str] = MappingProxyType({})


# NamedTuples rather than dataclasses: a dataclass costs ~1 ms at import, and a cached run
# (a pre-commit hook's) pays for every one this module defines.
class ChangedFunction(NamedTuple):
    id: str  # "pkg.mod.Class.method"
    path: str  # repo-relative posix path at head (at base for removed)
    status: ChangeStatus
    renamed_from: str | None = None
    impacted_by: tuple[str, ...] = ()  # changed ids whose change reaches this one
    via: tuple[str, ...] = ()  # the linking path: changed id, ..., this id
    lineno: int | None = None  # at head
    end_lineno: int | None = None
    changed_lines: tuple[int, ...] = ()  # head-side lines inside the function the change touched
    # at head ("sha256:..."); None for a removed function, and for an impacted one outside
    # --all (its chunk need not be parsed)
    fingerprint: str | None = None


class HeadIds(Set[str]):
    """Every function id at head, computed on first use: it needs a look at every module,
    which a run that never asks (no spec names a removed function) should not pay for."""

    def __init__(self, compute: Callable[[], frozenset[str]]) -> None:
        self._compute: Callable[[], frozenset[str]] | None = compute
        self._ids: frozenset[str] = frozenset()

    def _get(self) -> frozenset[str]:
        if self._compute is not None:
            self._ids, self._compute = self._compute(), None
        return self._ids

    def __contains__(self, item: object) -> bool:
        return item in self._get()

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())

    def __repr__(self) -> str:
        return "HeadIds(...)" if self._compute else f"HeadIds({len(self._ids)} ids)"


class DiffResult(NamedTuple):
    functions: tuple[ChangedFunction, ...]  # changed + impacted (+ unchanged for --all), by id
    head_ids: Set[str]  # every function id at head (for orphan detection); a lazy HeadIds
    problems: tuple[str, ...] = ()  # one line each
    renames: Mapping[str, str] = _NO_RENAMES  # old -> new
    # every file the change touched, any kind (spec files too): repo-relative, at head
    # (at base for a deletion); empty for --all
    changed_files: tuple[str, ...] = ()


class _Side(NamedTuple):
    """One side of one changed file."""

    path: str
    src: SourceFile
    touched: set[int] | None  # None: everything


def _head_ids(project: Project) -> frozenset[str]:
    from codemode.change.impact import head_ids

    return head_ids(project)


def _touched(ranges: Iterable[tuple[int, int]]) -> set[int]:
    lines: set[int] = set()
    for start, count in ranges:
        # a pure deletion (count 0) sits between line ``start`` and the next one
        lines.update(range(start, start + count) if count else (start, start + 1))
    return lines


def analyze(
    config: Config,
    scope: Scope,
    *,
    cache: bool = True,
    pinned: PinnedRange | None = None,
    staged: git.StagedChange | None = None,
) -> DiffResult:
    """The functions ``scope`` changed or impacts. ``cache=False`` neither reads nor writes
    ``<git-dir>/codemode-cache`` (the result is the same either way). ``pinned``: what
    ``pin_range(config, scope)`` returned, and ``staged``: what ``git.staged_change`` did (for
    a staged scope), when the caller asked already."""
    probe.count("analyze", scope.kind)
    if cache and pinned is None:
        pinned = pin_range(config, scope)
    elif not cache:
        pinned = None
    pair_key: str | None = None
    if pinned is not None:
        repo, head, roots = pinned.repo, pinned.head, pinned.roots
        store, pair_key = pinned.cache, pinned.key
        cached = pinned.result()
        if cached is not None:
            return _from_cache(cached, lambda: _project(repo, _commit_sides(head), roots))
    from codemode.change import git

    known: tuple[list[git.FileChange], bytes] | None = None
    if staged is not None and scope.kind == "staged":
        repo, git_dir, sides = staged.repo, staged.git_dir, staged.sides
        known = staged.changes, staged.raw
    else:
        at_head: str | None = None
        if pinned is None:
            repo, git_dir, at_head = git.locate_at_head(config.root)  # HEAD in the same git run
        sides = git.resolve(repo, scope, at_head)
    if pinned is None:
        roots = source_roots(config, repo)
        store = AnalysisCache(git_dir if cache else None)
    everything = scope.kind in ("all", "paths")
    return _Analysis(config, repo, sides, roots, store, everything, pair_key).run(known)


def without_tests(result: DiffResult, config: Config) -> DiffResult:
    """The analysis with the project's test functions left out (``codemode.testcode``): test
    code is never a target, so no spec, ``missing``, regen or count for it (#35). ``codemode
    diff`` keeps them, and lists the impacted ones apart."""
    from codemode.testcode import is_test_path, repo_test_paths

    paths = repo_test_paths(config.root, config.test_paths)
    kept = tuple(f for f in result.functions if not is_test_path(f.path, paths))
    return result if len(kept) == len(result.functions) else result._replace(functions=kept)


def _commit_sides(head: str) -> git.Sides:
    from codemode.change import git

    return git.Sides("", head, "commit")


def _from_cache(cached: _Cached, project: Callable[[], Project]) -> DiffResult:
    rows, problems, renames, changed_files = cached
    # tuple.__new__ directly: no Python-level call per function (thousands on a big change)
    make = cast(
        Callable[[tuple[object, ...]], ChangedFunction], partial(tuple.__new__, ChangedFunction)
    )
    return DiffResult(
        tuple(map(make, rows)),
        HeadIds(lambda: _head_ids(project())),
        problems,
        MappingProxyType(renames),
        changed_files,
    )


def _project(
    repo: Path, sides: git.Sides, roots: tuple[str, ...], cache: AnalysisCache | None = None
) -> Project:
    from codemode.change import git
    from codemode.change.chunks import module_name
    from codemode.change.impact import ModuleFile, Project

    modules: dict[str, ModuleFile] = {}
    for entry in git.list_files(repo, sides):
        module = module_name(entry.path, roots)  # noted only if the diff touches it
        if module is not None and module not in modules:
            modules[module] = ModuleFile(entry, module)
    return Project(repo, modules, cache)


class _Analysis:
    def __init__(
        self,
        config: Config,
        repo: Path,
        sides: git.Sides,
        roots: tuple[str, ...],
        cache: AnalysisCache,
        everything: bool,
        pair_key: str | None = None,
    ) -> None:
        self.config, self.repo, self.sides, self.roots = config, repo, sides, roots
        self.cache, self.everything, self.pair_key = cache, everything, pair_key
        self.problems: list[str] = []
        self.notes: set[str] = set()
        self.old_sides: OldSides | None = None

    def module(self, path: str) -> str | None:
        from codemode.change.chunks import module_name

        module = module_name(path, self.roots)
        if module is None and path not in self.notes:
            self.notes.add(path)
            self.problems.append(f"{path}: outside the source roots or not importable (skipped)")
        return module

    def _key(self, raw: bytes) -> str | None:
        """What pins every input: both commits, or HEAD and the index's changes (git's raw
        diff names every changed blob). The work tree has no such id: never cached."""
        if self.sides.head_kind == "worktree":
            return None
        change = self.sides.head or digest(raw)
        config = (self.roots, self.config.impact_depth, self.everything)
        return self.cache.key(self.sides.head_kind, self.sides.base, change, config)

    def _project(self) -> Project:
        return _project(self.repo, self.sides, self.roots, self.cache)

    def run(self, known: tuple[list[git.FileChange], bytes] | None = None) -> DiffResult:
        """``known``: ``git.raw_diff`` of these sides, when the caller has it already."""
        from codemode.change import git

        # two commits pin the answer by themselves: look it up before even asking for the diff
        key = self._key(b"") if self.sides.head_kind == "commit" else None
        cached = self.cache.result(key) if key else None
        if cached is None:
            changes, raw = known or git.raw_diff(self.repo, self.sides)
            key = key or self._key(raw)
            cached = self.cache.result(key) if key and self.sides.head_kind != "commit" else None
        if cached is not None:
            if self.pair_key:
                self.cache.put_result(self.pair_key, cached)
            return _from_cache(cached, self._project)
        project = self._project()
        changed_files = {c.new_path or c.old_path or "" for c in changes} - {""}
        changes = [
            c
            for c in changes
            if (c.new_path or "").endswith(".py") or (c.old_path or "").endswith(".py")
        ]
        # Impact needs every module's identifiers; with many changed files to parse here
        # meanwhile, a forked helper reads them on the other core, and another parses the
        # old side. Started before any thread of this process exists.
        from codemode.change.parse_sides import OldSides, load

        if len(changes) >= _HELPER_MIN_CHANGES:
            project.start_words_helper()
            self.old_sides = OldSides.start(self.repo, load, project.helper_fds())
        try:
            return self._changed(changes, changed_files, project, key)
        finally:
            project.close()
            if self.old_sides is not None:
                self.old_sides.close()

    def _changed(
        self,
        changes: list[git.FileChange],
        changed_files: set[str],
        project: Project,
        key: str | None,
    ) -> DiffResult:
        from codemode.change import git
        from codemode.change.data_files import data_files, data_readers
        from codemode.change.impact import impacted

        hunks = in_background(lambda: git.hunks(self.repo, self.sides))
        old_sides, new_sides = self._changed_sides(changes, hunks(), project)
        old_fns, new_fns = self._functions(old_sides), self._functions(new_sides)
        results = self._statuses(old_fns, new_fns, old_sides, new_sides)
        renames = {r.renamed_from: r.id for r in results.values() if r.renamed_from}
        changed = {i for i, r in results.items() if r.status in CODE_CHANGED}
        changed |= self._changed_constants(old_sides, new_sides)
        project.removed = frozenset(i for i, r in results.items() if r.status == "removed")
        data = data_files(project, changed_files)  # a table shipped in a package (#32)
        readers = data_readers(project, data) if data else None
        for fid, imp in impacted(project, changed, self.config.impact_depth, readers).items():
            if fid in results:
                continue
            fn, path = self._head_function(project, fid)
            results[fid] = ChangedFunction(
                fid,
                path,
                "impacted",
                impacted_by=imp.roots,
                via=imp.via,
                lineno=fn.lineno if fn else None,
                end_lineno=fn.end_lineno if fn else None,
                fingerprint=fn.fingerprint if fn else None,
            )
        if self.everything:
            self._add_unchanged(project, results)
        self.problems.extend(p for p in project.problems if p not in self.problems)
        functions = tuple(results[k] for k in sorted(results))
        problems, files = tuple(self.problems), tuple(sorted(changed_files))
        value = (tuple(map(tuple, functions)), problems, renames, files)  # plain: for marshal
        for k in (key, self.pair_key):
            if k:
                self.cache.put_result(k, value)
        return DiffResult(
            functions=functions,
            head_ids=HeadIds(lambda: _head_ids(project)),
            changed_files=files,
            problems=problems,
            renames=MappingProxyType(renames),
        )

    # -- reading ------------------------------------------------------------------------------
    def _jobs(self, changes: list[git.FileChange], hunks: dict[str, git.Hunks]) -> list[Job]:
        from codemode.change import git
        from codemode.change.parse_sides import Job

        jobs = []
        for c in changes:
            if c.status == "U":  # a merge conflict: the index holds no one version to read
                self.problems.append(f"{c.new_path or c.old_path}: unmerged (skipped)")
                continue
            old_ok = c.old_path is not None and c.old_mode in git.REGULAR_MODES
            new_ok = c.new_path is not None and c.new_mode in git.REGULAR_MODES
            old_mod = self.module(c.old_path) if old_ok and c.old_path else None
            new_mod = self.module(c.new_path) if new_ok and c.new_path else None
            h = hunks.get(c.new_path or c.old_path or "")
            if h is None and old_mod == new_mod and c.old_sha == c.new_sha:
                continue  # a mode change, or a move that keeps the module name
            # added, deleted, moved to another module, binary, or renamed without hunks:
            # compare every function
            whole = old_mod != new_mod or h is None
            jobs.append(
                Job(
                    (c.old_path or "", old_mod, c.old_sha) if old_mod else None,
                    (c.new_path or "", new_mod, c.new_sha) if new_mod else None,
                    None if whole or h is None else _touched(h.old),
                    None if whole or h is None else _touched(h.new),
                )
            )
        return jobs

    def _changed_sides(
        self, changes: list[git.FileChange], hunks: dict[str, git.Hunks], project: Project
    ) -> tuple[list[_Side], list[_Side]]:
        from codemode.change.functions import SourceFile
        from codemode.change.parse_sides import load_jobs, read_blobs

        jobs = self._jobs(changes, hunks)
        if not jobs:
            return [], []
        # git decompresses the old side in the background while this process reads the head
        # side and its identifiers (impact needs them anyway; cached ones cost no read)
        requests = [
            (j.old[0], j.old[1], j.old[2], None if j.old_lines is None else sorted(j.old_lines))
            for j in jobs
            if j.old and j.old[2]
        ]
        helper = self.old_sides  # a forked child that parses the old side meanwhile
        asked = helper is not None and helper.ask(requests)
        read_old = partial(read_blobs, self.repo, [sha for _, _, sha, _ in requests])
        old_blobs = read_old if asked else in_background(read_old)  # else read as we go
        project.load_words()
        new_modules = [
            project.modules[j.new[1]] for j in jobs if j.new and j.new[1] in project.modules
        ]
        project.load(new_modules)
        new_data = {mf.path: mf.data for mf in new_modules if mf.data is not None}
        loaded = load_jobs(jobs, new_data, old_blobs, helper if asked else None)
        olds: list[_Side] = []
        news: list[_Side] = []
        for job, (old, new) in zip(jobs, loaded):
            for result, where in ((old, job.old), (new, job.new)):
                if isinstance(result, str) and where:
                    self.problems.append(f"{where[0]}:{result} (skipped)")
            mf = project.modules.get(job.new[1]) if job.new else None
            if mf is not None and job.new and mf.path != job.new[0]:
                mf = None  # another file holds that module name
            if isinstance(new, SourceFile) and mf is not None:
                mf.source = new  # impact analysis reuses what was parsed
            elif mf is not None:
                mf.problem = "unreadable"
            if isinstance(old, str) or isinstance(new, str):
                continue  # one side is unreadable: saying "all removed" or "all added" would lie
            old_side = _Side(job.old[0], old, job.old_lines) if old and job.old else None
            new_side = _Side(job.new[0], new, job.new_lines) if new and job.new and mf else None
            if old_side and new_side and not self._statements_alike(old_side, new_side):
                continue
            olds += [old_side] if old_side else []
            news += [new_side] if new_side else []
        return olds, news

    def _statements_alike(self, old: _Side, new: _Side) -> bool:
        """A hunk in the imports and constants on one side: parse them on both, so that
        constants (and defs under an ``if``) compare like with like."""
        from codemode.change.chunks import SourceError

        if any(c.info is not None and not c.is_def for s in (old, new) for c in s.src.chunks):
            for side in (old, new):
                try:
                    side.src.parse_statements()
                except SourceError as exc:
                    self.problems.append(f"{side.path}:{exc} (skipped)")
                    return False
        return True

    # -- comparing ----------------------------------------------------------------------------
    def _functions(self, sides: list[_Side]) -> dict[str, tuple[_Side, Function]]:
        """The functions of the parsed chunks (the rest is identical on both sides)."""
        out: dict[str, tuple[_Side, Function]] = {}
        for side in sides:
            for fn in side.src.parsed_functions().values():
                out.setdefault(fn.id, (side, fn))
        return out

    def _complete(
        self, fns: dict[str, tuple[_Side, Function]], sides: list[_Side], wanted: Iterable[str]
    ) -> None:
        """A function parsed on one side only: parse its chunk on the other side too, if it
        is there (the hunks of the two sides can cut chunks differently)."""
        from codemode.change.chunks import SourceError

        by_module = {s.src.module: s for s in sides}
        for fid in wanted:
            if fid in fns and fns[fid][1].fingerprint is not None:
                continue
            module, _, _ = fid.rpartition(".")
            while module and module not in by_module:
                module = module.rpartition(".")[0]
            side = by_module.get(module)
            if side is None:
                continue
            qual = fid[len(module) + 1 :]
            if side.src.function(qual) is None:
                continue  # really added or removed
            try:
                side.src.ensure([qual])
            except SourceError as exc:
                self.problems.append(f"{side.path}:{exc} (skipped)")
                continue
            fn = side.src.parsed_functions().get(qual)
            if fn is not None:
                fns[fid] = (side, fn)

    def _statuses(
        self,
        old: dict[str, tuple[_Side, Function]],
        new: dict[str, tuple[_Side, Function]],
        old_sides: list[_Side],
        new_sides: list[_Side],
    ) -> dict[str, ChangedFunction]:
        self._complete(old, old_sides, list(new.keys() - old.keys()))
        self._complete(new, new_sides, list(old.keys() - new.keys()))
        both = old.keys() & new.keys()
        results: dict[str, ChangedFunction] = {}
        for i in both:
            (_, a), (side, b) = old[i], new[i]
            if a.fingerprint != b.fingerprint:
                results[i] = self._head(b, side, "modified")
        added = {i: new[i] for i in new.keys() - old.keys()}
        removed = {i: old[i] for i in old.keys() - new.keys()}
        by_fp: dict[str, list[str]] = {}
        for i in sorted(removed):
            fp = removed[i][1].fingerprint
            if fp:
                by_fp.setdefault(fp, []).append(i)
        for i in sorted(added):
            side, fn = added[i]
            candidates = by_fp.get(fn.fingerprint or "", [])
            if candidates:
                # prefer the same name (a moved file) over the first of several identical bodies
                same = [
                    c for c in candidates if c.rsplit(".", 1)[-1] == fn.qualname.rsplit(".", 1)[-1]
                ]
                old_id = (same or candidates)[0]
                candidates.remove(old_id)
                del removed[old_id]
                results[i] = self._head(fn, side, "renamed", renamed_from=old_id)
            else:
                results[i] = self._head(fn, side, "added")
        for i, (side, _fn) in removed.items():
            results[i] = ChangedFunction(i, side.path, "removed", fingerprint=None)
        return results

    def _head(
        self, fn: Function, side: _Side, status: ChangeStatus, renamed_from: str | None = None
    ) -> ChangedFunction:
        span = range(fn.lineno, fn.end_lineno + 1)
        if status == "added" or (side.touched is None and status == "modified"):
            lines: tuple[int, ...] = tuple(span)
        elif status == "modified":
            lines = tuple(n for n in sorted(side.touched or ()) if n in span)
        else:
            lines = ()
        return ChangedFunction(
            fn.id,
            side.path,
            status,
            renamed_from=renamed_from,
            lineno=fn.lineno,
            end_lineno=fn.end_lineno,
            changed_lines=lines,
            fingerprint=fn.fingerprint,
        )

    def _changed_constants(self, olds: list[_Side], news: list[_Side]) -> set[str]:
        self._classes_alike(olds, news)
        before = {f"{s.src.module}.{k}": v for s in olds for k, v in s.src.constants().items()}
        after = {f"{s.src.module}.{k}": v for s in news for k, v in s.src.constants().items()}
        return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}

    def _classes_alike(self, olds: list[_Side], news: list[_Side]) -> None:
        """A class parsed on one side only: parse it on the other too, so that its attributes
        (constants ``Cls.NAME``) compare like with like."""
        from codemode.change.chunks import SourceError

        old_by, new_by = {s.src.module: s for s in olds}, {s.src.module: s for s in news}
        for module in old_by.keys() & new_by.keys():
            sides = (old_by[module], new_by[module])
            parsed = [{q.split(".")[0] for q in s.src.classes()} for s in sides]
            for side, other in ((sides[0], parsed[1]), (sides[1], parsed[0])):
                wanted = [q for q in other if side.src.top_names() and q in side.src.top_names()]
                try:
                    side.src.ensure(wanted)
                except SourceError as exc:
                    self.problems.append(f"{side.path}:{exc} (skipped)")

    def _head_function(self, project: Project, fid: str) -> tuple[Function | None, str]:
        module, qual = project.split(fid)
        mf = project.modules.get(module)
        src = project.source(module) if mf else None
        fn = src.function(qual) if src else None
        return fn, mf.path if mf else ""

    def _add_unchanged(self, project: Project, results: dict[str, ChangedFunction]) -> None:
        from codemode.change.chunks import SourceError

        for module, mf in sorted(project.modules.items()):
            src = project.source(module)
            if src is None:
                continue
            try:
                src.parse_all()
            except SourceError as exc:
                self.problems.append(f"{mf.path}:{exc} (skipped)")
                continue
            for fn in src.functions().values():
                known = results.get(fn.id)
                if known is not None and known.fingerprint is None and known.status != "removed":
                    # an impacted function's chunk may not have been parsed until now
                    results[fn.id] = known._replace(fingerprint=fn.fingerprint)
                elif known is None:
                    results[fn.id] = ChangedFunction(
                        fn.id,
                        mf.path,
                        "unchanged",
                        lineno=fn.lineno,
                        end_lineno=fn.end_lineno,
                        fingerprint=fn.fingerprint,
                    )
