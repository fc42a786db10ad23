"""The worker's entry script: runs the user's functions in the project's own interpreter.

Stdlib only, and valid on Python 3.10 to 3.13: it runs under whatever interpreter the
project uses, where codemode itself is usually not installed. It is started as a script
(``python runtime.py --root ...``) and speaks JSON lines: requests on stdin, replies on a
private duplicate of the original stdout, while fd 1 is pointed at /dev/null and
``sys.stdout`` at a sink, so the function's own prints never reach the protocol.

The rest of the worker is in stdlib-only siblings of this file: ``canonical`` (canonical
data and the transport), ``typeexpr`` (type expressions), ``policy`` (what a spec may
import), ``fixtures`` (fixtures and serializers), ``clock`` (the moved clock) and ``runner``
(running cases). The parent imports them as ``codemode.worker.*``; here they are loaded as
the package ``_codemode_worker`` from this file's folder (see ``_siblings``).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~4 ms of every start
if TYPE_CHECKING:
    from typing import Any

# The name the siblings are loaded under in the worker. Not on sys.path, and no project
# names a module so: the user's own ``runner`` or ``policy`` module stays theirs.
PACKAGE = "_codemode_worker"
HERE = os.path.dirname(os.path.abspath(__file__))


def _siblings() -> tuple[Any, ...]:
    """``canonical``, ``policy``, ``runner``, imported from a package made of this folder.

    Run as a script, this folder is sys.path[0]: importing the siblings from there would put
    ``runner``, ``policy``... in sys.modules under those plain names, where the project's own
    modules of that name belong. So the folder leaves sys.path first, and the siblings come
    from a package whose only path is this folder; their relative imports find each other,
    exactly as they do under ``codemode.worker`` in the parent.
    """
    import importlib

    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
    if PACKAGE not in sys.modules:
        import importlib.machinery
        import types

        package = types.ModuleType(PACKAGE, "codemode's worker modules (stdlib only)")
        package.__path__ = [HERE]
        package.__spec__ = importlib.machinery.ModuleSpec(PACKAGE, None, is_package=True)
        package.__spec__.submodule_search_locations = [HERE]
        sys.modules[PACKAGE] = package
    return tuple(
        importlib.import_module(f"{PACKAGE}.{n}") for n in ("canonical", "policy", "runner")
    )


if __name__ == "__main__":
    canonical, policy, runner = _siblings()
else:  # imported by the parent (its tests): the very same modules, under codemode.worker
    from . import canonical, policy, runner


def _setup_paths(root: str, extra: list[str]) -> None:
    # this script's folder left sys.path in _siblings: user modules win over anything there
    for p in reversed([os.path.join(root, e) for e in extra] + [root]):
        if os.path.isdir(p) and p not in sys.path:
            sys.path.insert(0, p)
    os.chdir(root)


def _limit_memory(mb: int) -> None:
    try:
        import resource

        limit = mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass  # not on this platform: the parent's timeout still bounds the damage


class _Args:
    """``--root DIR [--path P ...] [--allow MODULE ...] [--memory-mb N] [--learn FILE]
    [--bytecode DIR] [--old-side MANIFEST] [--scratch DIR [--allow-write GLOB ...] [--also-write GLOB ...]
    [--allow-effect subprocess|network ...]]``:
    written by the parent, never by hand, so a few lines instead of argparse (~5 ms of the
    hook's every run)."""

    FLAGS = (
        "--root",
        "--path",
        "--allow",
        "--memory-mb",
        "--learn",
        "--bytecode",
        "--scratch",
        "--old-side",
    )
    LISTS = (  # flags that may come again, and the list each one adds to
        ("--path", "path"),
        ("--allow", "allow"),
        ("--allow-write", "writes"),
        ("--also-write", "also_writes"),
        ("--allow-effect", "effects"),
    )

    def __init__(self, argv: list[str]) -> None:
        self.root = ""
        self.path: list[str] = []
        self.allow: list[str] = []
        self.memory_mb = 0
        self.learn = ""  # where to add the modules this run imported (the warm worker's list)
        self.bytecode = ""  # the private folder of the project's compiled modules (bytecode.py)
        self.old_side = ""  # a change's old side: its manifest (old_imports.py)
        self.scratch = ""  # the one folder its calls may write to (wall.py, #31)
        self.writes: list[str] = []  # globs the project allows writes under
        self.also_writes: list[str] = []  # ... some of its functions (Landlock's rules only)
        self.effects: list[str] = []  # subprocess, network: allowed for the whole project
        it = iter(argv)
        for flag in it:
            value = next(it, None)
            listed = dict(self.LISTS).get(flag)
            if value is None or (flag not in self.FLAGS and listed is None):
                raise SystemExit(f"codemode worker: bad arguments {argv!r}")
            if listed is not None:
                getattr(self, listed).append(value)
            elif flag == "--scratch":
                self.scratch = value
            elif flag == "--root":
                self.root = value
            elif flag == "--learn":
                self.learn = value
            elif flag == "--bytecode":
                self.bytecode = value
            elif flag == "--old-side":
                self.old_side = value
            else:
                self.memory_mb = int(value)
        if not self.root:
            raise SystemExit("codemode worker: --root is required")


def main(argv: list[str] | None = None) -> int:
    a = _Args(sys.argv[1:] if argv is None else argv)
    before = set(sys.modules) if a.learn else set()
    # The protocol gets a private copy of stdout; fd 1 goes to /dev/null so that C-level
    # writes and prints from the user's code can never corrupt a reply line.
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="backslashreplace")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = runner.Discard()
    _setup_paths(a.root, a.path)
    policy.configure(a.root, a.allow)
    if a.bytecode:
        _bytecode().install(a.bytecode, policy.in_project)
    if a.old_side:
        import importlib

        importlib.import_module(f"{__package__ or PACKAGE}.old_imports").install(a.old_side)
    wall = _raise_wall(a) if a.scratch else "none"
    if a.memory_mb:
        _limit_memory(a.memory_mb)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    # CODEMODE_WORKER_FORK=0: the fallback of platforms without fork (the parent respawns).
    run = runner.Runner(
        proto, hasattr(os, "fork") and os.environ.get("CODEMODE_WORKER_FORK") != "0"
    )
    run.wall = wall
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = canonical.loads(line)
        except ValueError as exc:
            run.send({"fatal": "protocol", "message": f"bad request: {exc}"})
            continue
        if req.get("op") == "exit":
            break
        run.line = line
        try:
            run.handle(req)
        except MemoryError:
            run.send({"fatal": "memory", "message": "the worker ran out of memory"})
            return 3
    run.retire()
    if a.bytecode:
        _bytecode().prune()
    if a.learn:
        import importlib

        warm = importlib.import_module(f"{__package__ or PACKAGE}.warm")
        warm.write_learned(a.learn, before)
    return 0


