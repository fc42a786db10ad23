"""The warm worker: a resident process per repository that forks a fresh worker per run.
Stdlib only: runs in the project's interpreter, started as ``runtime.py --serve DIR ...``.

A commit whose module imports a heavy dependency (0.8 s of pandas or Django settings) paid that
import on every hook run (#20). The warm worker keeps such imports between runs, as dmypy keeps
a daemon: it imports the third-party and standard-library modules earlier runs imported (the
names a run learned, ``learned`` in its folder), listens on a Unix socket in that folder, and
for each run forks a child that becomes an ordinary worker (``runtime.main``) on the pipes the
caller passed over the socket. What it never keeps:

- a changed project module: it imports the project modules earlier runs imported
  (``keep.py``: from the work tree, behind the wall, each with the files it was made from),
  and its child keeps one only where the run's tree holds the same bytes for it and for what
  it imports; the others, and every other module of the project's top-level names, leave
  ``sys.modules`` before the run and are imported afresh from the tree under check (#36);
- a stale world: each request first compares the interpreter, the site-packages folders, the
  lock files and the file of every module it imported with what they were when it started;
  on any difference it answers ``restart`` and exits, and the caller starts a new one. A
  change of ``[tool.codemode]`` or of the environment reaches it as a different ``settings``
  value, with the same answer.

The folder is the caller's, owner-only (0700); the socket answers only the same user (its
peer's credentials are checked). It exits after ``--idle`` seconds without a run, or when
asked (``codemode worker stop``).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import sys
import time

from .keep import forget_project

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SOCKET = "sock"
LEARNED = "learned"  # module names earlier runs imported, one a line, in import order
PIDFILE = "pid"
LOCKS = ("poetry.lock", "uv.lock", "Pipfile.lock", "pdm.lock", "pylock.toml", "requirements.txt")
MAX_REQUEST = 1 << 20  # bytes of one request: the environment and a few paths


# --- what a run may keep --------------------------------------------------------------


def address(folder: str, name: str = SOCKET) -> tuple[str, int]:
    """A path to ``folder/name`` short enough for a Unix socket (108 bytes, which a repository
    a few folders deep passes): through an open descriptor of the folder, ``/proc/self/fd/N``.
    The descriptor (for the caller to close) keeps the folder the one that was checked."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_PATH", 0))
    return f"/proc/self/fd/{fd}/{name}", fd


