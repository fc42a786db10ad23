"""The wall: what the code under test may not do, stopped before it happens (#31).

Stdlib only; runs in the worker. codemode calls code nobody asked it to call (the behaviour
diff's pool, regen's guessed inputs), in the user's repository, so every call of project code
runs behind one PEP 578 audit hook (CrossHair's ``auditwall.py`` is the model): reads are
allowed; writes, deletes, renames, chmods and links outside the run's scratch folder, new
processes, signals to other processes, sockets beyond loopback and sqlite files outside
scratch are refused with ``Blocked`` (a PermissionError, as the kernel's own refusal would
be). Each refusal is also recorded, so a function that catches the error and goes on still
has its call reported as blocked: a stopped call is an outcome of its own, never a case, a
witness or a drift.

An audit hook is no boundary against code that sets out to escape it (ctypes, a C extension,
``sys.addaudithook`` tricks): on Linux, Landlock (``landlock.py``) holds writes in the kernel.

codemode's own operations in the worker (forking a child, its bytecode cache, the warm
worker's list of modules) pass: the first frame outside the standard library that asked for
them is one of the worker's own files.
"""

from __future__ import annotations

import os
import sys
from _thread import get_ident

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~4 ms of every start
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
STDLIB = os.path.dirname(os.path.abspath(os.__file__)) + os.sep
# Where writing leads nowhere: the sinks a program may open for writing anywhere.
SINKS = frozenset({os.devnull, "/dev/null", "/dev/zero", "/dev/full"})
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


class Blocked(PermissionError):
    """A side effect the wall refused: ``str(exc)`` says which, ``exc.op`` is its call."""

    def __init__(self, op: str, kind: str) -> None:
        super().__init__(13, f"codemode's wall stopped {op}")
        self.op = op
        self.kind = kind  # write | process | network | signal


class Effects:
    """What a call may do beyond reading: write under ``writes`` (absolute glob patterns),
    start processes, use the network. The project's allowances, widened per function."""

    __slots__ = ("network", "subprocess", "writes")

    def __init__(
        self, writes: tuple[str, ...] = (), subprocess: bool = False, network: bool = False
    ) -> None:
        self.writes, self.subprocess, self.network = writes, subprocess, network

    def widened(self, extra: dict[str, Any] | None) -> Effects:
        if not extra:
            return self
        return Effects(
            self.writes + tuple(str(w) for w in extra.get("writes") or ()),
            self.subprocess or bool(extra.get("subprocess")),
            self.network or bool(extra.get("network")),
        )


class _State:
    """The wall of this process: its scratch folder, its allowances, what it stopped."""

    def __init__(self) -> None:
        self.scratch = ""  # realpath + os.sep; "" while no wall is up
        self.project = Effects()
        self.effects = Effects()  # the project's, widened for the block that runs
        # the first refusal since the last take(): a loop that catches the refusal and tries
        # again holds one exception (with its frames), not one per try
        self.stopped: list[Blocked] = []
        self.refused = 0  # refusals in this process's life (the warm worker counts them)
        # the threads inside the hook: its own calls raise no second check there (per thread:
        # a flag for the process would let another thread's operation pass meanwhile)
        self.busy: set[int] = set()
        self.landlock = False  # the kernel holds this process's writes too (landlock.py)
        self.child_folders: list[str] = []  # where a forked child may write (Landlock)


STATE = _State()


def up(scratch: str, effects: Effects) -> None:
    """Raise the wall in this process (once: an audit hook cannot be removed)."""
    first = not STATE.scratch
    STATE.scratch = os.path.realpath(scratch) + os.sep
    STATE.project = STATE.effects = effects
    if first:
        sys.addaudithook(_hook)


def folders(scratch: str, globs: list[str]) -> list[str]:
    """The folders Landlock grants writes beneath: scratch, and for each allowed glob the
    deepest folder that exists above its first wildcard (Landlock rules name real folders;
    the audit hook narrows to the glob itself)."""
    out = [scratch]
    for glob in globs:
        parts = glob.split(os.sep)
        fixed = []
        for part in parts:
            if any(c in part for c in "*?["):
                break
            fixed.append(part)
        path = os.sep.join(fixed) or os.sep
        while path and not os.path.isdir(path):
            path = os.path.dirname(path)
        if path and path not in out:
            out.append(path)
    return out


def child_restrict() -> None:
    """In a forked child: Landlock again, without the worker's own folders (its bytecode
    cache, the warm worker's list), so the code under test cannot touch those either."""
    if STATE.landlock:
        from . import landlock

        landlock.restrict(STATE.child_folders)


def for_block(extra: dict[str, Any] | None) -> None:
    """The allowances of the block about to run: the project's, widened by its function's."""
    STATE.effects = STATE.project.widened(extra)


def take() -> Blocked | None:
    """The first refusal since the last call, if any (and forget them all)."""
    stopped = STATE.stopped
    if not stopped:
        return None
    first = stopped[0]
    stopped.clear()
    return first


