"""The run's scratch folder: the one place the code codemode calls may write (#31).

One folder per codemode run, under the system's temp folder and named with the run's pid
(``codemode-scratch-<pid>-*``); each worker process gets a fresh folder inside it, whose
``tmp`` is the worker's ``TMPDIR``/``TEMP``/``TMP`` (so ``tempfile`` works behind the wall)
and whose ``fixtures`` holds the ``tmp_path`` folders. The run's folder is removed when the
run ends (at exit, which Ctrl-C and SIGTERM reach through the CLI's handlers), a worker's when
the worker is replaced, and a run finds and removes what a killed run left (its pid is gone).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from codemode.effects import Effects

PREFIX = "codemode-scratch-"
_RUN: list[tuple[int, Path]] = []  # (the pid that made it, the folder): one per run
_MAKING = threading.Lock()  # regen's explorations start workers from several threads


def run_folder() -> Path:
    """The run's scratch folder, made on first use. A forked lane (check --jobs) uses its
    parent's: only the process that made it removes it."""
    import tempfile  # with random and shutil: ~4 ms the hook's no-op path never pays

    with _MAKING:
        if _RUN and _RUN[0][1].is_dir():
            return _RUN[0][1]
        base = Path(tempfile.gettempdir())
        sweep(base)
        folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=base))
        _RUN[:] = [(os.getpid(), folder)]
    import atexit

    atexit.register(_at_exit)
    return folder


def _before_fork() -> None:
    """A process about to fork (check's lanes, the diff run ahead) makes the run's folder
    first: its forks leave by ``os._exit``, so a folder one of them made would outlive it."""
    if not _RUN:
        run_folder()


os.register_at_fork(before=_before_fork)


def _at_exit() -> None:
    if _RUN and _RUN[0][0] == os.getpid():
        remove(_RUN[0][1])
        _RUN.clear()


def worker_folder() -> Path:
    """A fresh folder for one worker process, with its ``tmp`` and ``fixtures`` inside."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="w", dir=run_folder()))
    (folder / "tmp").mkdir()
    (folder / "fixtures").mkdir()
    return folder


def remove(folder: Path) -> None:
    """Remove ``folder`` whole, whatever modes the code under test left on what it made."""
    import shutil

    def unlock(func: object, path: str, exc: object) -> None:
        try:
            os.chmod(os.path.dirname(path), 0o700)
            os.chmod(path, 0o700)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass

    shutil.rmtree(folder, onerror=unlock)


def sweep(base: Path) -> int:
    """Remove the scratch folders of runs that are gone (killed before they could); returns
    how many."""
    removed = 0
    try:
        entries = [e for e in os.scandir(base) if e.name.startswith(PREFIX)]
    except OSError:
        return 0
    for entry in entries:
        pid = entry.name[len(PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)) and entry.is_dir(follow_symlinks=False):
            remove(Path(entry.path))
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: theirs, and alive
    return True


def wall_arguments(folder: Path, effects: Effects) -> list[str]:
    """The worker's arguments that raise its wall (runtime._Args)."""
    args = ["--scratch", str(folder)]
    for glob in effects.project.writes:
        args += ["--allow-write", glob]
    for _, allowance in effects.functions:
        for glob in allowance.writes:
            args += ["--also-write", glob]  # Landlock's rules: the union; the hook narrows
    if effects.project.subprocess:
        args += ["--allow-effect", "subprocess"]
    if effects.project.network:
        args += ["--allow-effect", "network"]
    return args


_WALLS: set[str] = set()  # the wall's layers as workers of this run reported them (hello)


def seen(wall: str) -> str:
    """Keep what a worker said of its wall (``runtime._raise_wall``), for ``wall_notes``."""
    _WALLS.add(wall)
    return wall


def wall_notes() -> list[str]:
    """A note for each wall that held less than the audit hook and Landlock: where Landlock is
    missing (macOS, an old kernel, a container that hides it), the run says which layer holds."""
    return [
        f"the wall around the code under test: {w}; a write through ctypes, a C extension or a "
        "child process is not stopped"
        for w in sorted(_WALLS)
        if w.startswith("audit hook only")
    ]
