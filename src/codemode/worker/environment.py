"""The worker's environment: an allowlist, as tox's pass_env (#11)."""

from __future__ import annotations

from collections.abc import Mapping

# The worker runs code from the change under review, so its environment is an allowlist, as
# tox's pass_env: what a Python program needs to run (locale, paths, the virtualenv), plus the
# names and globs a project lists under [tool.codemode] pass_env. A denylist of name patterns
# missed OPENAI_KEY, MY_PAT, CI_JOB_JWT, DATABASE_URL, SLACK_WEBHOOK_URL... (#11). What the
# process can still read as the same user (e.g. /proc/<parent>/environ) is in docs/security.md.
BASE_ENV = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TZ",
    "TERM",
    "NO_COLOR",
    "TMPDIR",
    "TEMP",
    "TMP",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONHASHSEED",
    "PYTHONUTF8",
    "PYTHONWARNINGS",
    "PYTHONFAULTHANDLER",
    "PYTHONDEVMODE",
    "PYTHONSAFEPATH",
    "SOURCE_DATE_EPOCH",
    "CODEMODE_WORKER_*",
    # Windows: a Python process cannot start without these
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "COMSPEC",
    "PATHEXT",
    "WINDIR",
)


def _allowed(name: str, names: frozenset[str], globs: tuple[str, ...]) -> bool:
    if name in names:
        return True
    if not globs:
        return False
    import fnmatch

    return any(fnmatch.fnmatchcase(name, p) for p in globs)


def scrub_env(env: Mapping[str, str], pass_env: tuple[str, ...] = ()) -> dict[str, str]:
    """The worker's environment: ``env`` filtered to BASE_ENV and ``pass_env`` (names, globs)."""
    patterns = BASE_ENV + tuple(pass_env)
    # Names by a set lookup; only the globs through fnmatch, whose first use compiles each
    # pattern (~30 regular expressions in every --jobs lane: ~10 ms of its start).
    globs = tuple(p for p in patterns if any(c in p for c in "*?["))
    names = frozenset(patterns).difference(globs)
    out = {k: v for k, v in env.items() if _allowed(k, names, globs)}
    out["PYTHONIOENCODING"] = "utf-8"
    out["PYTHONDONTWRITEBYTECODE"] = "1"  # never leave __pycache__ in a staged tree copy
    return out