def settle(out: dict[str, Any]) -> None:
    """A case's reply, once its call is over: a call the wall stopped is an outcome of its
    own, whatever the function made of the refusal (caught it and went on, raised something
    else), never a value to pin."""
    first = take()
    if first is not None:
        for key in ("value", "exc", "typed", "types"):
            out.pop(key, None)
        out.update(outcome="error", blocked=first.op, message=describe(first))


def describe(first: Blocked) -> str:
    """The case's message: what was stopped, and the way out."""
    how = {
        "write": "give the function a `tmp_path` fixture (a folder of its own), or allow the "
        'path under [tool.codemode.effects] `writes = ["<glob>"]`',
        "process": "allow it under [tool.codemode.effects] `subprocess = true` (per function: "
        '[tool.codemode.effects.functions."<id>"])',
        "network": "allow it under [tool.codemode.effects] `network = true` (per function: "
        '[tool.codemode.effects.functions."<id>"])',
        "signal": "a function may signal only its own process",
    }[first.kind]
    return (
        f"blocked: {first.op}: codemode's wall stops side effects outside its scratch folder; {how}"
    )


# --- the hook ---------------------------------------------------------------------------


def _hook(event: str, args: tuple[Any, ...]) -> None:
    check = _CHECKS.get(event)
    if check is None or not STATE.scratch:
        return
    me = get_ident()
    if me in STATE.busy:
        return
    STATE.busy.add(me)
    try:
        try:
            refusal = check(args)
        except Exception:  # arguments the check cannot read: refused, never waved through
            refusal = ("(...)", "write")
        if refusal is not None and _ours():
            refusal = None
    finally:
        STATE.busy.discard(me)
    if refusal is not None:
        op, kind = refusal
        exc = Blocked(event + op, kind)
        STATE.refused += 1
        if not STATE.stopped:
            STATE.stopped.append(exc)
        raise exc


def _ours() -> bool:
    """Whether the operation was asked for by the worker's own code: the first frame outside
    the standard library, walking out from the call, is one of the worker's files."""
    frame = sys._getframe(2)  # _ours <- _hook <- the operation's caller
    for _ in range(40):
        if frame is None:
            return False
        name = frame.f_code.co_filename
        if name.startswith(HERE):
            return True
        if not (name.startswith(STDLIB) or name.startswith("<frozen")) or "-packages" in name:
            return False
        frame = frame.f_back
    return False


def _text(path: Any) -> str:
    try:
        return os.fsdecode(path)
    except TypeError:
        return repr(path)


def _shown(*parts: Any) -> str:
    return "(" + ", ".join(repr(_text(p) if not isinstance(p, int) else p) for p in parts) + ")"


def _resolved(path: Any, dir_fd: Any = None) -> str | None:
    """The real absolute path ``path`` names (through ``dir_fd`` when given); None when it
    cannot be told (a descriptor whose path is unknown)."""
    if isinstance(path, int):
        return _fd_path(path)
    try:
        p = os.fsdecode(path)
    except TypeError:
        return None
    # the events give no dir_fd as None or as a negative number (AT_FDCWD: the working folder)
    if isinstance(dir_fd, int) and dir_fd >= 0 and not os.path.isabs(p):
        base = _fd_path(dir_fd)
        if base is None:
            return None
        p = os.path.join(base, p)
    return os.path.realpath(p)


def _fd_path(fd: int) -> str | None:
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return target if target.startswith("/") else None


def _writable(path: Any, dir_fd: Any = None) -> bool:
    real = _resolved(path, dir_fd)
    if real is None:
        return False
    if real in SINKS or (real + os.sep).startswith(STATE.scratch):
        return True
    writes = STATE.effects.writes
    if writes:
        import fnmatch

        return any(fnmatch.fnmatchcase(real, w) for w in writes)
    return False


def _write_check(*positions: int, dir_fd_at: int = -1) -> Callable[[tuple[Any, ...]], Any]:
    """A check refusing the event unless the paths at ``positions`` may be written."""

    def check(args: tuple[Any, ...]) -> tuple[str, str] | None:
        dir_fd = args[dir_fd_at] if 0 <= dir_fd_at < len(args) else None
        for at in positions:
            if at < len(args) and not _writable(args[at], dir_fd):
                return _shown(*args[: max(positions) + 1]), "write"
        return None

    return check


def _open(args: tuple[Any, ...]) -> tuple[str, str] | None:
    path, mode, flags = (*args, None, None, 0)[:3]
    if isinstance(mode, str):
        writing = any(c in mode for c in "wax+")
    else:
        writing = bool((flags or 0) & _WRITE_FLAGS)
    if not writing or path is None or isinstance(path, int) or _writable(path):
        return None
    return (_shown(path, mode) if isinstance(mode, str) else _shown(path)), "write"


