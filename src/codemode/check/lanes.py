"""``--jobs N``: function blocks verified in N lanes at once, each with a worker of its own (#20).

A lane is a fork of this process: it inherits the loaded configuration (and, in a change
scope, the spec files already parsed), loads the spec files it was given, verifies them in
its own worker and sends its results back through a pipe, one piece per unit; the parent
puts the pieces back in the serial order, so the report is the one ``--jobs 1`` gives.

The work is split by spec file, not by function: a file's functions are mostly one module's,
so each module is imported in one worker. A file larger than a lane's share is split into
contiguous parts (by case count, decided in each lane from the same parse), unless it has a
``scope: file`` fixture, whose value its blocks share: such a file stays whole. Files go to
lanes largest first, each to the least loaded lane. Memory stays bounded by N: a lane holds
one spec file and its results at a time.

Where it does not apply: a run given a worker by its caller, a process with threads running
(a fork would copy their locks), a platform without ``os.fork``, and, unless ``--jobs`` names
a number, work too small to pay for a second interpreter (``LANE_BYTES``): those run
serially, with the same report.

A lane sends each piece as a length-prefixed pickle, then an end mark: the parent takes each
piece as it arrives (``regen --jobs`` shows its progress meanwhile: explore/writing/
regen_lanes.py, whose groups are never split), and a lane killed between two pieces is
known by its missing end mark, not taken for one that had nothing more to send.
"""

from __future__ import annotations

import os
import selectors
import signal
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from codemode.errors import FatalError
from codemode.shard import in_shard

if TYPE_CHECKING:
    from codemode.check.verify import VerifyResult
    from codemode.specs.types import SpecFile

# A lane costs an interpreter start (~40 ms of CPU) and a fork; it pays from about 200 cases,
# ~16 KB of spec text at the ~80 bytes a flow-style case takes. Smaller work runs serially.
LANE_BYTES = 16_384
CASE_BYTES = 80  # a case's weight, where cases are counted rather than files measured


class Unit(NamedTuple):
    """Part ``part`` of ``parts`` of the function blocks of spec file ``spec`` (its index in
    the serial order)."""

    spec: int
    part: int = 0
    parts: int = 1


def available_cores() -> int:
    """The cores this process may run on (a container's or taskset's limit, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def lane_count(jobs: int, total_weight: int) -> int:
    """How many lanes to start: ``jobs`` when the user chose a number; by default (0) the
    available cores, fewer for work too small to pay for them, never fewer than one."""
    if jobs:
        return jobs
    return max(1, min(available_cores(), total_weight // LANE_BYTES))


def plan(weights: Sequence[int], lanes: int, split: bool = True) -> list[list[Unit]]:
    """The units of each lane. A file heavier than a lane's share is split into as many parts
    as it holds shares (at most ``lanes``; never without ``split``); units go largest first to
    the least loaded lane."""
    total = sum(weights) or 1
    share = total / lanes
    units: list[tuple[float, Unit]] = []
    for i, w in enumerate(weights):
        parts = min(lanes, max(1, round(w / share))) if split and w > share else 1
        units += [(w / parts, Unit(i, k, parts)) for k in range(parts)]
    units.sort(key=lambda u: (-u[0], u[1]))
    loads = [0.0] * lanes
    out: list[list[Unit]] = [[] for _ in range(lanes)]
    for weight, unit in units:
        lane = min(range(lanes), key=lambda n: (loads[n], n))
        loads[lane] += weight
        out[lane].append(unit)
    return [sorted(units) for units in out if units]


# A queue's units are this much finer than a lane's share: a lane that drew cheap functions
# (no assertion to feed, no fixture) takes more of them instead of waiting for the other.
PARTS_PER_LANE = 4
# Unit numbers go into one pipe before the lanes fork; what a pipe holds unread (64 KB on
# Linux, 16 KB elsewhere) bounds how many: past it, each lane takes every N-th unit.
QUEUE_MAX = 4096


def queue(weights: Sequence[int], lanes: int) -> list[Unit]:
    """The units for lanes that each take the next one when free, largest first: a file
    heavier than a ``PARTS_PER_LANE``-th of a lane's share is split into as many parts."""
    total = sum(weights) or 1
    share = total / (lanes * PARTS_PER_LANE)
    units: list[tuple[float, Unit]] = []
    for i, w in enumerate(weights):
        parts = min(lanes * PARTS_PER_LANE, max(1, round(w / share))) if w > share else 1
        units += [(w / parts, Unit(i, k, parts)) for k in range(parts)]
    units.sort(key=lambda u: (-u[0], u[1]))
    return [u for _, u in units]


