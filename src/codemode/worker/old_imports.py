"""The old side of a change, in the worker that runs it (#33). Stdlib only: runs in the worker.

The old side's worker runs in the work tree, as the new side's does: every file the change
did not touch is the same on both sides, and what git does not track (a generated,
gitignored ``_version.py``, a build output, a submodule's checkout on sys.path) is there for
both. What the change did touch comes from a manifest codemode wrote beside the old content
of the changed modules (``change/old_side.py``): a finder placed before the standard one
serves those modules from their old source, and does not find the modules the change added.

A served module keeps its place in the work tree: its ``__file__``, its package's
``__path__`` and its code's file name are the work tree's, so the project's checks by path
(``policy.in_project``, the clock watch), a data file read next to ``__file__`` and the
submodules the change did not touch resolve as they do on the new side. Its bytecode is
never a timestamped ``.pyc`` (that would be keyed by the work tree's file, the new source):
compiled, or taken from the private cache keyed by the source's digest (``bytecode.py``),
where the old and the new source never share an entry.
"""

from __future__ import annotations

import json
import os
import sys
from importlib.machinery import ModuleSpec, PathFinder, SourceFileLoader

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


class OldLoader(SourceFileLoader):
    """A changed module's old source (the file ``data``), as if at ``path`` in the work tree."""

    def __init__(self, fullname: str, path: str, data: str) -> None:
        super().__init__(fullname, path)
        self.data = data

    def get_data(self, path: str) -> bytes:
        if path == self.path:
            with open(self.data, "rb") as f:
                return f.read()
        return super().get_data(path)

    def path_stats(self, path: str) -> Any:
        # no timestamped bytecode, read or written: the work tree's .pyc is the new source's
        raise OSError("the old side's source has no bytecode of its own")

    def get_code(self, fullname: str) -> Any:
        from . import bytecode

        if bytecode._State.folder:  # the private cache, keyed by the source's digest
            return bytecode.ProjectLoader.get_code(self, fullname)  # type: ignore[arg-type]
        return super().get_code(fullname)


def _name(rel: str) -> str:
    """The last part of the module name a file gives: ``pkg/mod.py`` -> ``mod``,
    ``pkg/__init__.py`` -> ``pkg``."""
    head, _, base = rel.rpartition("/")
    if base == "__init__.py":
        return head.rpartition("/")[2]
    return base[: -len(".py")]


class OldFinder:
    """Finds the changed modules' old versions and hides the added ones; any other name is
    left to the standard finder, at once (a set lookup per import)."""

    def __init__(self, folder: str, repo: str, files: Sequence[str], hidden: Sequence[str]):
        self.folder, self.repo = folder, os.path.realpath(repo)
        self.files, self.hidden = frozenset(files), frozenset(hidden)
        self.names = frozenset(_name(r) for r in self.files | self.hidden)
        self._prefixes: dict[str, str | None] = {}

    def _prefix(self, entry: str) -> str | None:
        """``entry`` (a sys.path or ``__path__`` folder) relative to the repository, as a
        prefix of repository paths (``src/``); None outside it."""
        if entry in self._prefixes:
            return self._prefixes[entry]
        real = os.path.realpath(entry or ".")
        out: str | None = None
        if real == self.repo:
            out = ""
        elif real.startswith(self.repo + os.sep):
            out = real[len(self.repo) + 1 :].replace(os.sep, "/") + "/"
        self._prefixes[entry] = out
        return out

    def _served(self, fullname: str, rel: str, package: bool) -> ModuleSpec:
        place = os.path.join(self.repo, *rel.split("/"))
        loader = OldLoader(fullname, place, os.path.join(self.folder, *rel.split("/")))
        spec = ModuleSpec(fullname, loader, origin=place, is_package=package)
        spec.has_location = True
        if package:
            spec.submodule_search_locations = [os.path.dirname(place)]
        return spec

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        tail = fullname.rpartition(".")[2]
        if tail not in self.names:
            return None
        hid = False
        for entry in sys.path if path is None else path:
            prefix = self._prefix(entry) if isinstance(entry, str) else None
            if prefix is None:  # not the repository's: as the standard finder has it
                found = PathFinder.find_spec(fullname, [entry])
                if found is not None and found.has_location:
                    return found
                continue
            package, module = f"{prefix}{tail}/__init__.py", f"{prefix}{tail}.py"
            if package in self.files:
                return self._served(fullname, package, True)
            found = None if package in self.hidden else PathFinder.find_spec(fullname, [entry])
            if found is not None and found.has_location and found.submodule_search_locations:
                return found  # a package the change did not touch: it comes first
            if module in self.files:
                return self._served(fullname, module, False)
            hid = hid or package in self.hidden or module in self.hidden
            if found is not None and found.has_location and module not in self.hidden:
                return found
        if hid:
            # added by the change: on the old side it does not exist
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None  # a namespace package, or nothing: the standard finder decides

    def invalidate_caches(self) -> None:
        self._prefixes.clear()


def install(manifest: str) -> None:
    """Serve the old side that ``manifest`` (``change/old_side.py``'s) describes."""
    with open(manifest, encoding="utf-8") as f:
        data = json.load(f)
    finder = OldFinder(os.path.dirname(manifest), data["repo"], data["files"], data["hidden"])
    at = next((i for i, f in enumerate(sys.meta_path) if f is PathFinder), len(sys.meta_path))
    sys.meta_path.insert(at, finder)  # type: ignore[arg-type]
    folder = os.path.dirname(manifest)
    old_data = {
        os.path.join(data["repo"], rel): os.path.join(folder, rel) for rel in data.get("data", ())
    }
    if old_data:
        _open_old_data(old_data)


def _open_old_data(old_data: dict[str, str]) -> None:
    """``open()`` of a data file the change edited reads its old content (#32): a table the
    code loads next to ``__file__`` is the old side's, as its modules are. Reads only; any
    other path, and every write, goes to the real ``open`` unchanged."""
    import builtins
    import io

    real = io.open

    def open_old(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, os.PathLike)) and not any(c in mode for c in "wax+"):
            file = old_data.get(os.path.abspath(os.fspath(file)), file)
        return real(file, mode, *args, **kwargs)

    builtins.open = io.open = open_old  # type: ignore[assignment]