def listen_private(folder: str, name: str) -> socket.socket:
    """A non-blocking Unix socket listening at ``folder/name``, readable and writable by this
    user alone (0600 from the moment it exists: bound under umask 0177). The caller holds the
    folder's lock and found nobody listening there, so a leftover socket file is removed."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(folder, name))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    short, fd = address(folder, name)  # a path short enough to bind
    try:
        s.bind(short)
    finally:
        os.umask(old)
        os.close(fd)
    os.chmod(os.path.join(folder, name), 0o600)
    s.listen(16)
    s.setblocking(False)
    return s


def interpreter_prefixes() -> tuple[str, ...]:
    return tuple({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})


def kept(module: Any, prefixes: tuple[str, ...]) -> bool:
    """A module the warm worker may hold: built in, or its file under the interpreter's
    prefixes or a site-packages folder (a dependency, or the standard library)."""
    path = getattr(module, "__file__", None)
    if not path:
        # built in, frozen, or made at run time; a namespace package by where its parts are
        spec = getattr(module, "__spec__", None)
        places = list(getattr(spec, "submodule_search_locations", None) or ())
        return all(_under_prefix(os.path.realpath(p), prefixes) for p in places)
    return _under_prefix(os.path.realpath(path), prefixes)


def _under_prefix(real: str, prefixes: tuple[str, ...]) -> bool:
    parts = real.split(os.sep)
    return (
        any(real.startswith(p + os.sep) for p in prefixes)
        or "site-packages" in parts
        or "dist-packages" in parts
    )


def learned_since(before: set[str]) -> list[str]:
    """The modules imported since ``before`` (names) that a warm worker may preload."""
    prefixes = interpreter_prefixes()
    return [
        name
        for name, module in list(sys.modules.items())
        if name not in before
        and not name.startswith(("_codemode_worker", "__main__"))
        and kept(module, prefixes)
    ]


def write_learned(path: str, before: set[str]) -> None:
    """Add what this run imported to ``path`` (a worker's last act, cold or warm), and the
    project's modules beside it (``keep.py``: those under the root the worker was given)."""
    from . import keep, policy

    if policy._Policy.root:
        keep.write_learned(os.path.dirname(path), policy._Policy.root)
    keep.add_names(path, learned_since(before))


# --- when to start over ---------------------------------------------------------------


def _stat(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    # ctime too: a file edited in place with its size and mtime put back (and so its inode
    # kept) has a new ctime, which no one but the kernel sets (#33)
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _watched(root: str) -> list[str]:
    """The files whose change means the preloaded modules may be stale."""
    paths = [os.path.realpath(sys.executable)]
    paths += [p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")]
    paths += [os.path.join(root, name) for name in LOCKS]
    try:
        paths += [
            os.path.join(root, e)
            for e in os.listdir(root)
            if e.startswith("requirements") and e.endswith(".txt")
        ]
    except OSError:
        pass
    return paths


class World:
    """What the preloaded modules were made from: their files, the interpreter, the
    site-packages folders and the lock files, each with its stat when the server started."""

    def __init__(self, root: str) -> None:
        self.stats = {p: _stat(p) for p in _watched(root)}

    def add_modules(self, names: list[str]) -> None:
        for name in names:
            path = getattr(sys.modules.get(name), "__file__", None)
            if path and path not in self.stats:
                self.stats[path] = _stat(path)

    def changed(self) -> str | None:
        for path, before in self.stats.items():
            if _stat(path) != before:
                return f"{path} changed"
        return None


# --- the server -----------------------------------------------------------------------


class Server:
    def __init__(self, folder: str, root: str, settings: str, idle: float) -> None:
        self.folder, self.root, self.settings, self.idle = folder, root, settings, idle
        self.sel = selectors.DefaultSelector()
        self.children: dict[int, tuple[socket.socket, int]] = {}  # pid -> (control, pidfd)
        self.listener: socket.socket | None = None
        self.inode = 0
        self.last = time.monotonic()
        self.world = World(root)
        self.preloaded: set[str] = set()
        from . import keep

        self.held = keep.Keeper(root)  # the project's modules (#36)
        self.worker: dict[str, Any] | None = None  # a run's argv and source roots
        self.base: str | None = None  # where runs' scratch folders lie, once the wall is up

    # lifecycle

    def bind(self) -> None:
        s = listen_private(self.folder, SOCKET)
        self.inode = os.stat(os.path.join(self.folder, SOCKET)).st_ino
        self.listener = s
        self.sel.register(s, selectors.EVENT_READ, ("listen", 0))
        _write_private(os.path.join(self.folder, PIDFILE), f"{os.getpid()}\n")

    def unbind(self) -> None:
        """Stop taking runs: a new caller starts a new server (this one ends with its last
        child). The socket file is removed only if it is still this server's."""
        if self.listener is None:
            return
        self.sel.unregister(self.listener)
        self.listener.close()
        self.listener = None
        for name in (SOCKET, PIDFILE):
            path = os.path.join(self.folder, name)
            try:
                mine = (
                    _read(path).strip() == str(os.getpid())
                    if name == PIDFILE
                    else os.stat(path).st_ino == self.inode
                )
                if mine:
                    os.unlink(path)
            except OSError:
                pass

    def preload(self) -> None:
        """Import what earlier runs learned (each failure is only a module not kept)."""
        try:
            names = _read(os.path.join(self.folder, LEARNED)).split()
        except OSError:
            return
        import importlib

        todo = [n for n in names if n not in self.preloaded]
        for name in todo:
            if name in sys.modules:
                continue
            try:
                importlib.import_module(name)
            except BaseException:  # a module that cannot load here is only not kept
                continue
        self.preloaded.update(todo)
        self.world.add_modules(todo)

    def keep_project(self) -> None:
        """Import the project modules earlier runs learned, behind the wall (keep.py)."""
        if self.worker is not None:
            self.base = self.held.update(self.folder, self.worker, self.base)

    def loop(self) -> int:
        self.keep_project()  # the project's modules the run that started it imported (#36)
        while self.listener is not None or self.children:
            timeout = None
            if not self.children:
                timeout = max(0.0, self.last + self.idle - time.monotonic())
                if timeout == 0.0:
                    break
            for key, _ in self.sel.select(timeout):
                kind, pid = key.data
                if kind == "listen":
                    self.accept()
                elif kind == "control":
                    self.control(pid)
                else:
                    self.ended(pid)
        self.unbind()
        return 0

    # requests

    def accept(self) -> None:
        assert self.listener is not None
        try:
            conn, _ = self.listener.accept()
        except BlockingIOError:
            return
        conn.setblocking(True)
        conn.settimeout(10.0)
        try:
            self.request(conn)
        except Exception as exc:  # one bad request never ends the server
            _answer(conn, {"error": f"bad request: {exc}"})
            conn.close()

    def request(self, conn: socket.socket) -> None:
        if peer_uid(conn) != os.getuid():
            conn.close()  # not the user this worker runs as: not one word
            return
        data, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, 3)
        try:
            while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
                more = conn.recv(MAX_REQUEST)
                if not more:
                    raise ValueError("the request ended early")
                data += more
            req = json.loads(data.decode("utf-8"))
            op = req.get("op")
            if op == "run" and len(fds) == 3:
                self.run(conn, req, fds)
                fds = []
                return
            if op == "stop":
                self.stop()
                _answer(conn, {"stopped": os.getpid()})
            elif op == "status":
                _answer(conn, self.status())
            else:
                _answer(conn, {"error": f"unknown request {op!r}"})
            conn.close()
        finally:
            for fd in fds:
                os.close(fd)

    def status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "python": sys.executable,
            "modules": len(self.preloaded),
            "project_modules": len(self.held.table),
            "runs": len(self.children),
            "idle": round(time.monotonic() - self.last, 1),
        }

    def stop(self) -> None:
        for pid in list(self.children):
            _kill_group(pid)
        self.unbind()

    def run(self, conn: socket.socket, req: dict[str, Any], fds: list[int]) -> None:
        self.last = time.monotonic()
        why = None
        if req.get("settings") != self.settings:
            why = "the settings changed ([tool.codemode], the environment or the interpreter)"
        why = why or self.world.changed() or self.held.outside(self.base, req.get("argv"))
        if why is not None:
            for fd in fds:
                os.close(fd)
            _answer(conn, {"restart": why})
            conn.close()
            self.unbind()
            return
        self.worker = {"argv": req.get("argv"), "paths": req.get("paths")}
        pid = self.fork(req, fds, conn)
        for fd in fds:
            os.close(fd)
        _answer(conn, {"pid": pid})
        conn.setblocking(False)
        pidfd = os.pidfd_open(pid)
        self.children[pid] = (conn, pidfd)
        self.sel.register(conn, selectors.EVENT_READ, ("control", pid))
        self.sel.register(pidfd, selectors.EVENT_READ, ("ended", pid))

    def fork(self, req: dict[str, Any], fds: list[int], conn: socket.socket) -> int:
        sys.stdout.flush()
        pid = os.fork()
        if pid:
            return pid
        code = 3
        try:
            self._become_worker(req, fds, conn)
            from . import runtime

            code = runtime.main([str(a) for a in req["argv"]])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException:  # the traceback goes to the caller's stderr
            import traceback

            traceback.print_exc()
        finally:
            _leave(code)
        return 0  # not reached

    def _become_worker(self, req: dict[str, Any], fds: list[int], conn: socket.socket) -> None:
        """In the child: its own session, the caller's pipes as 0, 1 and 2, the caller's
        environment, none of the server's sockets, none of the project's modules."""
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        self.sel.close()
        for c, pidfd in self.children.values():
            c.close()
            os.close(pidfd)
        if self.listener is not None:
            self.listener.close()
        conn.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the worker's stdin
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        os.environ.clear()
        os.environ.update(req.get("env", {}))
        root, paths = str(req.get("root", "")), list(req.get("paths", []))
        forget_project(root, paths, self.held, req.get("argv"))

    def control(self, pid: int) -> None:
        """The caller's side of a run: ``kill``, or gone (then its worker goes too)."""
        if pid not in self.children:  # ended in the same round of events
            return
        conn, _ = self.children[pid]
        try:
            data = conn.recv(64)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data or b"kill" in data:
            _kill_group(pid)

    def ended(self, pid: int) -> None:
        if pid not in self.children:
            return
        conn, pidfd = self.children.pop(pid)
        self.sel.unregister(conn)
        self.sel.unregister(pidfd)
        os.close(pidfd)
        _kill_group(pid)  # what the run left in its group (the leader unreaped: still ours)
        try:
            status = os.waitpid(pid, 0)[1]
            code = os.waitstatus_to_exitcode(status)
        except ChildProcessError:
            code = -9
        try:
            conn.setblocking(True)
            conn.sendall(f"exit {code}\n".encode())
        except OSError:
            pass
        conn.close()
        _reap_strays(self.children)
        self.last = time.monotonic()
        if self.listener is not None:
            self.preload()  # what this run learned, while nobody waits
            self.keep_project()


def _listening(folder: str) -> bool:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    short, fd = address(folder)
    try:
        s.connect(short)
        return True
    except OSError:
        return False
    finally:
        s.close()
        os.close(fd)


def peer_uid(conn: socket.socket) -> int:
    import struct

    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def _answer(conn: socket.socket, msg: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(msg).encode() + b"\n")
    except OSError:
        pass


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap_strays(children: dict[int, Any]) -> None:
    """Orphans a run left (it double-forked; this process is their subreaper): killed and
    reaped, so nothing a function started outlives its run."""
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in children:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                ppid = f.read().rsplit(b")", 1)[1].split()[1].decode()
        except (OSError, IndexError):
            continue
        if ppid == me:
            try:
                os.kill(int(entry), signal.SIGKILL)
                os.waitpid(int(entry), 0)
            except (OSError, ChildProcessError):
                pass


def _subreaper() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _write_private(path: str, text: str) -> None:
    tmp = f"{path}.{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _leave(code: int) -> None:
    """A child's end: the user's atexit handlers, then out, never back into the server."""
    try:
        import atexit

        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)


