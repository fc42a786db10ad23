"""What a bootstrap covers: the functions of the project's own modules, found with ``ast``.

``codemode regen --all`` (and ``regen PACKAGE_DIR`` or ``regen module.py``) explores every
public function of the modules under the source roots. Left out by default, because their
functions are not the project's behaviour or importing them runs something: tests
(``tests/``, ``test_*.py``, ``*_test.py``, ``conftest.py``), ``setup.py``, ``__main__.py``,
``docs/``, and private names (a leading underscore anywhere in the qualname; functions
nested in functions cannot be imported by their id at all). ``[tool.codemode]`` ``exclude``
adds globs; ``include_private = true`` takes private names in.

With the default ``source_roots`` (``src`` then ``.``), a project with a ``src/`` folder is
searched there only: the project root of a src layout holds ``noxfile.py`` and friends.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from codemode.change.chunks import SourceError, decode_source, module_name
from codemode.change.functions import SourceFile
from codemode.config import Config
from codemode.specs.discover import _skip_dir, glob_regex

DEFAULT_EXCLUDE = (
    "**/tests/**",
    "**/test/**",
    "**/test_*.py",
    "**/*_test.py",
    "**/test.py",
    "**/tests.py",
    "**/conftest.py",
    "setup.py",
    "**/__main__.py",
    "docs/**",
)


class SourceFunction(NamedTuple):
    id: str
    module: str
    path: str  # repo-relative, posix


class Scan(NamedTuple):
    functions: tuple[SourceFunction, ...]
    searched: tuple[str, ...]  # the folders and files walked, repo-relative
    modules: int  # modules read
    excluded_files: tuple[str, ...]  # left out by an exclude glob
    private: int  # private functions left out
    problems: tuple[str, ...]  # "path: why", for files that cannot be read or imported


def search_roots(config: Config) -> list[Path]:
    """The source roots that exist; ``.`` only when no other configured root does."""
    roots = [config.root / r for r in config.source_roots if r not in ("", ".")]
    found = [r for r in roots if r.is_dir()]
    if found or not any(r in ("", ".") for r in config.source_roots):
        return found
    return [config.root]


def is_excluded(config: Config, rel: str) -> bool:
    return any(glob_regex(p).match(rel) for p in (*DEFAULT_EXCLUDE, *config.exclude))


def is_private(qualname: str) -> bool:
    return any(part.startswith("_") for part in qualname.split("."))


def _walk_py(start: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(start):
        dirnames[:] = sorted(d for d in dirnames if not _skip_dir(d))
        out += [Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py")]
    return out


def _rel(config: Config, path: Path) -> str | None:
    try:
        return path.resolve().relative_to(config.root.resolve()).as_posix()
    except ValueError:
        return None


def scan_sources(config: Config, paths: Iterable[Path] | None = None) -> Scan:
    """Public functions of the modules under ``paths`` (files or folders; default: the source
    roots). A file named on its own is taken even where an exclude glob would leave it out."""
    starts = list(paths) if paths is not None else search_roots(config)
    functions: list[SourceFunction] = []
    excluded: list[str] = []
    problems: list[str] = []
    searched: list[str] = []
    seen: set[str] = set()
    modules = private = 0
    for start in starts:
        searched.append(_rel(config, start) or str(start))
        named = start.is_file()
        for path in [start] if named else _walk_py(start):
            rel = _rel(config, path)
            if rel is None or rel in seen:
                continue
            seen.add(rel)
            if not named and is_excluded(config, rel):
                excluded.append(rel)
                continue
            module = module_name(rel, config.source_roots)
            if module is None:
                problems.append(
                    f"{rel}: not importable from the source roots "
                    f"({', '.join(config.source_roots)}); set source_roots under [tool.codemode]"
                )
                continue
            try:
                source = SourceFile(rel, module, decode_source(path.read_bytes()))
                source.parse_all()
            except (OSError, SourceError) as exc:
                problems.append(f"{rel}: cannot be read as Python: {exc}")
                continue
            modules += 1
            classes = source.classes()
            for qual, fn in sorted(source.functions().items(), key=lambda kv: kv[1].lineno):
                parents = qual.split(".")[:-1]
                if any(".".join(parents[: i + 1]) not in classes for i in range(len(parents))):
                    continue  # nested in a function: not importable by its id
                if is_private(qual) and not config.include_private:
                    private += 1
                    continue
                functions.append(SourceFunction(fn.id, module, rel))
    return Scan(
        tuple(functions),
        tuple(searched),
        modules,
        tuple(excluded),
        private,
        tuple(problems),
    )


def spec_rel_for(config: Config, module: str) -> str:
    """Where a module's new spec goes: ``specs/<module>.yml`` (dotted), or the first spec glob
    that can name one (``evals/**/*.yml`` -> ``evals/<module>.yml``, ``**/*.evals.yml`` ->
    ``<module>.evals.yml``), so that ``check`` finds what ``regen`` wrote."""
    for pattern in config.specs:
        head, _, tail = pattern.rpartition("/")
        prefix = "/".join(p for p in head.split("/") if p and not any(c in p for c in "*?["))
        name = tail.replace("*", module, 1)
        if "*" in name or "?" in name or "[" in name:
            continue
        rel = f"{prefix}/{name}" if prefix else name
        if glob_regex(pattern).match(rel):
            return rel
    return f"specs/{module}.yml"
