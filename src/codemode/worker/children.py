"""Forked children that run function blocks, and the worker's relay of their replies.
Stdlib only: runs in the worker.

Isolation (#12, #20): a block runs in a child forked from the worker, so module state it
changes dies with the child. A child whose block left nothing behind (worker/leaks.py) runs
the next block too; a module the worker imported since the fork, the child imports too and
brings its snapshot up to date (runner._brought_up_to_date). The first block that changes
state ends its child. While none does, one fork per run, not one per module or function.

The channel (#21): the child never holds the worker's own stdin or stdout. It reads its
requests from a pipe of its own and writes its replies to another, and the worker passes a
reply on only when it is the one awaited: the next case of the block, in order, then its
``done`` (or a ``fatal``). Whatever else arrives (a line the function wrote to any descriptor
it found, a forged ``done``, a reply for another case) ends the child, and the block's
remaining cases are errors that say why. The child ends each block with a line of its own,
``{"stay": bool}``, which the worker reads and never passes on.
"""

from __future__ import annotations

import json
import os
import signal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

CHILD_OK = 117  # a child that sent all its replies; os._exit(0) in user code is not it
MAX_LINE = 16_000_000  # bytes: past this without a newline, the child is not speaking the protocol
FORGED = (
    "the function wrote to the worker's reply channel ({what}); its cases that had not "
    "answered yet are errors"
)


class Child:
    """A live child: its pid, the write end of its requests, the read end of its replies."""

    def __init__(self, pid: int, requests: int, replies: int) -> None:
        self.pid, self.requests, self.replies = pid, requests, replies
        self.buf = bytearray()  # what the child wrote that was not passed on yet

    def fill(self) -> int:
        """Read until ``buf`` holds a whole line: the index just past its last whole line;
        -1 at EOF (the child is gone), -2 past MAX_LINE without a newline (not the protocol)."""
        end = self.buf.rfind(b"\n") + 1
        while not end:
            if len(self.buf) > MAX_LINE:
                return -2
            chunk = os.read(self.replies, 1 << 16)
            if not chunk:
                return -1
            end = chunk.rfind(b"\n") + 1
            if end:
                end += len(self.buf)
            self.buf += chunk
        return end

    def close(self, kill: bool) -> int | None:
        """End the child; its wait status (None if it was ended already)."""
        if self.pid < 0:
            return None
        for fd in (self.requests, self.replies):
            try:
                os.close(fd)
            except OSError:
                pass
        pid, self.pid = self.pid, -1
        if kill:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return None


def spawn(child_main: Callable[[Any, Any], None], proto_fd: int) -> Child:
    """Fork a child that runs ``child_main(requests, replies)`` (files) and exits."""
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    import warnings

    with warnings.catch_warnings():
        # 3.12+ warns of fork with threads (the module may start some at import); the child
        # only runs blocks and leaves by os._exit.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        code = CHILD_OK
        try:
            os.close(req_w)
            os.close(rep_r)
            os.close(proto_fd)  # the worker's channel to codemode: out of the function's reach
            devnull = os.open(os.devnull, os.O_RDONLY)
            os.dup2(devnull, 0)  # and so is the worker's stdin
            os.close(devnull)
            child_main(
                os.fdopen(req_r, "r", encoding="utf-8"),
                os.fdopen(rep_w, "w", encoding="utf-8", errors="backslashreplace"),
            )
        except BaseException:
            code = 3
        finally:
            os._exit(code)
    os.close(req_r)
    os.close(rep_w)
    return Child(pid, req_w, rep_r)


_DONE = b'{"done":true}\n'
_FATAL = b'{"fatal":'
_STAY = (b'{"stay":false}\n', b'{"stay":true}\n')


def _prefix(case_id: Any) -> bytes:
    """How the child's reply for ``case_id`` starts (it writes compact JSON, ASCII only)."""
    if (
        type(case_id) is str
        and case_id.isascii()
        and case_id.isprintable()
        and '"' not in case_id
        and "\\" not in case_id
    ):  # what json.dumps leaves as it is: no call to it per case (#20)
        return b'{"case":"' + case_id.encode() + b'",'
    return b'{"case":' + json.dumps(case_id).encode() + b","


def relay(child: Child, req: dict[str, Any], line: str, out: Any) -> bool | None:
    """Send ``line`` (the request) to ``child`` and pass its replies to ``out`` (binary).

    Returns whether the child stays for another block; None when it is gone (its wait
    status is then for the caller to read) or was ended for a forged reply. The lines that
    arrived together are checked one by one, in order, and passed on in one write: a block's
    replies come in one write (runner.FLUSH_AFTER), so one write and one flush per block.
    """
    try:
        os.write(child.requests, line.encode("utf-8"))
    except OSError:
        return None
    ids = [c.get("id") for c in req.get("cases", [])]
    at = 0  # the case awaited next; -1 once the block's done (or a fatal) has passed
    while at >= 0:
        end = child.fill()
        if end == -1:
            out.flush()  # the replies it gave before it went
            return None
        buf, pos = child.buf, 0
        while pos < end:  # each line is the one awaited, or nothing after it is passed on
            if at < len(ids) and buf.startswith(_prefix(ids[at]), pos):
                at += 1
            elif buf.startswith(_FATAL, pos) or (at == len(ids) and buf.startswith(_DONE, pos)):
                at = -1
            else:
                break
            pos = buf.index(b"\n", pos) + 1
            if at < 0:
                break
        out.write(buf[:pos])
        del buf[:pos]
        if at >= 0 and pos < max(end, 1):  # a line that is not the awaited reply (or too long)
            _forged(child, out, ids[at:], "a line that is not the awaited reply")
            return None
        out.flush()
    return _last_word(child, out)


def _last_word(child: Child, out: Any) -> bool | None:
    """The child's ``{"stay": ...}`` after its block, never passed on; None if it is gone."""
    if child.fill() == -1:
        return None
    for stay in (True, False):
        if child.buf.startswith(_STAY[stay]):
            del child.buf[: len(_STAY[stay])]
            return stay
    _forged(child, out, [], "a line after the block's end")
    return None


def _forged(child: Child, out: Any, rest: list[Any], what: str) -> None:
    child.close(kill=True)
    message = FORGED.format(what=what)
    for case_id in rest:
        line = json.dumps({"case": case_id, "outcome": "error", "message": message})
        out.write(line.encode() + b"\n")
    if rest:
        out.write(b'{"done":true}\n')
    out.flush()
