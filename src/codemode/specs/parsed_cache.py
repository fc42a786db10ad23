"""Spec files parsed before, by content (#20): a file unchanged since the last run is read
back, not parsed again.

Parsing YAML with every bound checked costs about 0.12 ms a case (3 s of a 25,000-case
suite's check, most of the parent's time); reading the same records back costs a tenth of
that. An entry is the ``SpecFile`` as plain tuples, dicts and strings in ``marshal`` format
(built in, no code runs on load, and several times faster than pickle), one small file per
spec content under ``<git-dir>/codemode-cache/specs/``, keyed by a digest of:

- the file's text and its repo-relative name (in the records' messages); not its path, which
  is set on the records as they are read back;
- the loader: the size and mtime of codemode's ``specs`` modules and of PyYAML's, and the
  Python version, so an upgrade (or an edit of an editable install) parses afresh.

Trust: entries are read only from a folder of this user that nobody else may enter (0700),
inside the git directory, which no commit can write. A value ``marshal`` cannot hold (a YAML
timestamp is a ``datetime``) leaves that file uncached, parsed each run as before. A corrupt
entry is parsed afresh; a write that fails (a read-only repository, a full disk) turns the
cache off for the rest of the run; ``CODEMODE_SPEC_CACHE=0`` turns it off. Outside a git repository there is no cache: it would
be a folder in the user's project.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from operator import attrgetter
from pathlib import Path
from typing import Any, TypeVar

from codemode.atomic import write_atomic
from codemode.cachedir import cache_folder, digest, private
from codemode.records import field_names
from codemode.specs.types import (
    CaseSpec,
    EvaluatorSpec,
    FixtureSpec,
    FunctionMetaSpec,
    FunctionSpec,
    SerializerSpec,
    SpecFile,
    SpecProblem,
)

SCHEMA = 2  # 2: the path is not part of the key
FOLDER = "specs"
KEEP = 4096  # entries; past this the oldest half goes (a project's specs, many times over)

T = TypeVar("T")
_NAMES: dict[type, tuple[str, ...]] = {
    cls: field_names(cls)
    for cls in (CaseSpec, EvaluatorSpec, FixtureSpec, FunctionMetaSpec, SerializerSpec)
}
_GET: dict[type, Any] = {cls: attrgetter(*names) for cls, names in _NAMES.items()}
_FUNCTION = field_names(FunctionSpec)
_STAMP: list[bytes] = []  # the loader's stamp, computed once per process


def _make(cls: type[T], values: tuple[Any, ...], names: tuple[str, ...] | None = None) -> T:
    """A frozen record from its field values, without running its ``__init__`` (a frozen
    dataclass's sets each field through ``object.__setattr__``: most of a read's time)."""
    names = names or _NAMES[cls]
    if len(values) != len(names):  # an entry of another shape: the caller parses afresh
        raise ValueError(f"{cls.__name__}: {len(values)} fields, not {len(names)}")
    obj = object.__new__(cls)
    obj.__dict__.update(zip(names, values))
    return obj


def _flat_function(f: FunctionSpec) -> tuple[Any, ...]:
    case, ev = _GET[CaseSpec], _GET[EvaluatorSpec]
    return (
        f.id,
        f.line,
        f.fixtures,
        f.serializer,
        tuple(map(ev, f.evaluators)),
        tuple(map(case, f.cases)),
        f.error,
        _GET[FunctionMetaSpec](f.meta),
    )


def _function(t: tuple[Any, ...]) -> FunctionSpec:
    fid, line, fixtures, serializer, evaluators, cases, error, meta = t
    values = (
        fid,
        line,
        fixtures,
        serializer,
        tuple(_make(EvaluatorSpec, e) for e in evaluators),
        tuple(_make(CaseSpec, c) for c in cases),
        error,
        _make(FunctionMetaSpec, meta),
    )
    return _make(FunctionSpec, values, _FUNCTION)


def flatten(spec: SpecFile) -> tuple[Any, ...]:
    """``spec`` as plain data (its path aside)."""
    fixture, serializer = _GET[FixtureSpec], _GET[SerializerSpec]
    return (
        spec.rel,
        tuple(map(_flat_function, spec.functions)),
        {n: fixture(x) for n, x in spec.fixtures.items()},
        {n: serializer(x) for n, x in spec.serializers.items()},
        tuple((p.line, p.message) for p in spec.problems),
    )


def unflatten(data: tuple[Any, ...], path: Path) -> SpecFile:
    rel, functions, fixtures, serializers, problems = data
    return SpecFile(
        path,
        rel,
        tuple(map(_function, functions)),
        {n: _make(FixtureSpec, x) for n, x in fixtures.items()},
        {n: _make(SerializerSpec, x) for n, x in serializers.items()},
        tuple(SpecProblem(line, message) for line, message in problems),
    )


def _stamp() -> bytes:
    """What the parse depends on besides the text: the loader's code and the Python."""
    if not _STAMP:
        import importlib.util

        here = Path(__file__).parent
        files = sorted(here.glob("*.py"))
        with contextlib.suppress(ImportError, ValueError):
            found = importlib.util.find_spec("yaml")
            if found is not None and found.submodule_search_locations:
                files += sorted(Path(next(iter(found.submodule_search_locations))).iterdir())
        parts = [f"{SCHEMA}:{sys.version}"]
        for f in files:
            with contextlib.suppress(OSError):
                st = f.stat()
                parts.append(f"{f.name}:{st.st_size}:{st.st_mtime_ns}")
        _STAMP.append("\n".join(parts).encode())
    return _STAMP[0]


class ParsedSpecs:
    """The cache of one project (``root``); off when it cannot be trusted or written."""

    def __init__(self, root: Path | None) -> None:
        self.folder: Path | None = None
        self._counted = False
        if root is None or os.environ.get("CODEMODE_SPEC_CACHE") == "0":
            return
        base = cache_folder(root)
        if base.name != "codemode-cache":  # not a git repository
            return
        folder = base / FOLDER
        if private(folder):
            self.folder = folder

    def key(self, text: str, rel: str) -> str:
        # Not the path: a change scope reads the spec files from a tree of the index or a
        # commit in a temporary folder, a new one each run, under the same names.
        head = b"\0".join((_stamp(), rel.encode("utf-8", "surrogatepass")))
        return digest(head + b"\0" + text.encode("utf-8", "surrogatepass"))

    def get(self, key: str, path: Path) -> SpecFile | None:
        if self.folder is None:
            return None
        try:
            return unflatten(marshal.loads((self.folder / key).read_bytes()), path)
        except Exception:  # none yet, or a corrupt or foreign one: parse afresh, and put it
            return None

    def put(self, key: str, spec: SpecFile) -> None:
        if self.folder is None:
            return
        try:
            blob = marshal.dumps(flatten(spec))
        except ValueError:  # a value marshal cannot hold: this file is parsed every run
            return
        try:
            write_atomic(self.folder / key, blob)
            self._prune()
        except OSError:
            self.folder = None

    def _prune(self) -> None:
        """Keep the folder bounded: counted once per run, at its first write."""
        if self._counted or self.folder is None:
            return
        self._counted = True
        entries = [e for e in os.scandir(self.folder) if e.is_file(follow_symlinks=False)]
        if len(entries) <= KEEP:
            return
        entries.sort(key=lambda e: e.stat(follow_symlinks=False).st_mtime_ns)
        for e in entries[: len(entries) // 2]:
            with contextlib.suppress(OSError):
                os.unlink(e.path)
