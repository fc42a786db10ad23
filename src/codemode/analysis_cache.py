"""A cache that makes a second run cheap, under ``<git-dir>/codemode-cache/`` (never committed).

Two tables in one SQLite file:

- ``words``: blob id -> the identifiers in that blob, the impact prefilter's input, so a warm
  run reads only the blobs that can matter instead of every module of the repository;
- ``results``: a key that pins every input of an analysis (the two commits or the index's
  content, the source roots, the impact depth, the Python and cache versions) -> the result,
  as plain tuples, dicts and strings in ``marshal`` format (several times faster to load than
  pickled objects, and ``marshal`` is built in: a cached run imports no ``pickle``).

Python's ``ast`` differs between versions, so the Python version is part of every key. The
cache is an optimization only: any error (a read-only repository, a locked or corrupt file)
turns it off for the run, and the analysis goes on without it.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

SCHEMA = 4
_KEEP_RESULTS = 64  # most recent results kept; a result is small, but PR heads come and go
_VERSION = f"{SCHEMA}:{sys.version_info[0]}.{sys.version_info[1]}"


def digest(data: bytes) -> str:
    """A 256-bit hex digest of ``data`` for cache keys. BLAKE2 from its built-in module:
    ``hashlib`` loads OpenSSL first, ~4 ms of a cached run's ~60."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import blake2b
    return blake2b(data, digest_size=32).hexdigest()


class AnalysisCache:
    def __init__(self, git_dir: Path | None) -> None:
        self._db: sqlite3.Connection | None = None
        self._pid = os.getpid()
        self.git_dir = git_dir  # what it was opened for
        if git_dir is None:
            return
        try:
            folder = git_dir / "codemode-cache"
            folder.mkdir(exist_ok=True)
            self._db = sqlite3.connect(folder / "analysis.sqlite3", timeout=2, isolation_level=None)
            self._db.executescript(
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;"
                "CREATE TABLE IF NOT EXISTS words (blob TEXT PRIMARY KEY, words BLOB) WITHOUT ROWID;"
                "CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, value BLOB, used REAL);"
            )
        except (OSError, sqlite3.Error):
            self._db = None

    @property
    def enabled(self) -> bool:
        return self._db is not None and os.getpid() == self._pid

    @contextlib.contextmanager
    def _guard(self) -> Iterator[sqlite3.Connection | None]:
        if os.getpid() != self._pid:  # SQLite connections must not cross a fork
            yield None
            return
        try:
            yield self._db
        except (sqlite3.Error, ValueError, EOFError, AttributeError, TypeError):
            self._db = None  # a broken cache must never break an analysis

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
        with self._guard() as db:
            if db:
                row = db.execute("SELECT value FROM results WHERE key = ?", (key,)).fetchone()
                if row:
                    db.execute("UPDATE results SET used = ? WHERE key = ?", (time.time(), key))
                    return marshal.loads(row[0])
        return None

    def put_result(self, key: str, value: Any) -> None:
        """``value``: plain data only (tuples, lists, dicts, str, int, None; no subclasses)."""
        with self._guard() as db:
            if db:
                blob = marshal.dumps(value)
                db.execute("BEGIN")
                db.execute(
                    "INSERT OR REPLACE INTO results VALUES (?, ?, ?)", (key, blob, time.time())
                )
                db.execute(
                    "DELETE FROM results WHERE key NOT IN "
                    "(SELECT key FROM results ORDER BY used DESC LIMIT ?)",
                    (_KEEP_RESULTS,),
                )
                db.execute("COMMIT")
