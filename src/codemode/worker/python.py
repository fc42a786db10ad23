"""Which interpreter runs the user's code.

A pre-commit hook's private virtualenv has none of the project's dependencies, so the
worker must use the project's own Python: ``--python``, then ``python`` under
[tool.codemode] (or ``CODEMODE_PYTHON``), then an active virtualenv that is not codemode's
own, then ``.venv`` or ``venv`` in the repository, then ``CODEMODE_HOST_PYTHON`` (the GitHub
Action installs codemode in a virtualenv of its own and names the job's Python there), then
the interpreter codemode runs in.

An active virtualenv that codemode itself runs from says nothing about the project: after
README's try-it, codemode's venv is the active one, and it won over the project's ``.venv/``
(every function an import error, #35). Only a virtualenv the user activated for something
else than codemode points elsewhere.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from codemode.errors import FatalError

if TYPE_CHECKING:
    from codemode.config import Config


def _venv_python(venv: Path) -> Path | None:
    for rel in ("bin/python", "Scripts/python.exe"):
        p = venv / rel
        if p.exists():
            return p
    return None


def _is_pre_commit_env(path: str, pre_commit_home: str | None) -> bool:
    # pre-commit builds hook envs under its cache (~/.cache/pre-commit, or $PRE_COMMIT_HOME)
    # as repo<random>/py_env-<version>; any of those marks is enough.
    posix = Path(path).as_posix()
    if ".cache/pre-commit" in posix or "pre-commit" in Path(path).parts:
        return True
    if pre_commit_home and posix.startswith(Path(pre_commit_home).as_posix().rstrip("/") + "/"):
        return True
    return Path(path).name.startswith("py_env-")


def _own(venv: str) -> bool:
    """Whether ``venv`` is the virtualenv codemode itself runs from."""
    try:
        return Path(venv).resolve() == Path(sys.prefix).resolve()
    except OSError:
        return False


def in_pre_commit_env(env: Mapping[str, str] | None = None, prefix: str | None = None) -> bool:
    """True when this process runs from a virtualenv that pre-commit built for a hook."""
    env = os.environ if env is None else env
    home = env.get("PRE_COMMIT_HOME")
    prefix = sys.prefix if prefix is None else prefix
    return any(_is_pre_commit_env(p, home) for p in (env.get("VIRTUAL_ENV"), prefix) if p)


def find_python(root: Path, configured: str | None, env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    if configured:
        p = Path(configured).expanduser()
        if not p.is_absolute() and "/" in configured:
            p = root / p
        import shutil  # bz2, lzma: only when an interpreter is configured by name

        found = str(p) if p.exists() else shutil.which(configured)
        if not found:
            raise FatalError(
                f"the configured Python {configured!r} does not exist; fix --python or "
                '`python = ...` under [tool.codemode] (e.g. python = ".venv/bin/python")'
            )
        return found
    venv = env.get("VIRTUAL_ENV")
    # pre-commit activates its own private env, and codemode's own venv may be the active
    # one: neither can import the project, so neither hides the repository's .venv.
    if venv and not _is_pre_commit_env(venv, env.get("PRE_COMMIT_HOME")) and not _own(venv):
        vp = _venv_python(Path(venv))
        if vp:
            return str(vp)
    for name in (".venv", "venv"):
        vp = _venv_python(root / name)
        if vp:
            return str(vp)
    # Lowest of the configured choices, unlike CODEMODE_PYTHON: a project's own setting wins.
    return env.get("CODEMODE_HOST_PYTHON") or sys.executable


INTERPRETER_HINT = (
    "codemode runs in pre-commit's private virtualenv, which has none of your project's "
    "dependencies, and found no project interpreter (no --python, no `python` under "
    "[tool.codemode], no CODEMODE_PYTHON, no .venv or venv in the repository); point it at "
    'the interpreter that can import your code: python = ".venv/bin/python" under '
    "[tool.codemode] in pyproject.toml, or CODEMODE_PYTHON=/path/to/python"
)


def interpreter_hint(
    config: Config, env: Mapping[str, str] | None = None, *, prefix: str | None = None
) -> str | None:
    """How to set the project's interpreter, when that is the likely cause of an import error.

    Only when no project interpreter was found (the worker fell back to the interpreter codemode
    runs in) and that interpreter is pre-commit's hook env: there a ModuleNotFoundError almost
    always means "wrong interpreter", not "broken code". Elsewhere it is None, so a genuine typo
    in an import is not dressed up as a setup problem.
    """
    env = os.environ if env is None else env
    if config.python or env.get("CODEMODE_PYTHON"):
        return None
    if find_python(config.root, None, env) != sys.executable:
        return None
    return INTERPRETER_HINT if in_pre_commit_env(env, prefix) else None


def missing_module_hint(
    config: Config, messages: Iterable[str], env: Mapping[str, str] | None = None
) -> str | None:
    """The interpreter hint, once per run, when some error message reports a missing module.

    Give it every error message of a run (case and function messages from the worker); the
    caller adds the result to the report once, not to each of twenty failing cases.
    """
    if not any("ModuleNotFoundError" in m or "No module named" in m for m in messages):
        return None
    return interpreter_hint(config, env)