def private_folder(path: str) -> bool:
    """``path`` is a real folder (not a link) of this user that nobody else may enter."""
    import stat

    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and st.st_mode & 0o077 == 0


def _terminated(server: Server) -> None:
    """SIGTERM: stop (its runs' groups killed, the socket gone) and leave now; an idle server
    waits in ``select`` until its idle time is up, which a signal alone does not cut short."""
    server.stop()
    raise SystemExit(0)


def serve(argv: list[str]) -> int:
    """``--serve DIR --root ROOT --settings S --idle SECONDS``: written by the parent."""
    opts = dict(zip(argv[::2], argv[1::2]))
    folder, root = opts["--serve"], opts["--root"]
    if not private_folder(folder):
        return 2  # the caller checked; a folder others can enter is never served from
    devnull = os.open(os.devnull, os.O_RDWR)
    log = os.open(os.path.join(folder, "log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.dup2(log, 2)
    os.close(devnull)
    os.close(log)
    os.chdir(root)
    _subreaper()
    server = Server(folder, root, opts["--settings"], float(opts["--idle"]))
    if "--worker" in opts:  # the run that started it: its arguments, for the wall (#36)
        server.worker = json.loads(opts["--worker"])
    import fcntl

    lock = os.open(os.path.join(folder, "lock"), os.O_WRONLY | os.O_CREAT, 0o600)
    fcntl.flock(lock, fcntl.LOCK_EX)  # one starts at a time; a second finds the first
    if _listening(folder):
        return 0
    server.bind()  # first: a caller that comes now waits in the backlog, not starts another
    os.close(lock)
    signal.signal(signal.SIGTERM, lambda *_: _terminated(server))
    from . import landlock  # ctypes and the probe once, not in every run's wall (#31)

    landlock.abi()
    server.preload()
    return server.loop()
