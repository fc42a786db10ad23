"""Effects on purpose: what the project allows the code codemode calls to do (#31).

By default nothing codemode calls may write outside the run's scratch folder, start a
process or use the network beyond loopback (worker/wall.py, worker/landlock.py). A project
opts in, narrowly, under ``[tool.codemode.effects]``::

    [tool.codemode.effects]
    writes = ["build/**", "~/.cache/mylib/**"]   # globs, relative to the project root
    subprocess = false
    network = false

    [tool.codemode.effects.functions."shop.store.*"]   # per function (fnmatch on the id)
    writes = ["data/*.db"]
    subprocess = true

Core: imports no stage; config.py parses the table through ``parse``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from codemode.errors import FatalError

KEYS = ("writes", "subprocess", "network")


class Allowance(NamedTuple):
    """One table's allowances; ``writes`` are absolute glob patterns."""

    writes: tuple[str, ...] = ()
    subprocess: bool = False
    network: bool = False

    def as_request(self) -> dict[str, Any]:
        return {"writes": list(self.writes), "subprocess": self.subprocess, "network": self.network}


class Effects(NamedTuple):
    """The project's allowances and its functions' (pattern, allowance) pairs."""

    project: Allowance = Allowance()
    functions: tuple[tuple[str, Allowance], ...] = ()

    def for_function(self, function_id: str) -> Allowance | None:
        """The allowances beyond the project's that ``function_id`` has, if any."""
        import fnmatch  # not on the hook's no-op path, which reads the table but matches nothing

        found = [a for pattern, a in self.functions if fnmatch.fnmatchcase(function_id, pattern)]
        if not found:
            return None
        return Allowance(
            tuple(w for a in found for w in a.writes),
            any(a.subprocess for a in found),
            any(a.network for a in found),
        )


def absolute_globs(globs: list[str], root: Path) -> tuple[str, ...]:
    """Each glob made absolute (``~`` is the home folder); ``dir/**`` also names ``dir``
    itself, so a function may remove the folder it is allowed to fill."""
    out: list[str] = []
    for glob in globs:
        path = os.path.expanduser(glob)
        if not os.path.isabs(path):
            path = os.path.join(str(root.resolve()), path)
        out.append(path)
        if path.endswith("/**"):
            out.append(path[:-3])
    return tuple(out)


def _allowance(table: Mapping[str, Any], root: Path, where: str) -> Allowance:
    unknown = sorted(set(table) - set(KEYS) - {"functions"})
    if unknown:
        raise FatalError(f"{where} has unknown keys {unknown}; known keys: {list(KEYS)}")
    writes = table.get("writes", [])
    if not isinstance(writes, list) or not all(isinstance(w, str) for w in writes):
        raise FatalError(f"{where} writes must be a list of glob strings, got {writes!r}")
    flags = {}
    for key in ("subprocess", "network"):
        value = table.get(key, False)
        if not isinstance(value, bool):
            raise FatalError(f"{where} {key} must be true or false, got {value!r}")
        flags[key] = value
    return Allowance(absolute_globs(writes, root), flags["subprocess"], flags["network"])


def parse(table: Mapping[str, Any], root: Path, where: str) -> Effects:
    """``[tool.codemode.effects]`` as read from TOML; ``where`` is ``file:line`` for errors."""
    project = _allowance(table, root, f"{where}: [tool.codemode.effects]")
    functions = table.get("functions", {})
    if not isinstance(functions, Mapping):
        raise FatalError(
            f"{where}: [tool.codemode.effects] functions must be a table of function ids "
            '(`[tool.codemode.effects.functions."pkg.mod.func"]`)'
        )
    per: list[tuple[str, Allowance]] = []
    for pattern, sub in functions.items():
        label = f'{where}: [tool.codemode.effects.functions."{pattern}"]'
        if not isinstance(sub, Mapping) or "functions" in sub:
            raise FatalError(f"{label} must be a table of {list(KEYS)}")
        per.append((str(pattern), _allowance(sub, root, label)))
    return Effects(project, tuple(per))
