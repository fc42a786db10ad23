"""The parent's side of the warm worker (``warm.py``): find it, trust it or not, start it.

``WarmWorker`` is a ``Worker`` whose process, when a warm worker of this repository is
listening, is a child that warm worker forked for this run: the pipes are made here and passed
over the socket, so everything after the handshake (the protocol, timeouts, kills, replies
checked against their schema) is the ordinary worker's. When none is listening, or it cannot
be trusted, or it asks to be replaced, the run starts an ordinary worker as before, which
notes the modules it imported, and a warm worker is started in the background as the run
ends: the first run pays nothing for it, the next ones find the imports done.

Trust: the folder (``<git-dir>/codemode-cache/warm/<key>``) must be a real folder of this
user that nobody else may enter (0700); the socket must be this user's, and the process on
its other end must run as this user (``SO_PEERCRED``). A socket nobody listens on is stale:
a new warm worker replaces it. Anything else is not used, and the run is cold.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from codemode.cachedir import private
from codemode.effects import Effects
from codemode.resident import dial
from codemode.worker import orphans
from codemode.worker.pool import RUNTIME_SCRIPT, Worker

FOLDER = "warm"
SOCKET = "sock"  # the names warm.py uses
LEARNED = "learned"
SEED = "seed"  # the hash seed of the repository's warm workers (see shared_seed)
# A run waits this long for the warm worker's answer: it may still be importing what earlier
# runs learned, which the run would otherwise import itself.
ANSWER_SECONDS = 120.0
_STARTED: list[subprocess.Popen[bytes]] = []  # kept, so no Popen is collected while it runs
_STARTED_FOR: set[Path] = set()  # the folders this process started a warm worker in


def usable() -> bool:
    """The warm worker needs Linux's peer credentials, pidfds and descriptor passing."""
    return (
        sys.platform.startswith("linux")
        and hasattr(socket, "send_fds")
        and hasattr(os, "pidfd_open")
    )


def folder_for(cache: Path, python: str, env: Mapping[str, str]) -> Path | None:
    """The warm worker's folder for this interpreter and environment (the hash seed among
    them: a run that fixes it gets a warm worker of its own), or None if it is not private."""
    try:
        from _blake2 import blake2b  # not hashlib: it loads OpenSSL, ~4 ms of a hook run
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import blake2b
    key = blake2b(json.dumps([python, sorted(env.items())]).encode(), digest_size=8).hexdigest()
    warm = cache / FOLDER
    if not (private(cache / FOLDER) and private(warm / key)):
        return None
    return warm / key


def shared_seed(cache: Path) -> str | None:
    """The hash seed every warm worker of this repository runs with, chosen at random once
    (``<cache>/warm/seed``); None where there is no private folder for it.

    A forked child keeps its parent's hash seed, so a warm worker serves one seed only, and
    its folder is keyed by the environment, the seed among it. A seed picked afresh by each
    run (the behaviour diff gives both sides one, #18) found a new folder every run: nothing
    was ever served warm (#20). Runs that leave the seed to codemode take this one instead;
    a ``PYTHONHASHSEED`` the user fixed is kept, and gets a warm worker of its own."""
    warm = cache / FOLDER
    if not private(warm):
        return None
    path = warm / SEED
    with contextlib.suppress(OSError, UnicodeDecodeError):
        text = path.read_text(encoding="utf-8").strip()
        if text.isdigit():
            return text
    import random

    seed = str(random.SystemRandom().randrange(1, 2**32))
    tmp = warm / f"{SEED}.{os.getpid()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(seed + "\n")
        os.link(tmp, path)  # the first run to write it wins; the others read its seed
    except FileExistsError:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            text = path.read_text(encoding="utf-8").strip()
            seed = text if text.isdigit() else seed
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return seed


def connect(folder: Path, timeout: float = 2.0) -> socket.socket | None:
    """A connection to the warm worker listening in ``folder``, if one is and it is this
    user's; None for no socket, a stale one (nobody listening), or one not to be trusted."""
    return dial(str(folder), SOCKET, socket.socket, timeout)


