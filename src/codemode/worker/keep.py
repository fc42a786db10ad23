"""The project's own modules a warm worker keeps imported between runs, keyed by content (#36).

Stdlib only; runs in the warm worker (``warm.py``) and in the children it forks.

A spec'd module that imports an unchanged module of the project itself (a settings module, a
table loaded at import) paid that import on every hook run, on both sides of the behaviour
diff: the warm worker kept only site-packages. Now it also imports the project modules earlier
runs imported (``learned-project``), from the repository's work tree, behind the wall, and
records for each one what it was made from:

- its source and every other file of the project it opened while its module code ran (a table
  read at import), by content;
- the project modules it imports (its import statements, anywhere in it, and the modules first
  imported while it ran) and its parent packages.

A child forked for a run compares each kept module's files with the same paths in the run's
tree (the staged tree, or the old side's), and keeps a module only when its files are the
same bytes and every module it depends on is kept: an edited module, and everything that
imports it, is imported afresh from the run's tree, so each side of the diff sees its own
version. A kept module's paths (``__file__``, a package's ``__path__``, its spec and loader)
are moved to the run's tree, so what it imports later and what it reads by ``__file__`` come
from there. The warm worker brings its own copy up to date after a run the same way.

Not seen: a module that reads outside the project at import (an environment variable, a
file elsewhere) is kept with what it read when the warm worker imported it; such a change of
the world replaces the warm worker only when it is one ``warm.World`` watches.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LEARNED = "learned-project"  # project module names earlier runs imported, one a line
# A module whose import takes longer is not kept: runs wait for the warm worker while it
# imports (warm_client.ANSWER_SECONDS), and one that hangs at import must not hold them all.
IMPORT_SECONDS = 30.0


class Entry:
    """One kept module: its files (path relative to the project root -> bytes, None for a
    file that was not there) and the project modules it depends on."""

    __slots__ = ("deps", "files")

    def __init__(self) -> None:
        self.files: dict[str, bytes | None] = {}
        self.deps: set[str] = set()


class Recorder:
    """While armed, the project files each running module body opens (an audit hook: it
    cannot be removed, so it does nothing unless armed)."""

    def __init__(self, home: str) -> None:
        self.home = os.path.realpath(home) + os.sep
        self.opened: dict[str, set[str]] = {}  # module name -> real paths opened
        # each data file's bytes as it was opened: one edited since must not be recorded
        self.seen: dict[str, bytes | None] = {}
        self.armed = False
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.armed or event != "open" or not isinstance(args[0], str):
            return
        self.armed = False  # realpath and the frames raise no second event here
        try:
            path = os.path.realpath(args[0])
            if is_project_file(path, self.home):
                frame: Any = sys._getframe(1)
                while frame is not None:
                    if frame.f_code.co_name == "<module>":
                        name = frame.f_globals.get("__name__")
                        if isinstance(name, str):
                            self.opened.setdefault(name, set()).add(path)
                            if path not in self.seen and not path.endswith((".py", ".pyc")):
                                self.seen[path] = _read(path)
                    frame = frame.f_back
        finally:
            self.armed = True


def is_project_file(real: str, home: str) -> bool:
    """A file of the project (``home`` ends with a separator): under its root, not in its git
    folder, nor in an interpreter or a site-packages folder inside it."""
    if not real.startswith(home) or real.startswith(home + ".git" + os.sep):
        return False
    parts = real.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return False
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return not any(real.startswith(p + os.sep) for p in prefixes)


def project_modules(home: str) -> dict[str, Any]:
    """name -> module, for every module in ``sys.modules`` whose file is the project's (a
    namespace package has none: it is never kept, and neither is anything under it)."""
    home = os.path.realpath(home) + os.sep
    out = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("_codemode_worker") or name == "__main__":
            continue
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and is_project_file(os.path.realpath(path), home):
            out[name] = module
    return out


# --- in the warm worker ----------------------------------------------------------------


class Keeper:
    """The project modules this warm worker holds, and what each was made from."""

    def __init__(self, home: str) -> None:
        self.home = os.path.realpath(home)
        self.table: dict[str, Entry] = {}
        self.tried: set[str] = set()  # names imported or found failing: not tried again
        self.fresh: set[str] = set()  # project modules first imported while recorded
        self.recorder: Recorder | None = None
        self.ends = Ends(self.home)  # each module's state as its body ended

    def load(self, names: list[str], paths: list[str], stopped: Any = None) -> None:
        """Import ``names`` from the work tree (its source roots first on ``sys.path`` for
        the while); keep those that imported cleanly. ``stopped()``: how many calls the wall
        refused so far (a module whose import the wall stopped is not kept)."""
        import importlib

        if self.recorder is None:
            self.recorder = Recorder(self.home)
        self.recorder.seen.clear()  # this import's reads, not an earlier one's (a file edited since)
        roots = [os.path.join(self.home, p) for p in paths] + [self.home]
        saved_path, saved_flag = list(sys.path), sys.dont_write_bytecode
        sys.path[:0] = [r for r in roots if os.path.isdir(r)]
        sys.dont_write_bytecode = True  # the work tree is the user's: no __pycache__ in it
        sys.meta_path.insert(0, self.ends)
        try:
            for name in names:
                if name in self.tried:
                    continue
                self.tried.add(name)
                before, refused = set(sys.modules), stopped() if stopped else 0
                self.recorder.armed = True
                try:
                    with _Deadline(IMPORT_SECONDS):
                        importlib.import_module(name)
                    ok = not stopped or stopped() == refused
                except BaseException:  # a module that cannot load here is only not kept
                    ok = False
                finally:
                    self.recorder.armed = False
                new = set(project_modules(self.home)) - before
                if not ok:  # its project modules go; a C extension is never imported twice
                    for name in new:
                        _drop(name)
                else:
                    self.fresh |= new
        finally:
            sys.meta_path.remove(self.ends)
            sys.path[:], sys.dont_write_bytecode = saved_path, saved_flag
        self._index()

    def _index(self) -> None:
        """An entry for each project module now held that has none; modules not recorded
        (a dependency imported one while the warm worker preloaded) are dropped."""
        assert self.recorder is not None
        held = {n: m for n, m in project_modules(self.home).items() if n in self.fresh}
        home = self.home + os.sep
        for name, module in held.items():
            if name in self.table or self.ends.changed(module):
                continue  # changed by a module imported after it: its state is not its own
            entry = Entry()
            own = os.path.realpath(module.__file__)
            sources = set()  # modules first imported while this one ran
            steady = True  # every file it was made from still holds the bytes it was made from
            for path in self.recorder.opened.pop(name, ()):
                source = _source_of(path)
                if source is not None:
                    sources.add(source)
                else:  # a data file it read
                    entry.files[path[len(home) :]] = data = _read(path)
                    steady = steady and self.recorder.seen.get(path, data) == data
            entry.deps = _module_names(sources, held, own) | imports_of(module, held)
            entry.deps |= {p for p in _parents(name) if p in held}
            entry.files[own[len(home) :]] = data = _read(own)
            if not steady or self.ends.sources.get(name) != data:
                continue  # edited as it was imported: its code may be the old bytes' (#36)
            self.table[name] = entry
        for name in [n for n in self.table if n not in held or self.ends.changed(held[n])]:
            del self.table[name]
        for name in set(project_modules(self.home)) - set(self.table):
            _drop(name)

    def update(self, folder: str, worker: dict[str, Any], base: str | None) -> str | None:
        """Bring the held modules up to date with the work tree and import what earlier runs
        learned (``folder/learned-project``), behind the wall of a run like ``worker`` (its
        argv and source roots), raised here once. Returns where runs' scratch folders may lie
        (``base``; "" for no wall)."""
        names = (_read(os.path.join(folder, LEARNED)) or b"").decode("utf-8", "replace").split()
        if not names:
            return base
        if base is None:
            base = raise_wall(folder, [str(a) for a in worker.get("argv") or ()])
        stopped = None
        if base:
            from . import wall

            def stopped() -> int:
                return wall.STATE.refused

        self.refresh()
        self.load(names, [str(p) for p in worker.get("paths") or ()], stopped)
        return base

    def outside(self, base: str | None, argv: Any) -> str | None:
        """Why a run cannot fork from here: its scratch folder lies beyond what this warm
        worker's wall (inherited by its children) lets them write."""
        scratch = flags(argv).get("--scratch", [""])[0] if base else ""
        if base and scratch and not os.path.realpath(scratch).startswith(base + os.sep):
            return f"the run's scratch folder is outside {base}"
        return None

    def refresh(self) -> None:
        """Drop what the work tree no longer matches (and what depends on it), so the next
        ``load`` imports it afresh."""
        for name in stale(self.table, self.home):
            self.table.pop(name, None)
            self.tried.discard(name)
            self.fresh.discard(name)
            _drop(name)


