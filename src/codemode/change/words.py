"""The identifiers a module's text holds (a set, for the question "may this module use that
name?"), and the forked helper that holds them for many modules at once.
"""

from __future__ import annotations

import marshal
import os
import select
import struct
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

from codemode.change import git
from codemode.change.cache import AnalysisCache

# Everything that is not part of an identifier becomes a space, so split() yields identifiers.
_NON_WORD = bytes(
    c if (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 95 or c > 127) else 32
    for c in range(256)
)


def identifiers(data: bytes) -> frozenset[bytes]:
    return frozenset(data.translate(_NON_WORD).split())


class Words:
    """A module's identifiers: a set, or the space-separated text the cache keeps, which
    answers a few membership questions (a pre-commit hook's) faster than building the set."""

    __slots__ = ("_set", "_text")

    def __init__(self, items: frozenset[bytes] | None = None, text: bytes | None = None) -> None:
        self._set, self._text = items, text

    def as_set(self) -> frozenset[bytes]:
        if self._set is None:
            self._set = frozenset((self._text or b"").split())
        return self._set

    def text(self) -> bytes:
        if self._text is None:
            self._text = b" " + b" ".join(self.as_set()) + b" "
        return self._text

    def present(self, names: set[bytes]) -> set[bytes]:
        if self._set is None and len(names) <= 24:
            text = self.text()
            return {n for n in names if b" " + n + b" " in text}
        return set(self.as_set() & names)


class WordsHelper:
    """A forked child holding the identifiers of some modules; it answers which of them
    write which names. Messages are length-prefixed ``marshal`` data over two pipes."""

    def __init__(self, pid: int, to_child: int, from_child: int) -> None:
        self.pid, self.to_child, self.from_child = pid, to_child, from_child

    @classmethod
    def start(
        cls, repo: Path, entries: list[git.Entry], git_dir: Path | None
    ) -> WordsHelper | None:
        forked = fork_server(lambda rd, wr: _serve_words(repo, entries, git_dir, rd, wr))
        return cls(*forked) if forked is not None else None

    def query(self, names: set[bytes]) -> dict[int, set[bytes]]:
        send_frame(self.to_child, marshal.dumps(sorted(names)))
        reply = receive_frame(self.from_child)
        if reply is None:
            raise EOFError("the identifiers helper ended")
        return {i: set(found) for i, found in marshal.loads(reply)}

    def close(self) -> None:
        close_fds(self.to_child, self.from_child)
        # it exits on end of input; reaped in the background (a big process takes a while
        # to tear down, and nothing here waits for its answer any more)
        threading.Thread(target=reap, args=(self.pid,), daemon=True).start()


def close_fds(*fds: int) -> None:
    """Close each descriptor; one already closed is no error (a helper's end of input)."""
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def fork_server(
    serve: Callable[[int, int], None], inherited: Sequence[int] = ()
) -> tuple[int, int, int] | None:
    """A forked child running ``serve(read_fd, write_fd)`` on two pipes of its own, and
    exiting when it returns: (pid, its request pipe, its reply pipe), or None where a fork
    is unsafe (macOS) or fails. ``inherited``: descriptors (another helper's) the child
    closes, so that it holds none of them."""
    if not hasattr(os, "fork") or sys.platform == "darwin":  # macOS: fork is unsafe
        return None
    down, up = os.pipe(), os.pipe()
    try:
        with warnings.catch_warnings():  # 3.12+: "multi-threaded, use of fork()"
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        for fd in (*down, *up):
            os.close(fd)
        return None
    if pid == 0:  # the child: never returns into the caller's code
        code = 1
        try:
            for fd in (down[1], up[0], *inherited):
                os.close(fd)
            serve(down[0], up[1])
            code = 0
        finally:
            os._exit(code)
    os.close(down[0])
    os.close(up[1])
    return pid, down[1], up[0]


def reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def send_frame(fd: int, data: bytes) -> None:
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exactly(fd: int, n: int) -> bytes | None:
    parts, left = [], n
    while left:
        part = os.read(fd, min(left, 1 << 20))
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def receive_frame(fd: int) -> bytes | None:
    head = _read_exactly(fd, 8)
    return None if head is None else _read_exactly(fd, struct.unpack("<Q", head)[0])


def _serve_words(
    repo: Path, entries: list[git.Entry], git_dir: Path | None, requests: int, replies: int
) -> None:
    """The helper's side: read and tokenize ``entries``, store their identifiers in the
    cache, then answer requests (sorted names) with ``[(index, [names it writes])]``."""
    where: dict[git.Entry, list[int]] = {}
    for i, entry in enumerate(entries):
        where.setdefault(entry, []).append(i)
    words: list[frozenset[bytes] | None] = [None] * len(entries)
    fresh: list[tuple[str, bytes]] = []
    for entry, data in git.read_entries(repo, list(where)):
        found = identifiers(data)
        for i in where[entry]:
            words[i] = found
        if entry.sha:
            fresh.append((entry.sha, Words(found).text()))
    if git_dir is not None and fresh:
        AnalysisCache(git_dir).put_words(fresh)  # its own connection: none crosses a fork
    # Until the first request comes (the caller is still parsing), build an index from
    # identifier to modules, so that an answer is a lookup per name rather than a set
    # intersection per module. A request that comes first stops the building: answered from
    # the sets, it waits no longer than it would have without the index.
    building: dict[bytes, list[int]] = {}
    index: dict[bytes, list[int]] | None = building
    for i, module_words in enumerate(words):
        if i % 128 == 0 and select.select([requests], [], [], 0)[0]:
            index = None
            break
        for word in module_words or ():
            building.setdefault(word, []).append(i)
    while (request := receive_frame(requests)) is not None:
        names = sorted(set(marshal.loads(request)))
        if index is not None:
            hits: dict[int, list[bytes]] = {}
            for name in names:
                for i in index.get(name, ()):
                    hits.setdefault(i, []).append(name)
            found_in = sorted(hits.items())
        else:
            wanted = frozenset(names)
            found_in = [
                (i, sorted(w & wanted))
                for i, w in enumerate(words)
                if w and not w.isdisjoint(wanted)
            ]
        send_frame(replies, marshal.dumps(found_in))
