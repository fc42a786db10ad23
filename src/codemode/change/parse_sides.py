"""Parsing the two sides of the changed files where the hunks touch them (``load_jobs``),
and the base side of many files in a forked child while this process parses the head side:
the two halves of a big diff's parsing on two cores (``OldSides``).

The child is forked before this process starts any thread (as the identifiers helper is),
waits for one request (each file's path, module, blob id and the lines its hunks touch),
reads those blobs through its own ``git cat-file``, parses them exactly as this process
would (the caller passes its own loading function), and answers with each file as plain
data (``SourceFile.to_parts``), or the problem line, in ``marshal`` format. Any failure
(no answer, a broken pipe, a child that died) returns None, and the caller parses the base
side itself: the result never depends on whether the helper ran.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from codemode.change import git
from codemode.change.chunks import SourceError
from codemode.change.functions import SourceFile
from codemode.change.words import close_fds, fork_server, reap, receive_frame, send_frame

# (path, module, blob id, touched lines or None for the whole file) of one base side
Request = tuple[str, str, str, list[int] | None]
Loader = Callable[[str, str, bytes | None, "set[int] | None"], "SourceFile | str | None"]
Loaded = tuple[SourceFile | str | None, SourceFile | str | None]  # str: a problem


class Job(NamedTuple):
    """One changed file: (path, module, blob id or None for the work tree) per side, and the
    lines the hunks touch per side (None: parse the whole side)."""

    old: tuple[str, str, str | None] | None
    new: tuple[str, str, str | None] | None
    old_lines: set[int] | None
    new_lines: set[int] | None


def load(
    path: str, module: str, data: bytes | None, lines: set[int] | None
) -> SourceFile | str | None:
    """One side of one file, its chunks parsed where ``lines`` fall (None: all of them);
    a str is the problem that keeps it from being read."""
    if data is None:
        return None  # e.g. deleted from the work tree
    try:
        src = SourceFile.from_bytes(path, module, data)
        if lines is None:
            src.parse_all()
        else:
            src.parse_lines(lines)
            # the other parts of an overload set or property live in chunks of their own
            src.ensure({c.name for c in src.chunks if c.info is not None and c.name})
    except SourceError as exc:
        return str(exc)
    return src


def load_jobs(
    jobs: list[Job],
    new_data: Mapping[str, bytes],
    blobs: Callable[[], Mapping[str, bytes]],
    helper: OldSides | None = None,
) -> list[Loaded]:
    """Both sides of each job: the head side from ``new_data`` (by path), then the old side
    from ``helper``'s answer (it parsed them meanwhile), else from ``blobs`` (by blob id)."""
    news = [
        load(j.new[0], j.new[1], new_data.get(j.new[0]), j.new_lines) if j.new else None
        for j in jobs
    ]
    asked = [j for j in jobs if j.old and j.old[2]]
    parsed = dict(zip(map(id, asked), helper.answer() or () if helper is not None else ()))
    if len(parsed) != len(asked):  # no helper, or it failed: parse them here
        data = blobs()
        parsed = {
            id(j): load(j.old[0], j.old[1], data.get(j.old[2] or ""), j.old_lines)
            for j in asked
            if j.old
        }
    return [(parsed.get(id(j)), new) for j, new in zip(jobs, news)]


def read_blobs(repo: Path, shas: list[str]) -> dict[str, bytes]:
    return dict(git.cat_blobs(repo, shas))


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


class OldSides:
    """A forked child that parses the base side of the files one request names."""

    def __init__(self, pid: int, to_child: int, from_child: int) -> None:
        self.pid, self.to_child, self.from_child = pid, to_child, from_child
        self.asked = False

    @classmethod
    def start(cls, repo: Path, load: Loader, inherited: Sequence[int] = ()) -> OldSides | None:
        """None where it cannot pay (one core) or cannot run (no safe fork). ``inherited``:
        descriptors of other helpers, closed in the child so that it holds none of them."""
        if _cores() < 2:
            return None
        forked = fork_server(lambda rd, wr: _serve(repo, load, rd, wr), inherited)
        return cls(*forked) if forked is not None else None

    def ask(self, files: list[Request]) -> bool:
        try:
            send_frame(self.to_child, marshal.dumps(files))
        except OSError:
            return False
        self.asked = True
        return True

    def answer(self) -> list[SourceFile | str | None] | None:
        """Each requested file as the loader gave it; None if the child could not answer."""
        if not self.asked:
            return None
        try:
            reply = receive_frame(self.from_child)
            if reply is None:
                return None
            found: list[Any] = marshal.loads(reply)
            return [SourceFile.from_parts(x) if isinstance(x, tuple) else x for x in found]
        except (OSError, EOFError, ValueError, TypeError):
            return None

    def close(self) -> None:
        close_fds(self.to_child, self.from_child)
        _reap_later(self.pid)


def _reap_later(pid: int) -> None:
    import threading

    threading.Thread(target=reap, args=(pid,), daemon=True).start()


def _serve(repo: Path, load: Loader, requests: int, replies: int) -> None:
    request = receive_frame(requests)
    if request is None:
        return  # nothing to parse: the caller needed no base side
    files: list[Request] = marshal.loads(request)
    blobs = dict(git.cat_blobs(repo, [sha for _, _, sha, _ in files]))
    out: list[Any] = []
    for path, module, sha, lines in files:
        src = load(path, module, blobs.get(sha), None if lines is None else set(lines))
        out.append(src.to_parts() if isinstance(src, SourceFile) else src)
    send_frame(replies, marshal.dumps(out))