def _process(args: tuple[Any, ...]) -> tuple[str, str] | None:
    if STATE.effects.subprocess:
        return None
    shown = [a for a in args[:2] if isinstance(a, (str, bytes, list, tuple))]
    return "(" + ", ".join(repr(a) for a in shown)[:200] + ")", "process"


def _signal(args: tuple[Any, ...]) -> tuple[str, str] | None:
    pid = args[0] if args else None
    if pid == os.getpid():
        return None
    return _shown(*args[:2]), "signal"


def _loopback(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    host = host.strip("[]").lower()
    return host in LOOPBACK_NAMES or host.startswith("127.") or host in ("::1", "0:0:0:0:0:0:0:1")


def _address(args: tuple[Any, ...]) -> tuple[str, str] | None:
    if STATE.effects.network:
        return None
    address = args[1] if len(args) > 1 else None
    if isinstance(address, tuple) and address and _loopback(address[0]):
        return None
    if (
        isinstance(address, (str, bytes))
        and address[:1] not in ("\0", b"\0")
        and _writable(address)
    ):
        return None  # a Unix socket inside scratch
    return f"({address!r})"[:200], "network"


def _lookup(args: tuple[Any, ...]) -> tuple[str, str] | None:
    """A name lookup goes out to the resolver: only loopback names and numeric addresses."""
    if STATE.effects.network:
        return None
    host = args[0] if args else None
    if host is None or _loopback(host):
        return None
    text = host.decode("ascii", "replace") if isinstance(host, bytes) else str(host)
    if text.replace(".", "").isdigit() or ":" in text:
        return None  # a numeric address: no lookup; connecting to it is checked apart
    return f"({text!r})", "network"


def _sqlite(args: tuple[Any, ...]) -> tuple[str, str] | None:
    db = args[0] if args else None
    text = _text(db) if db is not None else ""
    if text in ("", ":memory:") or text.startswith("file::memory:") or "mode=memory" in text:
        return None
    if text.startswith("file:") and "mode=ro" in text:
        return None
    if _writable(text.removeprefix("file:").split("?")[0]):
        return None
    return _shown(db), "write"


def _always(kind: str) -> Callable[[tuple[Any, ...]], tuple[str, str] | None]:
    def check(args: tuple[Any, ...]) -> tuple[str, str] | None:
        if kind == "process" and STATE.effects.subprocess:
            return None
        return "(" + ", ".join(repr(a) for a in args[:2])[:200] + ")", kind

    return check


# Every audited event that changes the world outside the process, with its check. From the
# audit events table of the Python documentation (3.10-3.13); reads are not listed.
_CHECKS: dict[str, Callable[[tuple[Any, ...]], tuple[str, str] | None]] = {
    "open": _open,
    "os.remove": _write_check(0, dir_fd_at=1),
    "os.rmdir": _write_check(0, dir_fd_at=1),
    "os.mkdir": _write_check(0, dir_fd_at=2),
    "os.rename": _write_check(0, 1, dir_fd_at=2),
    "os.link": _write_check(1, dir_fd_at=3),
    "os.symlink": _write_check(1, dir_fd_at=2),
    "os.truncate": _write_check(0),
    "os.chmod": _write_check(0, dir_fd_at=2),
    "os.chown": _write_check(0, dir_fd_at=3),
    "os.chflags": _write_check(0),
    "os.lchflags": _write_check(0),
    "os.lchmod": _write_check(0),
    "os.utime": _write_check(0, dir_fd_at=3),
    "os.setxattr": _write_check(0),
    "os.removexattr": _write_check(0),
    "shutil.rmtree": _write_check(0),
    "shutil.copyfile": _write_check(1),
    "shutil.copymode": _write_check(1),
    "shutil.copystat": _write_check(1),
    "shutil.copytree": _write_check(1),
    "shutil.move": _write_check(0, 1),
    "shutil.chown": _write_check(0),
    "shutil.unpack_archive": _write_check(1),
    "shutil.make_archive": _write_check(0),
    "sqlite3.connect": _sqlite,
    "subprocess.Popen": _process,
    "os.system": _process,
    "os.exec": _process,
    "os.posix_spawn": _process,
    "os.spawn": _process,
    "os.startfile": _process,
    "pty.spawn": _process,
    "os.fork": _always("process"),
    "os.forkpty": _always("process"),
    "webbrowser.open": _always("process"),
    "os.kill": _signal,
    "os.killpg": _always("signal"),
    "socket.connect": _address,
    "socket.bind": _address,
    "socket.sendto": _address,
    "socket.sendmsg": _address,
    "socket.getaddrinfo": _lookup,
    "socket.gethostbyname": _lookup,
    "socket.gethostbyaddr": _lookup,
    "syslog.openlog": _always("write"),
    "syslog.syslog": _always("write"),
    "winreg.CreateKey": _always("write"),
    "winreg.DeleteKey": _always("write"),
    "winreg.DeleteValue": _always("write"),
    "winreg.SaveKey": _always("write"),
    "winreg.SetValue": _always("write"),
}
