"""Decide, before anything heavy is imported, that a staged change cannot affect any spec.

The pre-commit hook runs on every commit that stages a ``.py`` or ``.yml`` file, and most YAML
in a repository is not a spec (CI workflows, ``.pre-commit-config.yaml``, docker-compose, mkdocs).
For those commits the full check (diff analysis, spec parsing with pydantic, a worker process)
would only find that nothing changed. This module answers from git's raw diff of the index
alone: when no staged path is Python source, a spec file or the project's configuration, no
function changed and no spec changed, so the verdict is "0 functions", exit 0. Otherwise the
same ``git.StagedChange`` goes on to the diff analysis, which asks git nothing twice.

It is deliberately conservative: anything it is unsure of (a ``.py`` file anywhere, a path that
matches a spec glob, git failing) means "run the full check".
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from codemode.change import git
from codemode.errors import FatalError
from codemode.scope import Scope
from codemode.specs import RESERVED_KEYS
from codemode.specs.discover import glob_regex

if TYPE_CHECKING:
    from codemode.config import Config
    from codemode.report.model import Report

# Files whose change can alter what the full check would do even if no spec or source changed.
_CONFIG_FILES = frozenset({"pyproject.toml"})


def could_affect_specs(
    paths: Iterable[str], spec_globs: Sequence[str], root: Path | None = None
) -> bool:
    """True when any of ``paths`` (posix, relative to the project root) may change a verdict."""
    for path in paths:
        name = PurePosixPath(path).name
        if name.endswith(".py") or name in _CONFIG_FILES:
            return True
        # The matcher discovery uses, so both agree on what is a spec.
        if any(glob_regex(g.removeprefix("./")).match(path) for g in spec_globs):
            return True
        if root is not None and in_package(root, path):
            return True
    return False


def in_package(root: Path, path: str) -> bool:
    """Whether ``path`` lies in a folder of a package (an ancestor under ``root`` holds an
    ``__init__.py``): a table or word list a function may read, whose change the impact
    analysis follows to its readers (change/data_files.py). A few stat calls, no parsing; a
    README beside the code is in no package."""
    folder = PurePosixPath(path).parent
    while folder.parts:
        if (root / folder / "__init__.py").is_file():
            return True
        folder = folder.parent
    return False


def staged_change(root: Path) -> git.StagedChange | None:
    """git's statement of the staged change, or None when git cannot give one (not a
    repository, git missing): then the full check runs and says what is wrong."""
    try:
        return git.staged_change(root)
    except FatalError:
        return None


def staged_paths(change: git.StagedChange, root: Path) -> list[str]:
    """The change's paths relative to ``root``, both sides of a rename. Changes outside
    ``root`` are left out, as the full check leaves them out (source roots and spec globs
    are relative to root)."""
    try:
        prefix = root.resolve().relative_to(change.repo.resolve()).as_posix()
    except ValueError:
        prefix = "."
    under = "" if prefix == "." else prefix + "/"
    out: list[str] = []
    for c in change.changes:
        for path in {c.old_path, c.new_path}:
            if path and path.startswith(under):
                out.append(path[len(under) :])
    return out


def nothing_staged_to_check(
    change: git.StagedChange, root: Path, spec_globs: Sequence[str]
) -> bool:
    """True when the staged change certainly affects no spec (see the module docstring)."""
    return not could_affect_specs(staged_paths(change, root), spec_globs, root)


# A top-level key of a block-style YAML mapping: a plain or quoted scalar, then ":" and a space.
_TOP_KEY = re.compile(r"""(?:"([^"\\]+)"|'([^']+)'|([A-Za-z_][\w.\-]*))[ \t]*:(?:[ \t]|$)""")


def spec_keys(text: str) -> dict[str, int] | None:
    """Function ids a spec file names, with the line of each, read without a YAML parser.

    Spec files are block mappings whose top-level keys are function ids, so the ids are the
    non-indented ``key:`` lines. This lets a change that touches no spec'd function be told
    apart without importing pydantic or validating every case. Anything unusual (flow style,
    merge keys, several documents, a duplicate key, a line it cannot read) returns None: load
    the file properly, which also reports what is wrong with it.
    """
    keys: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line or line[0] in " \t#":
            continue
        if line.rstrip() == "---" and not keys:
            continue
        m = _TOP_KEY.match(line)
        if m is None:
            return None
        key = m.group(1) or m.group(2) or m.group(3)
        if key in keys:
            return None
        if key not in RESERVED_KEYS:
            keys[key] = n
    return keys


NOTHING_TO_VERIFY = (
    "the staged change has no Python, spec, pyproject.toml or package data file: nothing to verify"
)


def quick_report(config: Config, change: git.StagedChange) -> Report | None:
    """The report of a ``--staged`` run that has nothing to verify, or None: run the full check.

    ``check_cmd.run`` calls this with ``staged_change(config.root)`` before importing
    ``codemode.check.run`` (pydantic, yaml, the worker).
    """
    started = time.perf_counter()
    if not nothing_staged_to_check(change, config.root, config.specs):
        return None
    from codemode.report.model import Report

    elapsed = time.perf_counter() - started
    return Report(scope=Scope("staged"), notes=(NOTHING_TO_VERIFY,), elapsed=elapsed)