def part_of(
    spec: SpecFile, unit: Unit, only: set[str] | None, shard: tuple[int, int] | None
) -> SpecFile:
    """The spec file with only the function blocks of ``unit``: contiguous, balanced by the
    cases of the blocks that will run; its problems go with part 0 only."""
    if unit.parts == 1:
        return spec
    if any(f.scope == "file" for f in spec.fixtures.values()):  # shared by all its blocks
        return spec if unit.part == 0 else _empty(spec)
    runs = [(only is None or f.id in only) and in_shard(f.id, shard) for f in spec.functions]
    weights = [max(1, len(f.cases)) if run else 0 for f, run in zip(spec.functions, runs)]
    total = sum(weights) or 1
    lo, hi = total * unit.part / unit.parts, total * (unit.part + 1) / unit.parts
    chosen, at = [], 0
    for f, w in zip(spec.functions, weights):
        if w and lo <= at < hi:
            chosen.append(f)
        at += w
    from codemode.records import replace

    problems = spec.problems if unit.part == 0 else ()
    return replace(spec, functions=tuple(chosen), problems=problems)


def _empty(spec: SpecFile) -> SpecFile:
    from codemode.records import replace

    return replace(spec, functions=(), problems=())


def can_fork() -> bool:
    """A fork copies only the calling thread: with another thread running (holding a lock,
    mid-write) the copy could hang, so then the run stays serial. The threads are counted by
    the OS where it says: one started with ``_thread`` (pytest-xdist's execnet starts one) or
    by a C extension is no ``threading`` thread, and a lane forked beside it hung (#20)."""
    if not hasattr(os, "fork"):
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:  # not Linux
        pass
    import sys

    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


T = TypeVar("T")


class LaneLost(RuntimeError):
    """A lane ended without sending all it had (killed, out of memory); ``pieces``: what the
    lanes did send, for a caller that can name what is missing rather than fail."""

    def __init__(self, message: str, pieces: list[tuple[Any, Any]]) -> None:
        super().__init__(message)
        self.pieces = pieces


# A piece is (key, value): the key puts it in its serial place (a Unit, a function's index).
Send = Callable[[tuple[Any, T]], None]
Work = Callable[[Iterable[Unit], Send[T]], None]  # a lane's units: a list, or drawn


def run_lanes(
    lanes: Sequence[Iterable[Unit]],
    work: Work[T],
    on_piece: Callable[[tuple[Any, T]], None] | None = None,
) -> list[tuple[Any, T]]:
    """Each lane's ``work(units, send)`` in a forked process; every piece it sent, sorted by
    key. ``on_piece`` sees each piece as it arrives (a regen shows its progress meanwhile)."""
    import pickle  # noqa: F401  (before the forks: each lane sends with it, this reads with it)

    from codemode.worker.pool import adopt_orphans

    adopt_orphans()  # a lane killed mid-run leaves its worker to us, not to init
    started: list[tuple[int, int]] = []
    try:
        for units in lanes:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the lane: never returns into the caller's code
                os.close(read)
                _lane(write, units, work)
            os.close(write)
            started.append((pid, read))
        pieces = _collect(started, on_piece)
    finally:
        for pid, read in started:
            _end(pid, read)  # after _collect each lane is leaving; else it is killed
    return sorted(pieces, key=lambda p: p[0])