class Ends:
    """A meta-path finder, first while the warm worker imports the project's modules: each
    one's loader is wrapped, so that its state is noted as its body ends. A module whose state
    differs later was changed by another one's import (a registry a plugin adds itself to, a
    setting patched by its importer): a run that imports that other one afresh would add to
    it again, so it is not kept."""

    def __init__(self, home: str) -> None:
        self.home = home + os.sep
        self.shapes: dict[str, Any] = {}
        self.sources: dict[str, bytes | None] = {}  # each module's source as its body began
        self.busy = False

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if self.busy:
            return None
        self.busy = True
        spec: Any = None
        try:
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                spec = find(name, path, target) if finder is not self and find else None
                if spec is not None:
                    break
        finally:
            self.busy = False
        origin = getattr(spec, "origin", None)
        loader = getattr(spec, "loader", None)
        mine = isinstance(origin, str) and is_project_file(os.path.realpath(origin), self.home)
        if mine and hasattr(loader, "exec_module"):
            spec.loader = _Ending(loader, self)
        return spec

    def ended(self, module: Any) -> None:
        self.shapes[module.__name__] = shape(module)

    def changed(self, module: Any) -> bool:
        return bool(self.shapes.get(module.__name__) != shape(module))


class _Ending:
    """A loader that tells ``Ends`` when the module's body has run (and puts the real
    loader back on the module first, where the module and its readers look for it)."""

    def __init__(self, real: Any, ends: Ends) -> None:
        self.real, self.ends = real, ends

    def create_module(self, spec: Any) -> Any:
        return self.real.create_module(spec)

    def exec_module(self, module: Any) -> None:
        module.__loader__ = self.real
        if module.__spec__ is not None:
            module.__spec__.loader = self.real
        path = getattr(module, "__file__", None)  # read before the loader: ``Keeper._index``
        self.ends.sources[module.__name__] = _read(path) if isinstance(path, str) else None
        self.real.exec_module(module)
        self.ends.ended(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def shape(module: Any) -> Any:
    """What another module's import could change in ``module``: which object each name holds,
    the size of its containers, the same of its classes' attributes, and the version tags of
    the dicts it holds (dictversions.py). Submodules bound on a package are left out: the
    import system binds them as they load."""
    import types

    items: list[Any] = []
    dicts = []
    for key, value in list(vars(module).items()):
        if isinstance(value, types.ModuleType) or key == "__builtins__":
            continue
        items.append((key, id(value), _extent(value)))
        if isinstance(value, dict):
            dicts.append(value)
        if isinstance(value, type) and value.__module__ == module.__name__:
            items += [(key, a, id(v), _extent(v)) for a, v in list(vars(value).items())]
    from . import dictversions

    tags = dictversions.watch(dicts)
    return tuple(items), tags.read() if tags is not None else b""


def _extent(value: Any) -> int:
    return len(value) if isinstance(value, (list, dict, set, bytearray)) else -1


class _Late(Exception):
    pass


class _Deadline:
    """SIGALRM after ``seconds`` in the block: it raises there, and the import fails."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        import signal

        def late(*_: Any) -> None:
            raise _Late(f"the import took over {self.seconds:g} s")

        self.old = signal.signal(signal.SIGALRM, late)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *_: Any) -> None:
        import signal

        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.old)


def flags(argv: Any) -> dict[str, list[str]]:
    """A worker's ``--flag value`` pairs (runtime._Args), each flag's values in order."""
    out: dict[str, list[str]] = {}
    items = [str(a) for a in argv or ()]
    for flag, value in zip(items[::2], items[1::2]):
        out.setdefault(flag, []).append(value)
    return out


def raise_wall(folder: str, argv: list[str]) -> str:
    """The wall (#31) in the warm worker, before it imports any of the project's code: the
    audit hook with a scratch folder of its own, and Landlock granting writes beneath its
    folder, the project's allowed places, the bytecode cache and the folder the runs' scratch
    folders are made in (each run's child narrows that to its own). Returns that folder, or
    "" where runs raise no wall."""
    opts = flags(argv)
    scratch = opts.get("--scratch", [""])[0]
    if not scratch:
        return ""
    from . import wall

    own = os.path.join(folder, "scratch")
    for path in (own, os.path.join(own, "tmp")):  # makedirs gives only the last one its mode
        os.makedirs(path, mode=0o700, exist_ok=True)
    writes = opts.get("--allow-write", [])
    effects = opts.get("--allow-effect", [])
    wall.up(own, wall.Effects(tuple(writes), "subprocess" in effects, "network" in effects))
    base = os.path.dirname(os.path.dirname(os.path.realpath(scratch)))
    if os.environ.get("CODEMODE_WORKER_LANDLOCK") != "0":
        from . import landlock

        places = wall.folders(own, writes + opts.get("--also-write", []))
        landlock.restrict([*places, base, folder, *opts.get("--bytecode", [])])
    return base


def _source_of(path: str) -> str | None:
    """The source file a module was loaded from, for a path the import system opened."""
    if path.endswith(".py"):
        return path
    folder, base = os.path.split(path)
    if os.path.basename(folder) == "__pycache__" and base.endswith(".pyc"):
        return os.path.join(os.path.dirname(folder), base.split(".", 1)[0] + ".py")
    return None


def _module_names(sources: set[str], held: dict[str, Any], own: str) -> set[str]:
    by_file = {os.path.realpath(m.__file__): n for n, m in held.items()}
    return {by_file[s] for s in sources if s != own and s in by_file}


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imports_of(module: Any, held: dict[str, Any]) -> set[str]:
    """The held modules ``module``'s import statements name, anywhere in it."""
    import ast

    try:
        with open(module.__file__, "rb") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return set(held)  # unreadable now: depends on everything, so kept only while all are
    package = getattr(module, "__package__", None) or ""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.update([*_parents(alias.name), alias.name])
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([p for p in up if p] + ([base] if base else []))
            names.update([*_parents(base), base])
            names.update(f"{base}.{a.name}" if base else a.name for a in node.names)
    return {n for n in names if n in held and n != module.__name__}


def stale(table: dict[str, Entry], root: str, old: OldSide | None = None) -> set[str]:
    """The kept modules whose files differ under ``root`` (or from a change's ``old`` side),
    and those that depend on them."""
    out = {
        name
        for name, entry in table.items()
        if any(_bytes(root, rel, old) != data for rel, data in entry.files.items())
    }
    grew = True
    while grew:
        grew = False
        for name, entry in table.items():
            if name not in out and (entry.deps & out or entry.deps - table.keys()):
                out.add(name)
                grew = True
    return out


class OldSide:
    """A change's old side (``old_imports.py``): the work tree, but for the modules the change
    touched, whose old source lies in the manifest's folder, and those it added (absent)."""

    def __init__(self, manifest: str) -> None:
        import json

        with open(manifest, encoding="utf-8") as f:
            data = json.load(f)
        self.folder = os.path.dirname(manifest)
        self.files = frozenset(str(r) for r in data.get("files", ()))
        self.hidden = frozenset(str(r) for r in data.get("hidden", ()))


def _bytes(root: str, rel: str, old: OldSide | None) -> bytes | None:
    """The content of the project's file ``rel`` (``/``-separated) on a run's side."""
    key = rel.replace(os.sep, "/")
    if old is not None and key in old.hidden:
        return None
    if old is not None and key in old.files:
        return _read(os.path.join(old.folder, *key.split("/")))
    return _read(os.path.join(root, rel))


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


# --- in a child, before its run ----------------------------------------------------------


def project_names(root: str, paths: list[str]) -> set[str]:
    """Top-level module names the project itself defines (files and folders under its
    roots): whatever is in ``sys.modules`` under these names is the project's own."""
    names = set()
    for d in [root, *(os.path.join(root, p) for p in paths)]:
        try:
            entries = os.listdir(d)
        except OSError:
            continue
        for e in entries:
            if e.endswith(".py"):
                names.add(e[:-3])
            elif e.isidentifier() and os.path.isdir(os.path.join(d, e)):
                names.add(e)
    return names


def forget_project(
    root: str, paths: list[str], held: Keeper | None = None, argv: Any = None
) -> None:
    """Drop the project's modules from ``sys.modules`` (in a child, before its run): one a
    dependency pulled in while preloading is imported afresh from the tree under check. Those
    ``held`` keeps (a ``keep.Keeper``) stay where the run's side matches them (#36): its tree,
    and for a change's old side (``--old-side`` in the worker's ``argv``) the old content."""
    from .warm import interpreter_prefixes, kept  # warm imports this module: not at the top

    names = project_names(root, paths)
    prefixes = interpreter_prefixes()
    table = held.table if held is not None else {}
    for name, module in list(sys.modules.items()):
        if name.startswith("_codemode_worker") or name == "__main__" or name in table:
            continue
        if name.split(".", 1)[0] in names or not kept(module, prefixes):
            _drop(name)
    if held is not None and table:
        manifest = flags(argv).get("--old-side", [""])[0]
        settle(table, held.home, root, OldSide(manifest) if manifest else None)


def settle(table: dict[str, Entry], home: str, root: str, old: OldSide | None = None) -> None:
    """Keep the held project modules that ``root`` (the run's tree; ``old``: a change's old
    side in it) still matches, moved to it; drop the others, so the run imports them."""
    home, root = os.path.realpath(home), os.path.realpath(root)
    gone = stale(table, root, old)
    held = project_modules(home)
    for name, module in held.items():
        if name in gone or name not in table:
            _drop(name)
        elif root != home:
            _move(module, home, root)


def _drop(name: str) -> None:
    module = sys.modules.pop(name, None)
    parent, _, child = name.rpartition(".")
    # a kept package still names it: `from shop import heavy` would find the old one
    if module is not None and getattr(sys.modules.get(parent), child, None) is module:
        delattr(sys.modules[parent], child)


def _move(module: Any, home: str, root: str) -> None:
    """A kept module's paths, from the work tree to the run's tree."""

    def moved(path: Any) -> Any:
        if not isinstance(path, str):
            return path
        real = os.path.realpath(path)
        if real == home or real.startswith(home + os.sep):
            return root + real[len(home) :]
        return path

    module.__file__ = moved(module.__file__)
    module.__dict__.pop("__cached__", None)
    if isinstance(getattr(module, "__path__", None), list):
        module.__path__ = [moved(p) for p in module.__path__]
    spec = getattr(module, "__spec__", None)
    if spec is not None:
        spec.origin = moved(spec.origin)
        spec.cached = None
        if isinstance(spec.submodule_search_locations, list):
            spec.submodule_search_locations[:] = [moved(p) for p in spec.submodule_search_locations]
        loader = spec.loader
        if hasattr(loader, "path"):
            loader.path = moved(loader.path)


# --- at a worker's end ---------------------------------------------------------------------


def write_learned(folder: str, root: str) -> None:
    """Add the project modules this run held to ``folder/learned-project``."""
    add_names(os.path.join(folder, LEARNED), sorted(project_modules(root)))


def add_names(path: str, names: list[str]) -> None:
    """Add ``names`` to the list in ``path`` (one a line, in the order first seen), atomically."""
    if not names:
        return
    known = (_read(path) or b"").decode("utf-8", "replace").split()
    seen = set(known)
    new = [n for n in names if n not in seen]
    if not new:
        return
    tmp = f"{path}.{os.getpid()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("\n".join(known + new) + "\n")
        os.replace(tmp, path)
    except OSError:
        pass  # the cache is an optimization: the next run learns again
