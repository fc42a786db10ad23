"""Find spec files: the configured globs, or the files and folders named on the command line.

The walk prunes virtualenvs, caches and VCS folders as it goes: ``Path.glob('**/...')``
would visit every file of a ``.venv`` first (tens of thousands in a real project) and
the pre-commit hook pays for that on every commit.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from codemode.config import Config
from codemode.errors import FatalError

_SKIP_DIRS = {
    ".git",
    ".venv",
    "venv",
    "node_modules",
    ".tox",
    ".nox",
    "__pycache__",
    "build",
    "dist",
    "site-packages",
}


def skip_dir(name: str) -> bool:
    return name in _SKIP_DIRS or (name.startswith(".") and name not in (".", ".."))


@lru_cache(maxsize=64)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """``specs/**/*.yml`` -> a regex on posix paths; ``**/`` matches zero or more folders."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _static_prefix(pattern: str) -> str:
    parts = []
    for part in pattern.split("/")[:-1]:
        if any(ch in part for ch in "*?["):
            break
        parts.append(part)
    return "/".join(parts)


def _walk(base: Path, pattern: str) -> list[Path]:
    rx = glob_regex(pattern)
    start = base / _static_prefix(pattern)
    found = []
    for dirpath, dirnames, filenames in os.walk(start):
        dirnames[:] = sorted(d for d in dirnames if not skip_dir(d))
        rel_dir = Path(dirpath).relative_to(base).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        for name in filenames:
            if rx.match(prefix + name):
                found.append(Path(dirpath) / name)
    return found


def find_spec_files(
    config: Config, paths: tuple[str, ...] = (), root: Path | None = None
) -> list[Path]:
    """Spec files under ``root`` (default: the config's root), sorted, without duplicates."""
    base = root or config.root
    found: dict[Path, None] = {}
    if paths:
        for p in paths:
            path = Path(p)
            if not path.is_absolute():
                path = (Path.cwd() / path) if root is None else (base / p)
            if path.is_dir():
                for f in sorted(_walk(path, "**/*.yml") + _walk(path, "**/*.yaml")):
                    found[f] = None
            elif path.is_file():
                found[path] = None
            else:
                raise FatalError(
                    f"{p}: no such file or directory; pass spec files or folders that exist"
                )
        return list(found)
    for pattern in config.specs:
        for f in _walk(base, pattern):
            found[f] = None
    return sorted(found)
