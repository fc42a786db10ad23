"""The resident parent's server (#36; the client is ``codemode.resident``).

``python -m codemode.cli.resident_server FOLDER KEY IDLE SYS_PATH``: imports what the hook's
path imports, listens on ``FOLDER/sock`` (0600, in a 0700 folder of this user; peers of
another user are refused), and for each run forks a child that becomes the client's run
(``become``) and leaves this module's loop for good. Its status goes back to the client once
the child is reaped; a client that goes away takes its child with it (SIGTERM to the child's
process group: codemode's own exit path then removes its temporary folders).

It never serves a stale import: before each fork it compares the file of every module it
holds, the interpreter and the site-packages folders with what they were when it imported
them (``worker.warm.World``), and on any difference answers ``restart`` and exits: the client
runs the ordinary way and starts a new one. It exits after IDLE seconds without a run, when
its socket is gone or replaced (the repository removed, ``codemode worker stop``), or when
its own key (``resident.key``) is not the one it was started for.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import importlib
import io
import json
import os
import selectors
import signal
import socket
import sys
import time
from typing import Any, NamedTuple

from codemode import resident
from codemode.worker.warm import listen_private

# Imported by the behaviour diff's fork only (so absent from a run's own modules): a server
# that holds them spares every fork its imports.
FORK_SIDE = ("codemode.explore.offline.explorer", "codemode.change.old_side")
HOOK_PATH = ("codemode.cli.main", "codemode.cli.check_cmd", "codemode.flows.checking")
BEHAVIOUR = ("codemode.behaviour.check_change", "codemode.behaviour.engine")


class Run(NamedTuple):
    """A request a child is to become: the client's connection, its request and streams."""

    request: dict[str, Any]
    fds: list[int]
    learned: int  # the write end of a pipe: names the run imported, for the server to add
    go: int  # the read end of a pipe: a byte once the client knows the child's pid


class Child(NamedTuple):
    conn: socket.socket
    pidfd: int
    learned: int  # the read end


def preload(names: list[str] | tuple[str, ...]) -> None:
    for name in names:
        with contextlib.suppress(Exception):
            importlib.import_module(name)


