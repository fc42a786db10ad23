"""A cache that makes a second run cheap, under ``<git-dir>/codemode-cache/`` (never committed).

- ``analysis.sqlite3``, table ``words``: blob id -> the identifiers in that blob, the impact
  prefilter's input, so a warm run reads only the blobs that can matter instead of every
  module of the repository;
- ``results/<key>``: a key that pins every input of an analysis (the two commits or the
  index's content, the source roots, the impact depth, the Python and cache versions) -> the
  result, as plain tuples, dicts and strings in ``marshal`` format. One small file each: a
  cached run reads one file and imports neither ``sqlite3`` nor ``pickle`` (``marshal`` is
  built in, and loads several times faster than pickled objects). The most recently used
  ``_KEEP_RESULTS`` are kept (a read touches the file's mtime).

Python's ``ast`` differs between versions, so the Python version is part of every key. The
cache is an optimization only: any error (a read-only repository, a locked or corrupt file)
turns it off for the run, and the analysis goes on without it.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from codemode.atomic import write_atomic
from codemode.cachedir import digest

if TYPE_CHECKING:
    import sqlite3

    # a cached analysis, as marshal stores it: functions, problems, renames, changed files
    CachedAnalysis = tuple[
        tuple[tuple[object, ...], ...], tuple[str, ...], dict[str, str], tuple[str, ...]
    ]

    from codemode.config import Config
    from codemode.scope import Scope

SCHEMA = 8  # 6: functions nested in functions are part of the enclosing one (#13); 7: class
# attributes are constants, and impact follows instances, overrides and class attributes (#32);
# 8: and what an instance's construction built (#32)
_KEEP_RESULTS = 64  # most recent results kept; a result is small, but PR heads come and go
_VERSION = f"{SCHEMA}:{sys.version_info[0]}.{sys.version_info[1]}"


class AnalysisCache:
    def __init__(self, git_dir: Path | None) -> None:
        self._db: sqlite3.Connection | None = None  # opened when identifiers are asked for
        self._pid = os.getpid()
        self._ok = git_dir is not None
        self.git_dir = git_dir  # what it was opened for
        self.folder = git_dir / "codemode-cache" if git_dir is not None else None
        if self.folder is not None:
            try:
                self.folder.mkdir(exist_ok=True)
            except OSError:
                self._ok = False

    @property
    def enabled(self) -> bool:
        return self._ok and os.getpid() == self._pid

    def _connect(self) -> sqlite3.Connection | None:
        import sqlite3  # here: a cached result needs no database

        if self._db is None and self.enabled and self.folder is not None:
            db = sqlite3.connect(self.folder / "analysis.sqlite3", timeout=2, isolation_level=None)
            db.executescript(
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;"
                "CREATE TABLE IF NOT EXISTS words (blob TEXT PRIMARY KEY, words BLOB) WITHOUT ROWID;"
            )
            self._db = db
        return self._db

    @contextlib.contextmanager
    def _guard(self) -> Iterator[sqlite3.Connection | None]:
        import sqlite3

        errors = (OSError, sqlite3.Error, ValueError, EOFError, AttributeError, TypeError)
        db = None
        if self.enabled:  # off, or SQLite connections must not cross a fork
            try:
                db = self._connect()
            except errors:
                self._db, self._ok = None, False
        if db is None:
            yield None
            return
        try:
            yield db
        except errors:
            self._db, self._ok = None, False  # a broken cache must never break an analysis

    # -- identifiers per blob -----------------------------------------------------------------
    def words(self, blobs: Iterable[str]) -> dict[str, bytes]:
        """Blob id -> its identifiers, space-separated (as ``put_words`` stored them)."""
        out: dict[str, bytes] = {}
        wanted = [f"{_VERSION}:{b}" for b in blobs]
        with self._guard() as db:
            for i in range(0, len(wanted) if db else 0, 500):
                part = wanted[i : i + 500]
                marks = ",".join("?" * len(part))
                assert db is not None
                for key, words in db.execute(
                    f"SELECT blob, words FROM words WHERE blob IN ({marks})", part
                ):
                    out[key.rpartition(":")[2]] = words
        return out

    def put_words(self, items: Iterable[tuple[str, bytes]]) -> None:
        rows = [(f"{_VERSION}:{blob}", words) for blob, words in items]
        with self._guard() as db:
            if db and rows:
                db.execute("BEGIN")
                db.executemany("INSERT OR REPLACE INTO words VALUES (?, ?)", rows)
                db.execute("COMMIT")

    # -- whole results ------------------------------------------------------------------------
    @staticmethod
    def key(*parts: object) -> str:
        return digest(repr((_VERSION, *parts)).encode())

    def result(self, key: str) -> Any:
        if not self.enabled or self.folder is None:
            return None
        path = os.path.join(self.folder, "results", key)
        try:
            with open(path, "rb") as f:
                value = marshal.loads(f.read())
        except (OSError, ValueError, EOFError, TypeError):
            return None  # absent, unreadable or corrupt: recomputed, and replaced
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: kept
        return value

    def put_result(self, key: str, value: Any) -> None:
        """``value``: plain data only (tuples, lists, dicts, str, int, None; no subclasses)."""
        if not self.enabled or self.folder is None:
            return
        folder = self.folder / "results"
        try:
            write_atomic(folder / key, marshal.dumps(value))  # whole, for a concurrent reader
            names = [n for n in os.listdir(folder) if not n.startswith(".")]  # not temp files
            if len(names) > _KEEP_RESULTS:
                by_age = sorted(names, key=lambda n: os.stat(folder / n).st_mtime)
                for name in by_age[: len(names) - _KEEP_RESULTS]:
                    with contextlib.suppress(OSError):
                        os.unlink(folder / name)
        except (OSError, ValueError):
            pass  # a cache that cannot be written is a slower run, not a failed one


# -- a range's result, from one git run ---------------------------------------------------------


def source_roots(config: Config, repo: Path) -> tuple[str, ...]:
    """Source roots as repo-relative prefixes (the config's root may be a subdirectory)."""
    try:
        prefix = PurePosixPath(config.root.resolve().relative_to(repo.resolve()).as_posix())
    except ValueError:
        prefix = PurePosixPath(".")
    out = []
    for r in config.source_roots:
        joined = (prefix / r).as_posix()
        out.append("." if joined in ("", ".") else joined.removeprefix("./"))
    return tuple(out)


class PinnedRange:
    """A range scope's work tree, its head revision (a commit id, or a pin such as
    ``<id>~1``: see ``codemode.change.refs``), and its cache entry."""

    def __init__(self, repo: Path, git_dir: Path, base: str, head: str, config: Config) -> None:
        self.repo, self.head = repo, head
        self.roots = source_roots(config, repo)
        self.cache = AnalysisCache(git_dir)
        # the two commits as named pin the merge base too: one git run answers a repeat
        self.key = self.cache.key("pair", base, head, (self.roots, config.impact_depth, False))

    def result(self) -> CachedAnalysis | None:
        found: CachedAnalysis | None = self.cache.result(self.key)
        return found


def pin_range(config: Config, scope: Scope) -> PinnedRange | None:
    """What pins ``scope.base`` and ``scope.head``, with the work tree and git dir: all that a
    cached range needs. From the refs' files, else one git run; None if anything is unusual,
    and the full path (which explains what is wrong) runs instead."""
    refs = (scope.base or "HEAD", scope.head or "HEAD")
    if scope.kind != "range" or any(r.startswith("-") for r in refs):
        return None
    from codemode.change.refs import pin_revisions

    # from the refs' files when they are plain: no git process (nor subprocess's import)
    pinned = pin_revisions(config.root, refs)
    if pinned is not None:
        top, git_dir, (base, head) = pinned
        return PinnedRange(Path(top), Path(git_dir), base, head, config)
    from codemode.change.git import rev_parse_commits

    found = rev_parse_commits(config.root, refs)
    if found is None:
        return None
    top_path, git_path, (base, head) = found
    return PinnedRange(top_path, git_path, base, head, config)