def run_queue(units: list[Unit], count: int, work: Work[T]) -> list[tuple[Any, T]]:
    """``count`` lanes that take ``units`` one at a time, in order, each the next one when it
    is free (a lane's ``work`` gets an iterator); every piece, sorted by key. Past
    ``QUEUE_MAX`` units, lane n takes units n, n + count, ... instead."""
    if len(units) > QUEUE_MAX:
        return run_lanes([units[n::count] for n in range(count)], work)
    read, write = os.pipe()
    try:
        # All unit numbers are in the pipe before the first fork, and its write end is closed
        # in every lane: a lane that finds it empty is done. Each number is one 4-byte read,
        # whole: the pipe holds only whole numbers and no lane reads more than one at a time.
        os.write(write, b"".join(n.to_bytes(4, "little") for n in range(len(units))))
        os.close(write)
        write = -1
        return run_lanes([_Drawn(read, units)] * count, work)
    finally:
        if write >= 0:
            os.close(write)
        os.close(read)


class _Drawn:
    """A lane's units, taken from the shared pipe one at a time as it asks for the next."""

    def __init__(self, fd: int, units: list[Unit]) -> None:
        self.fd, self.units = fd, units

    def __iter__(self) -> Iterator[Unit]:
        while True:
            data = os.read(self.fd, 4)
            if not data:
                return
            while len(data) < 4:  # never, on the systems codemode runs on; a short read is not
                more = os.read(self.fd, 4 - len(data))  # a number, so it is completed
                if not more:  # the parent writes whole numbers: a torn one is nobody's unit
                    return
                data += more
            yield self.units[int.from_bytes(data, "little")]


def _lane(fd: int, units: Iterable[Unit], work: Work[T]) -> None:
    import pickle

    code = 0
    try:
        with os.fdopen(fd, "wb") as out:

            def frame(kind: str, value: object) -> None:
                # Length-prefixed, so the parent decodes each piece as soon as it is whole.
                blob = pickle.dumps((kind, value), pickle.HIGHEST_PROTOCOL)
                out.write(len(blob).to_bytes(8, "little") + blob)
                out.flush()

            try:
                work(units, lambda piece: frame("piece", piece))
                frame("end", None)  # a lane killed between two pieces sends no end
            except FatalError as exc:
                frame("fatal", str(exc))
            except BaseException:  # the parent re-raises it with this traceback
                import traceback

                frame("crash", traceback.format_exc())
    except BaseException:
        code = 3
    finally:
        os._exit(code)


def _collect(
    started: list[tuple[int, int]], on_piece: Callable[[tuple[Any, T]], None] | None
) -> list[tuple[Any, T]]:
    """Read every lane's pipe to its end (all at once: a lane blocks on a full pipe),
    decoding each piece as soon as it is whole."""
    pipes = Collector(started, on_piece)
    while pipes.open:
        pipes.pump(None)
    return pipes.finished()


class Collector(Generic[T]):
    """The lanes' pipes, read as their pieces arrive: ``pump`` reads what is there (waiting up
    to ``timeout`` for something; None: until something), ``finished`` checks that every lane
    sent its end mark once all pipes are closed."""

    def __init__(
        self,
        started: list[tuple[int, int]],
        on_piece: Callable[[tuple[Any, T]], None] | None = None,
    ) -> None:
        self.data = {read: bytearray() for _, read in started}
        self.lane = {read: (n, pid) for n, (pid, read) in enumerate(started)}
        self.on_piece = on_piece
        self.ended: set[int] = set()
        self.pieces: list[tuple[Any, T]] = []
        self.sel = selectors.DefaultSelector()
        for read in self.data:
            self.sel.register(read, selectors.EVENT_READ)
        self.open = len(self.data)

    def pump(self, timeout: float | None) -> None:
        for key, _ in self.sel.select(timeout) if self.open else ():
            chunk = os.read(key.fd, 1 << 20)
            if not chunk:
                self.sel.unregister(key.fd)
                self.open -= 1
                continue
            self.data[key.fd] += chunk
            for kind, value in _frames(self.data[key.fd], self.lane[key.fd][0]):
                if kind == "end":
                    self.ended.add(key.fd)
                else:
                    self.pieces.append(value)
                    if self.on_piece is not None:
                        self.on_piece(value)

    def finished(self) -> list[tuple[Any, T]]:
        self.sel.close()
        for read, (n, pid) in self.lane.items():
            if read not in self.ended:  # killed, out of memory: what it sent is not all it had
                raise LaneLost(
                    f"lane {n + 1} of the --jobs run (pid {pid}) ended without its results",
                    self.pieces,
                )
        return self.pieces


