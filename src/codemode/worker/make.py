"""Building a worker for a run: the project's interpreter, the run's limits and effects, and
on the hook's path one forked from the repository's warm worker.

The check, the behaviour diff, regen's exploration and its gate, and accept all start their
workers here, so a setting reaches every worker of every flow alike (#34).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemode.config import Config
from codemode.worker.python import find_python

if TYPE_CHECKING:
    from codemode.worker.pool import Worker


def settings_digest(python: str, config: Config) -> str:
    """Every setting of the run, as a digest (it is on the warm worker's command line): a
    change of [tool.codemode] or of the interpreter replaces the warm worker. Left out: the
    settings that decide only what this process does with the workers' answers, which a
    command line flips from run to run (`--no-diff`, `--jobs`, `--fail-on`): alternating
    `check --staged` and `check --staged --no-diff` replaced the warm worker at every run."""
    from codemode.cachedir import digest

    kept = config._replace(warm_worker=False, diff=True, jobs=0, fail_on=())
    return digest(repr((python, kept)).encode())[:32]


def bytecode_folder(root: Path) -> Path | None:
    """Where the worker keeps the project's compiled modules between runs (worker/bytecode.py):
    ``<git-dir>/codemode-cache/bytecode`` when it is a folder of this user's only; none outside
    a git repository (no cache in the project's tree), or with ``CODEMODE_BYTECODE_CACHE=0``."""
    from codemode.cachedir import cache_folder, private

    base = cache_folder(root)
    if base.name != "codemode-cache" or os.environ.get("CODEMODE_BYTECODE_CACHE") == "0":
        return None
    return base / "bytecode" if private(base / "bytecode") else None


def make_worker(config: Config, root: Path | None = None) -> Worker:
    """A worker for ``root`` (the project's, or a tree of one side of a change); on the
    hook's path (``config.warm_worker``) one forked from the repository's warm worker."""
    python = find_python(config.root, config.python)
    common: dict[str, Any] = {
        "timeout": config.timeout,
        "memory_mb": config.memory_limit_mb,
        "pass_env": config.pass_env,
        "allow_callables": config.allow_callables,
        "bytecode": bytecode_folder(config.root),
        "effects": config.effects,
    }
    if config.warm_worker:
        from codemode.cachedir import cache_folder
        from codemode.worker.warm_client import WarmWorker

        return WarmWorker(
            python,
            root or config.root,
            config.source_roots,
            **common,
            cache=cache_folder(config.root),
            home=config.root,
            settings=settings_digest(python, config),
            idle=config.warm_idle,
        )
    from codemode.worker.pool import Worker

    return Worker(python, root or config.root, config.source_roots, **common)


def started_worker(config: Config, root: Path | None = None) -> Worker:
    """``make_worker``, its interpreter started (it imports while the caller goes on)."""
    worker = make_worker(config, root)
    worker.spawn()
    return worker