def _raise_wall(a: _Args) -> str:
    """The wall (#31) before any of the project's code runs: temp files in scratch, the audit
    hook, and Landlock where the kernel has it (the worker may also write its bytecode cache
    and the warm worker's list; its forked children only scratch). Returns which layers hold."""
    import importlib

    wall = importlib.import_module(f"{__package__ or PACKAGE}.wall")
    tmp = os.path.join(a.scratch, "tmp")
    for name in ("TMPDIR", "TEMP", "TMP"):
        os.environ[name] = tmp
    if "tempfile" in sys.modules:  # forked from the warm worker, which may have asked before
        sys.modules["tempfile"].tempdir = None
    effects = wall.Effects(tuple(a.writes), "subprocess" in a.effects, "network" in a.effects)
    wall.up(a.scratch, effects)
    if os.environ.get("CODEMODE_WORKER_LANDLOCK") == "0":
        return "audit hook only (Landlock turned off by CODEMODE_WORKER_LANDLOCK=0)"
    landlock = importlib.import_module(f"{__package__ or PACKAGE}.landlock")
    folders = wall.folders(a.scratch, a.writes + a.also_writes)
    wall.STATE.child_folders = folders
    own = [os.path.dirname(a.learn)] if a.learn else []
    why = landlock.restrict(folders + ([a.bytecode] if a.bytecode else []) + own)
    if why:
        return f"audit hook only ({why})"
    wall.STATE.landlock = True
    return f"audit hook + Landlock ABI {landlock.abi()}"


def _bytecode() -> Any:
    import importlib

    return importlib.import_module(f"{__package__ or PACKAGE}.bytecode")


def _exit_now(code: int) -> None:
    """Leave without the interpreter's teardown of every module (~10 ms the parent waits for
    at the end of each hook run). The user's atexit handlers still run; with threads of the
    user's still alive, the ordinary exit joins them instead."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        raise SystemExit(code)
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:  # the warm worker (warm.py), started by the parent
        import importlib

        _exit_now(importlib.import_module(f"{PACKAGE}.warm").serve(sys.argv[1:]))
    _exit_now(main())