def _frames(buf: bytearray, n: int) -> Iterator[tuple[str, Any]]:
    """The whole frames at the head of ``buf``, taken out of it; a lane's error is raised."""
    import pickle  # only when lanes ran: a hook's one-worker check does not pay for it

    while len(buf) >= 8:
        size = int.from_bytes(buf[:8], "little")
        if len(buf) < 8 + size:
            return
        kind, value = pickle.loads(bytes(buf[8 : 8 + size]))
        del buf[: 8 + size]
        if kind == "fatal":
            raise FatalError(value)
        if kind == "crash":
            raise RuntimeError(f"lane {n + 1} of the --jobs run failed:\n{value}")
        yield kind, value


def _end(pid: int, read: int) -> None:
    """Reap a lane. One whose pipe is still open was interrupted (an error in another lane,
    Ctrl-C): it is killed, and its worker, orphaned to this process, dies at its exit."""
    import contextlib

    with contextlib.suppress(ChildProcessError):
        if os.waitpid(pid, os.WNOHANG)[0] == 0 and _still_writing(read):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    with contextlib.suppress(OSError):
        os.close(read)


def _still_writing(read: int) -> bool:
    """Whether the lane still holds its end of the pipe (a lane that sent all is exiting)."""
    with selectors.DefaultSelector() as sel:
        sel.register(read, selectors.EVENT_READ)
        if not sel.select(0):
            return True
    try:
        return bool(os.read(read, 1 << 16))
    except OSError:
        return False


def with_lost(
    lost: LaneLost,
    plan: list[list[Unit]],
    load: Callable[[int], SpecFile],
    only: set[str] | None,
    shard: tuple[int, int] | None,
) -> list[tuple[Any, VerifyResult]]:
    """The pieces the lanes sent, and for each unit a lane never sent, its functions as
    errors that say why: a lane killed (by the code under test, by the OOM killer) hides
    nothing and ends nothing else. A unit is sent whole, so one not sent is all missing."""
    from codemode.check.verify import VerifyResult
    from codemode.report.model import FunctionResult

    sent = {unit for unit, _ in lost.pieces}
    pieces = list(lost.pieces)
    why = f"not verified: {lost} (killed? out of memory?)"
    for unit in (u for units in plan for u in units if u not in sent):
        spec = part_of(load(unit.spec), unit, only, shard)
        ran = [
            f for f in spec.functions if (only is None or f.id in only) and in_shard(f.id, shard)
        ]
        result = VerifyResult()
        result.functions = [
            FunctionResult(f.id, "error", spec.rel, f.line, message=why) for f in ran
        ]
        pieces.append((unit, result))
    return sorted(pieces, key=lambda p: p[0])


def merge(pieces: Sequence[tuple[Any, VerifyResult]]) -> VerifyResult:
    """The pieces, already in unit order, as the one result a serial run gives."""
    from codemode.check.verify import VerifyResult

    out = VerifyResult()
    for _, part in pieces:
        out.functions += part.functions
        out.problems += part.problems
        for fid, lines in part.lines.items():
            out.lines.setdefault(fid, set()).update(lines)
    return out