class Server:
    def __init__(self, folder: str, idle: float) -> None:
        from codemode.worker.warm import World

        self.folder, self.idle = folder, idle
        self.sel = selectors.DefaultSelector()
        self.children: dict[int, Child] = {}
        self.last = time.monotonic()
        self.listener = self._bind()
        self.inode = os.stat(os.path.join(folder, resident.SOCKET)).st_ino
        self.world = World(folder)
        self.world.add_modules(list(sys.modules))
        self.pending: list[str] = []

    def _bind(self) -> socket.socket:
        s = listen_private(self.folder, resident.SOCKET)  # under the folder's lock
        self.sel.register(s, selectors.EVENT_READ, None)
        return s

    def gone(self) -> bool:
        """The socket was removed or replaced: this server is nobody's any more."""
        try:
            return os.stat(os.path.join(self.folder, resident.SOCKET)).st_ino != self.inode
        except OSError:
            return True

    def serve(self) -> Run | None:
        """Until idle or stopped (None), or, in a forked child, the run it is to become.
        Stopped (``worker stop``, SIGTERM, a stale import), it takes no new run and ends
        once the runs it forked have ended: their clients wait for their status."""
        while True:
            for sel_key, _ in self.sel.select(timeout=1.0):
                if sel_key.data is None and not self.stopping:
                    run = self._accept()
                    if run is not None:
                        return run
                else:
                    self._event(*sel_key.data)
            if self.stopping:
                self.unbind()
            if not self.children:
                if self.stopping or time.monotonic() - self.last > self.idle or self.gone():
                    return None
                preload(self.pending)
                self.world.add_modules(self.pending)
                self.pending = []

    stopping = False

    def stop(self, *_: object) -> None:
        self.stopping = True

    def unbind(self) -> None:
        """No new run: the listener closed, the socket removed (if it is still ours)."""
        if self.listener.fileno() < 0:
            return
        self.sel.unregister(self.listener)
        self.listener.close()
        with contextlib.suppress(OSError):
            if not self.gone():
                os.unlink(os.path.join(self.folder, resident.SOCKET))

    def _accept(self) -> Run | None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return None
        conn.setblocking(True)
        conn.settimeout(5.0)
        try:
            if resident.peer_uid(conn) != os.getuid():
                raise OSError("another user")
            msg, fds, _, _ = socket.recv_fds(conn, 65536, 3)
            request, _ = resident.receive(conn, msg)
        except OSError:
            conn.close()
            return None
        return self._answer(conn, request, fds)

    def _answer(
        self, conn: socket.socket, request: dict[str, Any] | None, fds: list[int]
    ) -> Run | None:
        op = request.get("op") if request else None
        changed = self.world.changed() if op == "run" else None
        if op != "run" or changed or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            if op == "stop" or changed:
                self.stopping = True
                reply = {"stopped": os.getpid()} if op == "stop" else {"restart": changed}
                with contextlib.suppress(OSError):
                    resident.send(conn, reply)
            conn.close()
            return None
        self.last = time.monotonic()
        assert request is not None
        read, write = os.pipe()
        go_read, go_write = os.pipe()
        # The child's collector would walk (and so copy) every object it inherits: frozen
        # there for its whole run, as the behaviour diff's fork does (behaviour/ahead.py).
        gc.freeze()
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid != 0:
            gc.unfreeze()
        if pid == 0:
            os.close(read)
            os.close(go_write)
            self._close_all(conn)
            return Run(request, fds, write, go_read)
        for fd in (write, go_read, *fds):
            os.close(fd)
        if pid < 0:
            os.close(read)
            os.close(go_write)
            conn.close()
            return None
        pidfd = os.pidfd_open(pid)
        try:
            resident.send(conn, {"pid": pid})
            os.write(go_write, b"1")  # only now: a client that did not hear of it runs itself
        except OSError:
            pass  # the child reads no byte, and ends without running
        os.close(go_write)
        conn.setblocking(False)
        self.children[pid] = Child(conn, pidfd, read)
        self.sel.register(pidfd, selectors.EVENT_READ, ("exit", pid))
        self.sel.register(conn, selectors.EVENT_READ, ("conn", pid))
        return None

    def _close_all(self, conn: socket.socket) -> None:
        """In the child: nothing of the server's stays open (its status goes through it)."""
        for child in self.children.values():
            child.conn.close()
            os.close(child.pidfd)
            os.close(child.learned)
        self.sel.close()
        self.listener.close()
        conn.close()

    def _event(self, kind: str, pid: int) -> None:
        child = self.children.get(pid)
        if child is None:
            return
        if kind == "conn":
            with contextlib.suppress(OSError):
                if child.conn.recv(4096):
                    return  # the client says nothing after its request: ignored
            # the client went away (killed): its run ends with it, as a foreground one would
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGTERM)
            self.sel.unregister(child.conn)
            return
        _, status, usage = os.wait4(pid, 0)
        self.sel.unregister(child.pidfd)
        with contextlib.suppress(KeyError, ValueError):
            self.sel.unregister(child.conn)
        os.close(child.pidfd)
        self._learn(child.learned)
        end: dict[str, object] = (
            {"signal": -os.waitstatus_to_exitcode(status)}
            if os.WIFSIGNALED(status)
            else {"exit": os.waitstatus_to_exitcode(status)}
        )
        end["cpu"] = round(usage.ru_utime + usage.ru_stime, 4)  # the run's, for the client
        with contextlib.suppress(OSError):
            child.conn.setblocking(True)
            resident.send(child.conn, end)
        child.conn.close()
        del self.children[pid]
        self.last = time.monotonic()

    def _learn(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as f:
            data = f.read(resident.MAX_LINE)
        try:
            names = json.loads(data) if data else {}
        except ValueError:
            names = {}
        if names.get("stop"):
            self.stopping = True  # the run's project does not want it (`warm = false`)
        self.pending += [n for n in names.get("modules", []) if isinstance(n, str)]


def _stdio(fd: int, mode: str, spec: list[Any]) -> io.TextIOWrapper:
    encoding, errors, line_buffering, write_through, raw = spec
    binary: Any = io.FileIO(fd, mode, closefd=False)
    if not raw:
        binary = io.BufferedReader(binary) if mode == "r" else io.BufferedWriter(binary)
    return io.TextIOWrapper(
        binary,
        encoding=encoding,
        errors=errors,
        line_buffering=line_buffering,
        write_through=write_through,
    )


def become(run: Run) -> None:
    """In the forked child: take on the client's process state, as its interpreter had it."""
    req = run.request
    os.setpgid(0, 0)  # a group of its own: what a client that went away takes down with it
    for target, fd in enumerate(run.fds):
        os.dup2(fd, target)
        os.close(fd)
    for name in ("SIGTERM", "SIGHUP", "SIGQUIT", "SIGCHLD", "SIGALRM", "SIGUSR1", "SIGUSR2"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as Python's start-up leaves it
    for sig in req["ignored"]:
        signal.signal(sig, signal.SIG_IGN)
    os.chdir(req["cwd"])
    os.umask(req["umask"])
    os.environ.clear()
    os.environ.update(req["env"])
    time.tzset()
    import tempfile

    tempfile.tempdir = None  # chosen afresh from this environment
    sys.argv = [req["argv0"], *req["argv"]]
    streams = [_stdio(fd, "r" if fd == 0 else "w", spec) for fd, spec in enumerate(req["streams"])]
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams  # type: ignore[misc]


def child_main(run: Run) -> None:
    """The client's run, in the child, once the client knows its pid; the names it imported
    go back to the server. Ends as an interpreter ends (threads joined, ``atexit``, streams
    flushed) without tearing down one by one the hundreds of modules it inherited: that took
    longer than a small run."""
    import atexit
    import threading

    if os.read(run.go, 1) != b"1":
        os._exit(0)  # the server could not tell the client: it runs the ordinary way
    os.close(run.go)
    before = set(sys.modules)
    become(run)
    code = 3
    try:
        from codemode.cli.main import main

        code = main(run.request["argv"])
    finally:
        for thread in threading.enumerate():
            if thread is not threading.main_thread() and not thread.daemon:
                thread.join()
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        learned = {"modules": _learned(before), "stop": not resident.wanted()}
        with contextlib.suppress(OSError), os.fdopen(run.learned, "wb") as f:
            f.write(json.dumps(learned).encode()[: resident.MAX_LINE])
        os._exit(code)


def _learned(before: set[str]) -> list[str]:
    """What the run imported that a server may hold: codemode's modules and those of its
    interpreter (never a module of the project: codemode's own process imports none, and a
    server holds nothing that could be the code under check)."""
    from codemode.worker.warm import learned_since

    ours = [n for n in sys.modules if n not in before and n.split(".")[0] == "codemode"]
    return sorted({*ours, *learned_since(before)})


def main(argv: list[str]) -> int:
    where, expected, idle, path, *names = argv
    sys.path[:] = path.split(os.pathsep)
    if resident.key() != expected or not resident.private(where):
        return 0  # started with another interpreter state than the client's: useless
    lock = os.open(os.path.join(where, "lock"), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another server of this folder is starting or serving
    preload((*HOOK_PATH, *BEHAVIOUR, *FORK_SIDE, *names))
    server = Server(where, float(idle))
    signal.signal(signal.SIGTERM, server.stop)
    try:
        run = server.serve()
    except BaseException:
        server.unbind()
        raise
    if run is None:
        server.unbind()
        return 0
    os.close(lock)
    child_main(run)
    return 3  # not reached: the child ends in child_main


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
