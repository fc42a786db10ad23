"""Find spec files: the configured globs, or the files and folders named on the command line."""

from __future__ import annotations

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
}


def _skipped(path: Path, root: Path) -> bool:
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return False
    return any(p in _SKIP_DIRS or (p.startswith(".") and p not in (".", "..")) for p in parts[:-1])


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
                for ext in ("*.yml", "*.yaml"):
                    for f in sorted(path.rglob(ext)):
                        if not _skipped(f, path):
                            found[f] = None
            elif path.is_file():
                found[path] = None
            else:
                raise FatalError(
                    f"{p}: no such file or directory; pass spec files or folders that exist"
                )
        return list(found)
    for pattern in config.specs:
        for f in sorted(base.glob(pattern)):
            if f.is_file() and not _skipped(f, base):
                found[f] = None
    return sorted(found)
