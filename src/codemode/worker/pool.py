"""The parent side of the worker: start it, talk to it, bound it, replace it.

One ``Worker`` owns one subprocess, reused across many calls. Each reply has its own deadline
(the per-call timeout); a case that hangs or kills the process is an ``error`` outcome, the
process is killed and respawned, and the rest sent again: one bad case never hides the rest.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, NamedTuple, Protocol

from codemode.effects import Effects
from codemode.errors import FatalError
from codemode.worker import canonical, own_bytecode, replies, scratch
from codemode.worker.environment import scrub_env
from codemode.worker.errtail import ErrTail
from codemode.worker.exits import wait_exit
from codemode.worker.orphans import adopt_orphans as adopt_orphans  # check.lanes uses it
from codemode.worker.outcome import Outcome as Outcome
from codemode.worker.outcome import TypeMismatch as TypeMismatch
from codemode.worker.pipe_room import request_room
from codemode.worker.reply_lines import ReplyLines, WorkerDied
from codemode.worker.reply_lines import ReplyTooBig as ReplyTooBig

# The worker's entry script, run by path in the project's interpreter (not imported here).
RUNTIME_SCRIPT = Path(__file__).resolve().with_name("runtime.py")


class Process(Protocol):
    """What a Worker needs of its process: a ``subprocess.Popen``, or a worker the warm
    worker forked for this run (``warm_client.Remote``)."""

    pid: int
    stdin: IO[bytes] | None
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


# Replies over _LARGE_REPLY bytes count against MAX_LARGE_TOTAL for the worker's lifetime.
_LARGE_REPLY = 64 * 1024
MAX_LARGE_TOTAL = 32_000_000


class Block(NamedTuple):
    """One function block's request: ``Worker.run``'s arguments."""

    target: str
    cases: list[dict[str, Any]]
    fixtures: list[dict[str, Any]]
    fixture_names: list[str]
    serializer: dict[str, Any] | None = None
    file_key: str = ""
    isolate: bool = True
    effects: dict[str, Any] | None = None  # the function's allowances beyond the project's (#31)
    # the type checks of every case that names none of its own (its function's ``evals:``):
    # sent once, not once in each of a block's cases (#36)
    types: list[dict[str, Any]] | None = None

    def _message(self, cases: list[dict[str, Any]], batched: bool) -> dict[str, Any]:
        return {
            "op": "run",
            "target": self.target,
            "cases": cases,
            "fixtures": self.fixtures,
            "fixture_names": self.fixture_names,
            "serializer": self.serializer,
            "file_key": self.file_key,
            "isolate": self.isolate,
            "batch": batched,
            **({"effects": self.effects} if self.effects else {}),
            **({"types": self.types} if self.types else {}),
        }


def _no_more(size: int) -> None:
    """No request to send ahead."""


_END: Any = Block("", [], [], [])  # run_blocks: its blocks are all drawn


class Worker:
    def __init__(
        self,
        python: str,
        root: Path,
        source_roots: tuple[str, ...] = ("src",),
        timeout: float = 10.0,
        memory_mb: int = 2048,
        env: Mapping[str, str] | None = None,
        pass_env: tuple[str, ...] = (),
        allow_callables: tuple[str, ...] = (),
        bytecode: Path | None = None,
        effects: Effects | None = None,
    ) -> None:
        self.python = python
        self.effects = effects or Effects()  # what its calls may do beyond reading (#31)
        self.scratch: Path | None = None  # this process's scratch folder (scratch.py)
        self.wall = ""  # which layers of the wall hold in the process (its hello)
        self.bytecode = bytecode  # the private folder of the project's bytecode (bytecode.py)
        self.root = root
        self.source_roots = tuple(r for r in source_roots if r not in (".", ""))
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.env = scrub_env(os.environ if env is None else env, pass_env)
        self.allow_callables = tuple(allow_callables)
        self.received = 0  # bytes of large replies kept so far (see _recv)
        self.proc: Process | None = None
        self.reader: ReplyLines | None = None
        self.stderr: ErrTail | None = None
        self.ready = False
        # The worker forks a child per function block; one that cannot (no os.fork) is
        # replaced by a fresh process before each block instead, so that no block sees
        # module state another left behind (#12).
        self.forks = True
        self.blocks = 0
        self.room = 0  # bytes of requests that may wait unread in its pipe (request_room)

    # --- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        self.spawn()
        self.handshake()

    def arguments(self) -> list[str]:
        """The worker's arguments (runtime._Args), after the script's path."""
        cmd = ["--root", str(self.root)]
        for r in self.source_roots:
            cmd += ["--path", r]
        for m in self.allow_callables:
            cmd += ["--allow", m]
        if self.memory_mb:
            cmd += ["--memory-mb", str(self.memory_mb)]
        if self.bytecode is not None:
            cmd += ["--bytecode", str(self.bytecode)]
        if self.scratch is None:
            self.scratch = scratch.worker_folder()
        return cmd + scratch.wall_arguments(self.scratch, self.effects)

    def spawn(self) -> None:
        """Start the process without waiting for it: its startup overlaps the caller's work."""
        adopt_orphans()
        own_bytecode.compile_worker_modules(self.python)  # what the worker cannot write itself
        try:
            proc = subprocess.Popen(
                [self.python, str(RUNTIME_SCRIPT), *self.arguments()],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.env,
                cwd=self.root,
                start_new_session=True,  # so a kill reaches the function's own children too
            )
        except OSError as exc:
            raise FatalError(
                f"cannot start the project's Python {self.python!r}: {exc.strerror}; "
                "set it with --python or `python = ...` under [tool.codemode]"
            ) from exc
        self.attach(proc)

    def attach(self, proc: Process) -> None:
        """Take ``proc`` (a worker just started, on pipes) as this worker's process."""
        self.proc = proc
        assert self.proc.stdin and self.proc.stdout is not None and self.proc.stderr is not None
        self.reader = ReplyLines(self.proc.stdout.fileno())
        # The tail's thread owns a copy of the pipe: never reads a number reused by another file
        self.stderr = ErrTail(os.dup(self.proc.stderr.fileno()))
        self.proc.stderr.close()
        self.ready = False
        self.blocks = 0
        self.room = request_room(self.proc.stdin.fileno())
        with contextlib.suppress(WorkerDied):
            self._send({"op": "hello"})

    def handshake(self) -> None:
        try:
            hello = self._recv(timeout=max(self.timeout, 30.0))
        except WorkerDied:
            hello = None
        if hello is None or not hello.get("ok"):
            detail = self.stderr_tail() or "no reply"
            self.kill()
            raise FatalError(
                f"the project's Python {self.python!r} could not start the codemode worker: "
                f"{detail}"
            )
        self.ready = True
        self.forks = bool(hello.get("fork"))
        self.wall = scratch.seen(str(hello.get("wall", "")))

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ensure(self) -> None:
        if not self.alive():
            self.kill()
            self.start()
        elif not self.ready:
            self.handshake()

    def kill(self) -> None:
        if self.proc is not None:
            if isinstance(self.proc, subprocess.Popen):
                # The whole group, even when the worker itself has exited: a process the function
                # started (or forked) is still in it, and must not outlive codemode (#11). The
                # group id stays reserved while any member lives, so this reaches no stranger.
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
            else:  # forked by the warm worker, which kills its group and reaps it
                self.proc.kill()
            with contextlib.suppress(Exception):
                self.proc.wait(timeout=5)
            for stream in (self.proc.stdin, self.proc.stdout):
                with contextlib.suppress(Exception):
                    if stream:
                        stream.close()
        if self.reader is not None:
            self.reader.close()
        self.proc = None
        self.reader = None
        if self.scratch is not None:  # the next process starts from a fresh folder
            scratch.remove(self.scratch)
            self.scratch = None

    def close(self) -> None:
        if self.alive():
            assert self.proc is not None and self.proc.stdin is not None
            with contextlib.suppress(OSError):
                self.proc.stdin.write(b'{"op":"exit"}\n')
                self.proc.stdin.flush()
            wait_exit(self.proc, 2.0)
        self.kill()
        self.stderr = None

    def __enter__(self) -> Worker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def stderr_tail(self, limit: int = 600) -> str:
        if self.stderr is None:
            return ""
        settle = 0.5 if self.proc is not None and self.proc.poll() is not None else 0.0
        text = self.stderr.tail(limit, settle)
        lines = [ln for ln in text.strip().splitlines() if ln.strip()]
        return lines[-1].strip() if lines else ""

    def death_reason(self) -> str:
        code = self.proc.poll() if self.proc else None
        if code is None and self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.proc.wait(timeout=1)
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            why = f"the worker process was killed by {name}"
            if name in ("SIGSEGV", "SIGBUS", "SIGILL", "SIGABRT", "SIGFPE"):
                why += " (a crash in native code: ctypes or a C extension); it was restarted"
        elif code is not None:
            why = (
                f"the worker process exited with code {code} (the function ended the process, "
                "e.g. os._exit); it was restarted"
            )
        else:
            why = "the worker process stopped answering"
        tail = self.stderr_tail()
        return f"{why}{': ' + tail if tail else ''}"

    # --- protocol ----------------------------------------------------------------------

    def _send(self, msg: dict[str, Any]) -> None:
        self._write((canonical.dumps(msg) + "\n").encode("utf-8"))

    def _write(self, data: bytes) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerDied() from exc

    def _recv(self, timeout: float | None) -> dict[str, Any] | None:
        assert self.reader is not None
        line = self.reader.readline(timeout)
        if line is None:
            return None
        try:
            reply = replies.check_decoded(line.decode("utf-8", "replace"), canonical.loads)
        except replies.BadReply as exc:  # not the worker's own writing
            return {"bad": str(exc)}
        if not isinstance(reply, dict):
            return {"bad": "unreadable reply from the worker: not a mapping"}
        if len(line) > _LARGE_REPLY and "case" in reply:
            # Each case may return up to 2 MB, but not every case: past MAX_LARGE_TOTAL the
            # large outputs of a run are errors, so 160 cases of 2 MB cannot make a 320 MB
            # report either (#11).
            self.received += len(line)
            if self.received > MAX_LARGE_TOTAL:
                return {
                    "case": reply["case"],
                    "outcome": "error",
                    "message": f"the output is {len(line) / 1e6:.1f} MB as data, and this run's "
                    f"large outputs already passed {MAX_LARGE_TOTAL / 1e6:g} MB; check a summary "
                    "of it (its length, a few items) with an assertion, or return less",
                }
        return reply

    def _request(self, msg: dict[str, Any], timeout: float | None) -> dict[str, Any] | None:
        try:
            self._send(msg)
            return self._recv(timeout)
        except WorkerDied:
            return None

    def end_file(self, key: str) -> list[str]:
        if not self.alive():
            return []
        reply = self._request({"op": "end_file", "key": key}, timeout=self.timeout)
        return list(reply.get("errors", [])) if reply else []

    def stream(self, msg: dict[str, object], timeout: float) -> Iterator[dict[str, object]]:
        """Send one request and yield its replies up to ``{"done": true}``; on a fatal reply,
        a timeout (the worker is killed) or the worker's death, stop after saying why."""
        self.ensure()
        try:
            self._send(msg)
            while True:
                reply = self._recv(timeout)
                if reply is None:
                    self.kill()
                    yield {"fatal": "timeout", "message": f"no reply within {timeout:g} s"}
                    return
                if "bad" in reply:
                    self.kill()
                    yield {"fatal": "protocol", "message": reply["bad"]}
                    return
                if reply.get("done"):
                    return
                yield reply
                if "fatal" in reply:
                    return
        except WorkerDied:
            reason = self.death_reason()
            self.kill()
            yield {"fatal": "died", "message": reason}

    def run(
        self,
        target: str,
        cases: list[dict[str, Any]],
        *,
        fixtures: list[dict[str, Any]] | None = None,
        fixture_names: list[str] | None = None,
        serializer: dict[str, Any] | None = None,
        file_key: str = "",
        isolate: bool = True,
    ) -> Iterator[Outcome]:
        """Run ``cases`` of ``target``; yields one Outcome per case, in order, whatever happens.

        ``isolate=False``: in the worker itself, not a forked child; for a worker that serves
        one function only (the explorer's calls: a fork each would cost ~5 ms per call)."""
        block = Block(target, cases, fixtures or [], fixture_names or [], serializer, file_key)
        yield from self._block(block._replace(isolate=isolate), None, _no_more)

    def allowed(self, block: Block) -> Block:
        """``block`` with its function's allowances, where the project gives it some."""
        extra = self.effects.for_function(block.target) if self.effects.functions else None
        return block._replace(effects=extra.as_request()) if extra else block

    def run_blocks(self, blocks: Iterable[Block | None]) -> Generator[list[Outcome], None, None]:
        """Each block's outcomes in order, as ``run`` gives them; a block's request goes to the
        worker before the replies of the one before it are read, so the worker (and its child)
        run it while the caller judges those: on two cores, lanes waited for their worker and
        workers for their lane, one block at a time (#20). A request goes ahead only when both
        fit in the pipe unread (``request_room``): the worker may be writing replies nobody
        reads yet, and a write that waited on it would wait forever. A request sent ahead to a
        worker that was replaced since is sent again.

        ``blocks`` is drawn lazily, one item ahead: the next block is asked for when the one
        before is in the worker, so a caller may build it then (the next unit of a check, #36).
        A None is a barrier: nothing goes ahead past it (the caller sends a request of its own
        there, as ``end_file``), and it yields nothing."""
        source = iter(blocks)
        ahead: list[Any] = [None, 0]  # the process that holds the next block's request, its size
        drawn: list[Block | None] = []  # the next item, drawn early to send it ahead

        def send_ahead(size: int) -> None:
            drawn.append(next(source, _END))
            block = drawn[0]
            if block is None or block is _END:
                return
            block = self.allowed(block)
            msg = block._message(block.cases, block.isolate and len(block.cases) > 1)
            data = (canonical.dumps(msg) + "\n").encode("utf-8")
            if self.forks and self.proc and block.cases and size + len(data) <= self.room:
                with contextlib.suppress(WorkerDied):
                    self._write(data)
                    ahead[:] = [self.proc, len(data)]

        try:
            while True:
                block = drawn.pop() if drawn else next(source, _END)
                if block is _END:
                    return
                if block is None:
                    continue
                sent = ahead[0] is not None and ahead[0] is self.proc
                size, ahead[:] = ahead[1], [None, 0]
                yield list(self._block(block, size if sent else None, send_ahead))
        finally:
            if ahead[0] is not None and ahead[0] is self.proc:
                self.kill()  # a request whose replies nobody will read: the stream is out of step

    def _block(
        self, block: Block, sent: int | None, ahead: Callable[[int], None]
    ) -> Iterator[Outcome]:
        """``run`` of one block. ``sent``: the size of its request, when that is in the worker
        already (run_blocks); ``ahead(size)`` is called once, when this block's request (of
        ``size`` bytes, unread yet) is in the worker."""
        pending = list(block.cases)
        block = self.allowed(block)
        if block.isolate and self.blocks and not self.forks and self.alive():
            self.kill()
        if sent is None:
            self.ensure()
        self.blocks += 1
        # A block's replies come in one write (runner.FLUSH_AFTER); after a crash or a hang
        # the unanswered cases run again one reply a write, to find the case that caused it.
        batch = block.isolate
        while pending:
            progress = _Progress(batch and len(pending) > 1)
            size = sent or 0
            if sent is None:  # else it went ahead exactly so: all cases, batched if more than one
                self.ensure()
                data = (canonical.dumps(block._message(pending, progress.batched)) + "\n").encode()
                size = len(data)
                try:
                    self._write(data)
                except WorkerDied:
                    reason = self.death_reason()
                    self.kill()
                    yield Outcome(case=pending[0]["id"], kind="error", message=reason)
                    pending = pending[1:]
                    continue
            sent = None
            ahead(size)
            ahead = _no_more
            yield from self._replies(pending, progress)
            if progress.finished:
                return
            batch = batch and not progress.replay
            pending = pending[progress.done :]

    def _replies(self, pending: list[dict[str, Any]], progress: _Progress) -> Iterator[Outcome]:
        """The outcomes of one request; stops early (``progress.finished`` False) when the
        worker had to be killed, so that ``run`` sends the rest to a fresh one."""
        while progress.done < len(pending):
            case_id = pending[progress.done]["id"]
            try:
                reply = self._recv(self.timeout)
            except WorkerDied as died:
                reason = str(died) or self.death_reason()
                self.kill()
                if not progress.batched:
                    progress.done += 1
                    yield Outcome(case=case_id, kind="error", message=reason)
                progress.replay = True  # the replies it held died with it: whose crash?
                return
            if reply is None:
                self.kill()
                if not progress.batched:
                    progress.done += 1
                    yield Outcome(case=case_id, kind="error", message=self._timed_out())
                progress.replay = True
                return
            outcome = replies.plain_outcome(reply, case_id)
            bad = None if outcome is not None else replies.bad_reply(reply, case_id)
            if bad is not None:
                # The stream can no longer be trusted: this case is an error, the worker is
                # replaced, and the rest of the block runs in a fresh one (#21).
                self.kill()
                progress.done += 1
                yield Outcome(case=case_id, kind="error", message=bad)
                return
            if outcome is None and "fatal" in reply:
                # The target cannot run at all: every remaining case reports the same cause.
                progress.finished = True
                text = reply.get("message", "")
                for c in pending[progress.done :]:
                    yield Outcome(case=c["id"], kind="error", message=text)
                if reply.get("fatal") == "memory":
                    self.kill()
                return
            if outcome is None:
                outcome = replies.outcome(reply, case_id)
            progress.done += 1
            if outcome.kind == "raised" and (outcome.exc or {}).get("type") == "MemoryError":
                yield self._out_of_memory(case_id, outcome)
                self.kill()  # its heap may be in any state; start clean
                return
            yield outcome
        progress.finished = True
        # consume the {"done": true} trailer
        with contextlib.suppress(WorkerDied):
            trailer = self._recv(self.timeout)
            if trailer is None or trailer.get("done") is not True:
                self.kill()  # anything but the trailer: the stream is out of step

    def _timed_out(self) -> str:
        return (
            f"timed out after {self.timeout:g} s; the worker was killed and "
            "restarted (if the call is slow on purpose, raise --timeout or `timeout` "
            "under [tool.codemode])"
        )

    def _out_of_memory(self, case_id: str, outcome: Outcome) -> Outcome:
        return Outcome(
            case=case_id,
            kind="error",
            message=f"exceeded the memory limit of {self.memory_mb} MB (MemoryError); "
            "raise `memory_limit_mb` under [tool.codemode] if it needs more",
            duration_ms=outcome.duration_ms,
        )


class _Progress:
    """How far one request got: cases answered, and whether the request is over."""

    __slots__ = ("batched", "done", "finished", "replay")

    def __init__(self, batched: bool) -> None:
        self.batched = batched  # the replies come together (runner.FLUSH_AFTER)
        self.done = 0
        self.finished = False
        self.replay = False  # the worker died or hung: send the rest one reply a write