class Remote:
    """A worker the warm worker forked for this run: what ``Worker`` needs of a Popen. Its
    parent is the warm worker, which kills its group when told (or when this side's
    connection closes) and writes ``exit N`` when it has reaped it."""

    def __init__(self, pid: int, control: socket.socket, fds: tuple[int, int, int], buf: bytes):
        self.pid = pid
        self.control = control
        self.stdin: IO[bytes] | None = os.fdopen(fds[0], "wb")
        self.stdout: IO[bytes] | None = os.fdopen(fds[1], "rb")
        self.stderr: IO[bytes] | None = os.fdopen(fds[2], "rb")
        self.returncode: int | None = None
        self.buf = buf

    def _read(self, timeout: float | None) -> None:
        while self.returncode is None and b"\n" not in self.buf:
            if not select.select([self.control], [], [], timeout)[0]:
                return
            try:
                chunk = self.control.recv(256)
            except OSError:
                chunk = b""
            if not chunk:  # the warm worker is gone, and its child with it
                self.returncode = -9
                return
            self.buf += chunk
        if self.returncode is None:
            line = self.buf.split(b"\n", 1)[0]
            try:
                self.returncode = int(line.split()[1])
            except (IndexError, ValueError):
                self.returncode = -9
            self.control.close()

    def poll(self) -> int | None:
        self._read(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise subprocess.TimeoutExpired("codemode worker", timeout or 0)
            self._read(remaining)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(OSError):
                self.control.sendall(b"kill\n")


def _line(s: socket.socket, timeout: float) -> tuple[dict[str, Any] | None, bytes]:
    """The warm worker's one-line answer, and what came after it."""
    buf = b""
    deadline = time.monotonic() + timeout
    while b"\n" not in buf:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([s], [], [], remaining)[0]:
            return None, b""
        chunk = s.recv(4096)
        if not chunk:
            return None, b""
        buf += chunk
    line, rest = buf.split(b"\n", 1)
    try:
        answer = json.loads(line)
    except ValueError:
        return None, b""
    return (answer if isinstance(answer, dict) else None), rest


class WarmWorker(Worker):
    """A ``Worker`` forked from this repository's warm worker when one is listening."""

    def __init__(
        self,
        python: str,
        root: Path,
        source_roots: tuple[str, ...],
        *,
        cache: Path,
        home: Path,
        settings: str,
        idle: float,
        timeout: float = 10.0,
        memory_mb: int = 2048,
        pass_env: tuple[str, ...] = (),
        allow_callables: tuple[str, ...] = (),
        bytecode: Path | None = None,
        effects: Effects | None = None,
    ) -> None:
        super().__init__(
            python,
            root,
            source_roots,
            timeout=timeout,
            memory_mb=memory_mb,
            pass_env=pass_env,
            allow_callables=allow_callables,
            bytecode=bytecode,
            effects=effects,
        )
        self.cache, self.home, self.settings, self.idle = cache, home, settings, idle
        if usable() and not self.env.get("PYTHONHASHSEED", "").isdigit():
            seed = shared_seed(cache)  # one warm worker for every run that leaves it to us
            if seed is not None:
                self.env["PYTHONHASHSEED"] = seed
        self.folder: Path | None = None
        self.start_after = False  # no warm worker answered: start one as this run ends

    def arguments(self) -> list[str]:
        args = super().arguments()
        if self.folder is not None:
            args += ["--learn", str(self.folder / LEARNED)]
        return args

    def spawn(self) -> None:
        self.folder = folder_for(self.cache, self.python, self.env) if usable() else None
        remote = self._remote() if self.folder is not None else None
        if remote is None:
            self.start_after = self.folder is not None
            super().spawn()
            return
        orphans.adopt_orphans()
        self.attach(remote)

    def _remote(self) -> Remote | None:
        assert self.folder is not None
        s = connect(self.folder)
        if s is None:
            return None
        request = {
            "op": "run",
            "settings": self.settings,
            "argv": self.arguments(),
            "env": dict(self.env),
            "root": str(self.root),
            "paths": list(self.source_roots),
        }
        r0, w0 = os.pipe()
        r1, w1 = os.pipe()
        r2, w2 = os.pipe()
        ours, theirs = (w0, r1, r2), (r0, w1, w2)  # stdin's write end, stdout's read end...
        answer, rest = None, b""
        try:
            socket.send_fds(s, [json.dumps(request).encode() + b"\n"], list(theirs))
            answer, rest = _line(s, ANSWER_SECONDS)
        except OSError:
            pass
        finally:
            for fd in theirs:
                os.close(fd)
        pid = answer.get("pid") if answer else None
        if isinstance(pid, int) and pid > 0:
            return Remote(pid, s, ours, rest)
        for fd in ours:
            os.close(fd)
        s.close()
        return None

    def close(self) -> None:
        super().close()
        if self.start_after and self.folder is not None:
            self.start_after = False
            worker = {"argv": self.arguments(), "paths": list(self.source_roots)}
            start(self.python, self.folder, self.home, self.settings, self.idle, self.env, worker)


def start(
    python: str,
    folder: Path,
    home: Path,
    settings: str,
    idle: float,
    env: Mapping[str, str],
    worker: Mapping[str, object] | None = None,
) -> None:
    """Start a warm worker in ``folder``, in the background (it takes its folder's lock, and
    leaves at once if another is already listening). Once per process: the check's worker and
    both sides of the diff each found none, and each start is an interpreter's start-up
    competing with the end of the run. ``worker``: the run's worker arguments and source
    roots, so it can raise the same wall and import the project's modules as it starts."""
    if folder in _STARTED_FOR:
        return
    _STARTED_FOR.add(folder)
    cmd = [python, str(RUNTIME_SCRIPT), "--serve", str(folder), "--root", str(home)]
    cmd += ["--settings", settings, "--idle", str(idle)]
    if worker is not None:
        cmd += ["--worker", json.dumps(worker)]
    with contextlib.suppress(OSError):
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=dict(env),
            cwd=home,
            start_new_session=True,
        )
        _STARTED.append(proc)
        orphans.SPARED.add(proc.pid)


