"""The hook's resident parent (#36): ``codemode check --staged`` as a thin client. Stdlib only.

A hook run spent about half of its own CPU importing codemode (argparse, the report records,
the check and diff stacks), once in the process and again in the behaviour diff's fork, on
every commit: more than a linter's whole run. As dmypy keeps a daemon, a repository keeps a
resident process (``cli/resident_server.py``) that has imported them once; the console
script connects to it, hands it its standard streams, and it forks a child that becomes this
run: the client's arguments, working folder, environment, umask and signal dispositions,
then the ordinary ``cli.main.main``. The client relays signals to that child and exits with
its status. Whatever cannot be handed over is part of the server's key, so a run that differs
there finds no server: the interpreter and its flags, ``sys.path``, the ``PYTHON*``/locale
variables, the niceness, the resource limits.

Trust, as for the warm worker: the folder (``<git-dir>/codemode-cache/front/<key>``) must be
this user's and private (0700), the socket this user's, and the peer this user's process
(``SO_PEERCRED``). Any doubt (no server, a stale socket, a server whose modules' files changed
since it imported them, a stream that cannot be passed) and the run is the ordinary one, in
this process; it starts a server as it ends when the run used the warm worker
(``config.warm_wanted``: ``CODEMODE_WARM=0``, ``warm = false`` or CI turn both off).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _socket import socket as Socket
    from collections.abc import Callable, Mapping, Sequence
    from typing import TypeVar

    S = TypeVar("S", bound=Socket)

FOLDER = "front"
SERVER = "codemode.cli.resident_server"  # run with -m: how a server is found by its processes
SOCKET = "sock"
MAX_LINE = 1 << 20  # bytes of one request or answer: the environment and a few paths
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
_wanted: list[float] = []  # the warm idle time, set by a run that used the warm worker


def note_wanted(idle: float) -> None:
    """This run may use the warm worker (``flows.checking``): a server may be started as it
    ends, to stay ``idle`` seconds without a run."""
    _wanted[:] = [idle]


def wanted() -> bool:
    """Whether this run used the warm worker (``note_wanted``)."""
    return bool(_wanted)


def eligible(argv: Sequence[str]) -> bool:
    """The hook's path, on a platform that can pass descriptors, the warm path not turned off
    by the environment (the config is read by the run itself, and ends a server it forbids)."""
    env = os.environ
    return (
        len(argv) > 0
        and argv[0] == "check"
        and "--staged" in argv
        and sys.platform.startswith("linux")
        and env.get("CODEMODE_WARM", "") != "0"
        and (not env.get("CI", "").strip() or env.get("CODEMODE_WARM", "") == "1")
    )


def key() -> str:
    """What a forked child cannot take from its client, which the server must share."""
    import resource

    try:
        from _blake2 import blake2b  # not hashlib: it loads OpenSSL
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import blake2b
    limits = [
        resource.getrlimit(getattr(resource, name))
        for name in sorted(dir(resource))
        if name.startswith("RLIMIT_")
    ]
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith(("PYTHON", "LC_", "LANG")))
    parts = [
        sys.executable,
        os.path.dirname(os.path.abspath(__file__)),
        os.getuid(),
        repr(sys.flags),
        sorted(sys._xoptions.items()),
        sys.warnoptions,
        sys.path,
        env,
        os.getpriority(os.PRIO_PROCESS, 0),
        limits,
    ]
    return blake2b(repr(parts).encode(), digest_size=8).hexdigest()


def cache_folder(cwd: str) -> str | None:
    """``config.find_root`` then ``cachedir.cache_folder``, with ``os.path`` (``pathlib``
    costs a few ms): None outside a git repository."""
    d = os.path.realpath(cwd)
    while not (
        os.path.isfile(os.path.join(d, "pyproject.toml")) or os.path.exists(os.path.join(d, ".git"))
    ):
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent
    dot = os.path.join(d, ".git")
    if os.path.isdir(dot):
        return os.path.join(dot, "codemode-cache")
    try:
        with open(dot, encoding="utf-8") as f:
            line = f.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir:"):
        return None
    return os.path.join(d, line[len("gitdir:") :].strip(), "codemode-cache")


def private(path: str) -> bool:
    """A real folder of this user that only this user enters (``cachedir.private``)."""
    import stat

    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and st.st_mode & 0o077 == 0


def folder(cwd: str) -> str | None:
    cache = cache_folder(cwd)
    if cache is None:
        return None
    return os.path.join(cache, FOLDER, key())


def peer_uid(s: Socket) -> int:
    """The uid of the process on the other end (``SO_PEERCRED``: pid, uid, gid as C ints)."""
    import _socket

    creds = s.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    return int.from_bytes(creds[4:8], sys.byteorder)


def send(s: Socket, message: Mapping[str, object], fds: Sequence[int] = ()) -> None:
    """One message: its length (4 bytes) and its ``marshal`` form (both ends are one
    interpreter, part of the key; ``json`` and ``socket`` cost a hook run ~10 ms to import)."""
    import _socket
    import marshal

    data = marshal.dumps(dict(message))
    frame = len(data).to_bytes(4, "little") + data
    if not fds:
        s.sendall(frame)
        return
    rights = b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds)
    sent = s.sendmsg([frame], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, rights)])
    if sent < len(frame):
        s.sendall(frame[sent:])


def receive(s: Socket, buf: bytes = b"") -> tuple[dict[str, object] | None, bytes]:
    """One message from ``s`` and what came after it; None at its end or on anything else."""
    import marshal

    while len(buf) < 4 or len(buf) < 4 + int.from_bytes(buf[:4], "little"):
        if len(buf) >= 4 and int.from_bytes(buf[:4], "little") > MAX_LINE:
            return None, b""
        try:
            chunk = s.recv(65536)
        except OSError:
            return None, b""
        if not chunk:
            return None, b""
        buf += chunk
    size = int.from_bytes(buf[:4], "little")
    try:
        message = marshal.loads(buf[4 : 4 + size])
    except (EOFError, ValueError, TypeError):
        return None, b""
    return (message if isinstance(message, dict) else None), buf[4 + size :]


def connect(where: str) -> Socket | None:
    """The server listening in ``where``, if it is there and this user's."""
    import _socket

    if not (private(os.path.dirname(where)) and private(where)):
        return None
    return dial(where, SOCKET, _socket.socket, 5.0)


def dial(where: str, name: str, make: Callable[[int, int], S], timeout: float) -> S | None:
    """A connection (made by ``make``) to the socket ``where/name`` if it is a socket of this
    user's, someone listens on it, and that someone runs as this user; else None."""
    import stat

    try:
        st = os.lstat(os.path.join(where, name))
    except OSError:
        return None
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.getuid():
        return None
    s = make(1, 1)  # AF_UNIX, SOCK_STREAM
    s.settimeout(timeout)
    fd = -1
    try:
        # through the folder's descriptor: a socket's path is limited to 108 bytes
        fd = os.open(where, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_PATH", 0))
        s.connect(f"/proc/self/fd/{fd}/{name}")
        if peer_uid(s) != os.getuid():
            raise OSError("the socket's owner is another user")
    except OSError:
        s.close()
        return None
    finally:
        if fd >= 0:
            os.close(fd)
    return s


def _stream(stream: object) -> list[object] | None:
    """How to rebuild a standard stream as this interpreter made it; None if it has none."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None or not hasattr(stream, "encoding"):
        return None
    return [
        stream.encoding,  # type: ignore[attr-defined]
        stream.errors,  # type: ignore[attr-defined]
        stream.line_buffering,  # type: ignore[attr-defined]
        stream.write_through,  # type: ignore[attr-defined]
        not hasattr(buffer, "raw"),  # unbuffered (python -u): the buffer is the file itself
    ]


def request(argv: Sequence[str]) -> dict[str, object] | None:
    """The run as the server's child must become it, or None when something cannot be
    handed over (a closed standard stream, a deleted working folder)."""
    import _signal as signal  # type: ignore[import-not-found]  # signal.py builds enums

    try:
        for fd in (0, 1, 2):
            os.fstat(fd)
        cwd = os.getcwd()
    except OSError:
        return None
    streams = [_stream(s) for s in (sys.stdin, sys.stdout, sys.stderr)]
    if None in streams:
        return None
    mask = os.umask(0o022)
    os.umask(mask)
    ignored = [
        int(getattr(signal, name))
        for name in FORWARDED
        if signal.getsignal(getattr(signal, name)) == signal.SIG_IGN
    ]
    return {
        "op": "run",
        "argv": list(argv),
        "argv0": sys.argv[0] if sys.argv else "codemode",
        "cwd": cwd,
        "env": dict(os.environ),
        "umask": mask,
        "streams": streams,
        "ignored": ignored,
    }


def run(argv: Sequence[str]) -> int | None:
    """This run, done by the repository's server: its exit status; None when there is none
    to do it (the caller runs it itself)."""
    if not eligible(argv):
        return None
    try:
        where = folder(os.getcwd())
    except OSError:  # a working folder removed under the shell
        return None
    req = request(argv) if where else None
    s = connect(where) if where and req else None
    if s is None or req is None:
        return None
    try:
        try:
            send(s, req, [0, 1, 2])
        except (OSError, TypeError, ValueError):
            return None
        s.settimeout(None)  # sent: from here on the server answers, or the run is lost
        answer, rest = receive(s)
        pid = answer.get("pid") if answer else None
        if not isinstance(pid, int) or pid <= 0:
            return None  # stale (it exits), or busy: this run is the ordinary one
        return _wait(s, pid, rest)
    finally:
        s.close()


def _wait(s: Socket, pid: int, rest: bytes) -> int:
    """Relay signals to the child until the server says how it ended; end as it did."""
    import _signal as signal  # type: ignore[import-not-found]  # no enums: cheaper

    def relay(signum: int, _frame: object) -> None:
        try:
            os.kill(pid, signum)
        except OSError:
            pass

    for name in FORWARDED:
        sig = getattr(signal, name)
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, relay)
    end, _ = receive(s, rest)
    for name in FORWARDED:
        sig = getattr(signal, name)
        if signal.getsignal(sig) is relay:
            signal.signal(sig, signal.SIG_DFL if name != "SIGINT" else signal.default_int_handler)
    if end is None:
        sys.stderr.write("codemode: error: the resident process was lost during the run\n")
        return 3
    if "CODEMODE_PROBE" in os.environ:  # the run's CPU, which no rusage of ours holds
        from codemode import probe

        probe.count("resident", f"{pid}\t{end.get('cpu')}")
    killed = end.get("signal")
    if isinstance(killed, int) and killed > 0:
        sys.stdout.flush()
        signal.signal(killed, signal.SIG_DFL)
        os.kill(os.getpid(), killed)
        return 128 + killed
    code = end.get("exit")
    return code if isinstance(code, int) else 3


def start_after(argv: Sequence[str]) -> int | None:
    """As an ordinary run of the hook's path ends: start the repository's server in the
    background, if this run used the warm worker (it found none, or a stale one); its pid."""
    if not _wanted or not eligible(argv):
        return None
    import subprocess

    try:
        cwd = os.getcwd()
        cache = cache_folder(cwd)
        if cache is None:
            return None
        base = os.path.join(cache, FOLDER)
        k = key()
        for path in (cache, base, os.path.join(base, k)):
            if not os.path.isdir(path):
                os.mkdir(path, 0o700)
        where = os.path.join(base, k)
        if not (private(base) and private(where)):
            return None
        flags = subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]
        cmd = [sys.executable, *flags, "-m", SERVER, where, k]
        cmd += [str(_wanted[0]), os.pathsep.join(sys.path), *_held()]
        return subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=where,
            start_new_session=True,
        ).pid
    except (OSError, ValueError):
        return None


def _held() -> list[str]:
    """The codemode modules this run imported: the new server imports them first."""
    return sorted(n for n in sys.modules if n.startswith("codemode.") and "__main__" not in n)


def stop_all(cache: str) -> list[int]:
    """Ask every server of the repository whose cache is ``cache`` to end; their pids."""
    base = os.path.join(cache, FOLDER)
    if not private(base):
        return []
    stopped = []
    for name in sorted(os.listdir(base)):
        s = connect(os.path.join(base, name))
        if s is None:
            continue
        try:
            send(s, {"op": "stop"})
            answer, _ = receive(s)
        except OSError:
            continue
        finally:
            s.close()
        if answer and isinstance(answer.get("stopped"), int):
            stopped.append(int(answer["stopped"]))  # type: ignore[call-overload]
    import signal

    for pid in _starting(base, stopped):
        try:
            os.kill(pid, signal.SIGTERM)
            stopped.append(pid)
        except OSError:
            continue
    return stopped


def _starting(base: str, answered: list[int]) -> list[int]:
    """This user's servers of folders under ``base`` that did not answer (one still importing
    has no socket yet), found by their command lines; not the runs they forked, which have
    the same command line and end on their own."""
    real = os.path.realpath(base) + os.sep
    found: dict[int, int] = {}  # pid -> parent
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in answered:
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != os.getuid():
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().decode("utf-8", "replace").split("\0")
            with open(f"/proc/{entry}/stat", "rb") as f:
                parent = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if SERVER in argv[:-1]:
            where = argv[argv.index(SERVER) + 1]
            if os.path.realpath(where).startswith(real):
                found[int(entry)] = parent
    return [pid for pid, parent in found.items() if parent not in found and parent not in answered]