def _folders(cache: Path) -> list[Path]:
    warm = cache / FOLDER
    if not private(warm, create=False):
        return []
    return sorted(p for p in warm.iterdir() if private(p, create=False))


def ask_all(cache: Path, op: str) -> list[dict[str, object]]:
    """``op`` (``stop`` or ``status``) to every warm worker of the repository whose cache is
    ``cache``; their answers. A stale socket is removed on the way."""
    out = []
    for folder in _folders(cache):
        s = connect(folder)
        if s is None:
            with contextlib.suppress(OSError):
                if stat.S_ISSOCK(os.lstat(folder / SOCKET).st_mode):
                    (folder / SOCKET).unlink()  # nobody listens: stale
            continue
        with s, contextlib.suppress(OSError):
            socket.send_fds(s, [json.dumps({"op": op}).encode() + b"\n"], [])
            answer, _ = _line(s, 5.0)
            if answer is not None:
                out.append({**answer, "folder": str(folder)})
        if op == "stop":
            _wait_gone(folder)
    if op == "stop":
        out += _stop_unreachable(cache, {a.get("stopped") for a in out})
    return out


def _stop_unreachable(cache: Path, stopped: set[object]) -> list[dict[str, object]]:
    """The warm workers whose folder is no longer private (or readable, or there): runs
    refuse them, and ``stop`` still stops them, found by their processes (#33)."""
    if not usable():
        return []
    from codemode.worker import warm_procs

    found = {p: f for p, f in warm_procs.serving(cache / FOLDER).items() if p not in stopped}
    return [{"stopped": p, "folder": found[p]} for p in warm_procs.stop(sorted(found))]


def _wait_gone(folder: Path, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while (folder / SOCKET).exists() and time.monotonic() < deadline:
        time.sleep(0.01)
