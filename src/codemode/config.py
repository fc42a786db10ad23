"""``[tool.codemode]`` in the user's pyproject.toml, validated into a frozen ``Config``.

Precedence (highest first): command-line flags, ``CODEMODE_*`` environment variables,
``[tool.codemode]``, defaults. Unknown keys are errors that name the file, the line and
the key, because a misspelt ``timout`` silently ignored is worse than a failed run.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from codemode.effects import Effects
from codemode.effects import parse as parse_effects
from codemode.errors import FatalError
from codemode.verdicts import DEFAULT_FAIL_ON, FAIL_ON_WORDS

# The words of fail_on (function verdicts and the review's call-outs) and its default are
# defined once, in codemode.verdicts, with the report's words.

DEFAULT_SPEC_GLOBS = (
    "specs/**/*.yml",
    "specs/**/*.yaml",
    "evals/**/*.yml",
    "evals/**/*.yaml",
    "**/*.evals.yml",
    "**/*.evals.yaml",
)


# A NamedTuple, not a dataclass: every hook run builds one, and importing dataclasses costs
# ~10 ms (it pulls in inspect), a quarter of what check-ast takes in all.
class Config(NamedTuple):
    """Everything a run needs to know about the project; built once, passed down."""

    root: Path
    specs: tuple[str, ...] = DEFAULT_SPEC_GLOBS
    # Where modules live; a file's module path is taken relative to the first root that holds it.
    source_roots: tuple[str, ...] = ("src", ".")
    python: str | None = None
    timeout: float = 10.0  # seconds per call
    memory_limit_mb: int = 2048
    float_tolerance: float = 1e-9  # relative
    float_abs_tolerance: float = 0.0  # absolute, none unless asked for (#21)
    fail_on: tuple[str, ...] = DEFAULT_FAIL_ON
    model: str | None = None
    base_url: str | None = None
    max_model_requests: int | None = None
    max_cost: float | None = None
    max_seconds: float | None = None
    concurrency: int = 4
    coverage_rounds: int = 1
    impact_depth: int = 3
    # Bootstrap (`regen --all`, `regen DIR`): globs of files to leave out, on top of the
    # defaults (tests, conftest.py, setup.py...); private names are left out unless asked.
    exclude: tuple[str, ...] = ()
    include_private: bool = False
    # Who chose base_url: "config" (the repository's pyproject.toml, so anyone who can open a
    # pull request) gets only CODEMODE_BASE_URL_KEY; "env" or "flag" (the user) may use the
    # provider's default key too.
    base_url_origin: str = "config"
    # Environment variables the worker gets beyond its base allowlist (names or globs, #11).
    pass_env: tuple[str, ...] = ()
    # Modules a spec may name callables from, beyond the project and pure stdlib (#11).
    allow_callables: tuple[str, ...] = ()
    # Generated cases per function, chosen by measurement (benchmarks/max_cases.py, #23): on the
    # shop example and upgrade_detection's tuning libraries, 8 kills as many mutants as 12 and
    # 16 (96.6% own operators, 97.0% mutmut's) with 7.6 cases per function; 4 kills ~3-4 points fewer.
    max_cases: int = 8
    # The behaviour diff of a change scope (#18): on or off, and its budget per function
    # (`diff_budget = {seconds = 2.0, calls = 1000}`). The seconds bound the wall clock (#33);
    # the calls were 300, which cut pools of 380-585 inputs (sqlparse 0.4.3 -> 0.4.4: 7 of 10
    # functions) in well under their seconds, and read as a budget miss where the pool lacked
    # the input (wcwidth 0.2.7). 1000 is the pool's own cap: the seconds decide (#32).
    diff: bool = True
    diff_seconds: float = 2.0
    diff_calls: int = 1000
    # Lanes that verify function blocks at once, each with a worker (#20); 0: the cores
    # available to the process (os.sched_getaffinity).
    jobs: int = 0
    # The warm worker of the hook's path (#20): allowed (`warm = false` turns it off), and
    # how long it waits for the next run before it exits (seconds).
    warm: bool = True
    warm_idle: float = 900.0
    # Not a key of the table: set for a run that forks its workers from the warm worker
    # (`check --staged` where `warm_wanted` says so).
    warm_worker: bool = False
    # Not a key of the table either: pytest's `testpaths` (under [tool.pytest.ini_options]),
    # whose files are tests and never a target, like test_*.py (codemode.testcode, #35).
    test_paths: tuple[str, ...] = ()
    # What the code codemode calls may do beyond reading (#31): nothing, unless allowed
    # under [tool.codemode.effects] (effects.py).
    effects: Effects = Effects()

    def replace(self, **changes: Any) -> Config:
        return self._replace(**changes)


_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "specs": (list,),
    "source_roots": (list,),
    "python": (str,),
    "timeout": (int, float),
    "memory_limit_mb": (int,),
    "float_tolerance": (int, float),
    "float_abs_tolerance": (int, float),
    "fail_on": (list,),
    "model": (str,),
    "base_url": (str,),
    "max_model_requests": (int,),
    "max_cost": (int, float),
    "max_seconds": (int, float),
    "concurrency": (int,),
    "coverage_rounds": (int,),
    "impact_depth": (int,),
    "exclude": (list,),
    "include_private": (bool,),
    "pass_env": (list,),
    "allow_callables": (list,),
    "max_cases": (int,),
    "diff": (bool,),
    "diff_budget": (dict,),
    "jobs": (int,),
    "warm": (bool,),
    "warm_idle": (int, float),
    "effects": (dict,),
}
# TOML spells keys with dashes as often as with underscores; accept both.
_ALIASES = {k.replace("_", "-"): k for k in _FIELD_TYPES}


def find_root(start: Path) -> Path:
    """The nearest directory holding pyproject.toml or .git, else ``start``."""
    start = start.resolve()
    for d in (start, *start.parents):
        if (d / "pyproject.toml").is_file() or (d / ".git").exists():
            return d
    return start


def _key_line(text: str, key: str) -> int:
    """Best-effort line of ``key = ...`` inside [tool.codemode]; tomllib keeps no positions."""
    in_section = False
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_section = stripped.startswith("[tool.codemode")
            continue
        if in_section and re.match(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", line):
            return n
    return 1


def _validate(table: Mapping[str, Any], where: Path, text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = _ALIASES.get(raw_key, raw_key)
        line = _key_line(text, raw_key)
        if key not in _FIELD_TYPES:
            known = ", ".join(sorted(_FIELD_TYPES))
            raise FatalError(
                f"{where}:{line}: unknown key {raw_key!r} in [tool.codemode]; known keys: {known}"
            )
        types = _FIELD_TYPES[key]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            want = " or ".join(t.__name__ for t in types)
            raise FatalError(
                f"{where}:{line}: [tool.codemode] {raw_key} must be {want}, got {value!r}"
            )
        if key == "diff_budget":
            out.update(_diff_budget(value, where, line))  # type: ignore[arg-type]
            continue
        if key == "effects":
            out[key] = parse_effects(value, where.parent, f"{where}:{line}")  # type: ignore[arg-type]
            continue
        if isinstance(value, list):
            if not all(isinstance(v, str) for v in value):
                raise FatalError(
                    f"{where}:{line}: [tool.codemode] {raw_key} must be a list of strings"
                )
            value = tuple(value)
        out[key] = value
    return _check_values(out, where, text)


# The largest value each number may take (#21: `timeout = 1e308` or `inf` crashed the run).
# Not tuned limits but sanity ceilings, each far beyond any real use: a day per call, a
# terabyte of memory, 1024 parallel explorations, a relative tolerance of 100%.
_CEILINGS: dict[str, float] = {
    "timeout": 86_400.0,
    "memory_limit_mb": float(1 << 20),
    "float_tolerance": 1.0,
    "float_abs_tolerance": 1e300,
    "max_model_requests": 1e6,
    "max_cost": 1e6,
    "max_seconds": 86_400.0 * 7,
    "concurrency": 1024.0,
    "coverage_rounds": 100.0,
    "impact_depth": 1000.0,
    "max_cases": 10_000.0,
    "jobs": 1024.0,
    "warm_idle": 86_400.0 * 7,
}


def _check_values(out: dict[str, Any], where: Path, text: str) -> dict[str, Any]:
    def bad(key: str, msg: str) -> FatalError:
        return FatalError(f"{where}:{_key_line(text, key)}: [tool.codemode] {key} {msg}")

    for key, ceiling in _CEILINGS.items():
        value = out.get(key)
        if value is None:
            continue
        if not math.isfinite(value):
            raise bad(key, f"must be a finite number, got {value!r}")
        if value < 0:
            raise bad(key, "must not be negative")
        if value > ceiling:
            raise bad(key, f"must be at most {ceiling:g}, got {value:g}")
    for key in ("memory_limit_mb", "concurrency", "max_model_requests", "max_cases"):
        if key in out and out[key] < 1:
            raise bad(key, "must be at least 1")
    if "fail_on" in out:
        unknown = [v for v in out["fail_on"] if v not in FAIL_ON_WORDS]
        if unknown:
            raise bad(
                "fail_on", f"has unknown verdicts {unknown}; choose from {list(FAIL_ON_WORDS)}"
            )
    for glob in out.get("specs", ()):
        if _escapes(glob):
            raise bad(
                "specs",
                f"glob {glob!r} reaches outside the repository; "
                "spec globs are relative to the project root and hold no '..'",
            )
    return out


def _escapes(glob: str) -> bool:
    """An absolute glob, or one with a ``..`` part: it could read (and regen write) spec
    files in another checkout or anywhere on the host (#21)."""
    path = glob.replace("\\", "/")
    return path.startswith("/") or path[1:3] == ":/" or ".." in path.split("/")


_YES, _NO = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def warm_wanted(config: Config, env: Mapping[str, str]) -> bool:
    """Whether the hook's path may use the warm worker: ``CODEMODE_WARM=1`` asks for it (in
    CI too), ``CODEMODE_WARM=0`` turns it off; otherwise `warm` under [tool.codemode], never
    in CI (``CI=true``: a runner starts from nothing, and nothing would reuse it)."""
    asked = env.get("CODEMODE_WARM", "").strip().lower()
    if asked in _YES or asked in _NO:
        return asked in _YES
    return config.warm and env.get("CI", "").strip().lower() not in _YES


def parse_fail_on(value: str) -> tuple[str, ...]:
    """``--fail-on drifted,stale`` -> ('drifted', 'stale'); ``none`` -> ()."""
    if value.strip().lower() in ("", "none"):
        return ()
    items = tuple(v.strip() for v in value.split(",") if v.strip())
    unknown = [v for v in items if v not in FAIL_ON_WORDS]
    if unknown:
        raise FatalError(
            f"--fail-on: unknown verdicts {unknown}; choose from {list(FAIL_ON_WORDS)}"
        )
    return items


def _diff_budget(value: Mapping[str, Any], where: Path, line: int) -> dict[str, Any]:
    """``diff_budget = {seconds = 2.0, calls = 1000}``: either key may be left out."""
    out: dict[str, Any] = {}
    for key, value_type, field in (
        ("seconds", (int, float), "diff_seconds"),
        ("calls", (int,), "diff_calls"),
    ):
        if key not in value:
            continue
        v = value[key]
        if isinstance(v, bool) or not isinstance(v, value_type) or v <= 0:
            raise FatalError(
                f"{where}:{line}: [tool.codemode] diff_budget.{key} must be a positive number, "
                f"got {v!r}"
            )
        out[field] = v
    unknown = sorted(set(value) - {"seconds", "calls"})
    if unknown:
        raise FatalError(
            f"{where}:{line}: [tool.codemode] diff_budget has unknown keys {unknown}; "
            "known keys: seconds, calls"
        )
    return out


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if env.get("CODEMODE_MODEL"):
        out["model"] = env["CODEMODE_MODEL"]
    if env.get("CODEMODE_BASE_URL"):
        out["base_url"] = env["CODEMODE_BASE_URL"]
    if env.get("CODEMODE_PYTHON"):
        out["python"] = env["CODEMODE_PYTHON"]
    return out


def _parse_table(pyproject: Path, text: str) -> _Parsed:
    # imported here: a project without pyproject.toml (and --version) need not pay for it
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FatalError(f"{pyproject}: cannot parse: {exc}; fix the TOML syntax") from exc
    table = data.get("tool", {}).get("codemode", {})
    if not isinstance(table, dict):
        raise FatalError(
            f"{pyproject}:{_key_line(text, 'codemode')}: [tool.codemode] must be a table"
        )
    return table, _testpaths(data)


def _testpaths(data: Mapping[str, Any]) -> tuple[str, ...]:
    """pytest's ``testpaths`` under [tool.pytest.ini_options]; pytest checks its type, and
    here anything but a list of strings is none."""
    tool = data.get("tool")
    pytest = tool.get("pytest") if isinstance(tool, dict) else None
    options = pytest.get("ini_options") if isinstance(pytest, dict) else None
    paths = options.get("testpaths") if isinstance(options, dict) else None
    if isinstance(paths, str):
        paths = paths.split()
    if not isinstance(paths, list):
        return ()
    return tuple(p for p in paths if isinstance(p, str))


# [tool.codemode] (and pytest's testpaths) as last parsed, beside the exact text it came from:
# importing tomllib and parsing cost ~6 ms of every hook run, and pyproject.toml rarely changes
# between commits. Keyed by the whole text, so any edit is a miss; validation still runs on
# every load.
_CACHE_FORMAT = 2
_Parsed = tuple[dict[str, Any], tuple[str, ...]]


def _cache_file(root: Path) -> Path | None:
    git_dir = root / ".git"
    return git_dir / "codemode-cache" / "config" if git_dir.is_dir() else None


def _cached_table(root: Path, text: str) -> _Parsed | None:
    path = _cache_file(root)
    if path is None:
        return None
    import marshal

    try:
        fmt, cached_text, table, tests = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None  # absent, torn, of an older format or from another Python: parse afresh
    if fmt != _CACHE_FORMAT or cached_text != text or not isinstance(table, dict):
        return None
    return table, tuple(tests)


def _cache_table(root: Path, text: str, parsed: _Parsed) -> None:
    path = _cache_file(root)
    if path is None:
        return
    import marshal

    from codemode.atomic import write_atomic

    with contextlib.suppress(OSError, ValueError):  # TOML dates: ValueError, and no cache
        write_atomic(path, marshal.dumps((_CACHE_FORMAT, text, *parsed)))


_TABLE_RE = re.compile(r"^[ \t]*\[[ \t]*tool[ \t]*\.\s*[\"']?([^\]\"'.\s]+)", re.MULTILINE)


def misspelt_tables(pyproject: Path) -> list[str]:
    """Warnings for ``[tool.codemod]``, ``[tool.code-mode]``...: a table meant for codemode
    that it would ignore silently. Read from the text, without parsing the TOML."""
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    out = []
    for m in _TABLE_RE.finditer(text):
        name = m.group(1)
        if name == "codemode" or not _looks_like_codemode(name):
            continue
        line = text.count("\n", 0, m.start()) + 1
        out.append(
            f"{pyproject}:{line}: [tool.{name}] looks like a misspelt [tool.codemode]; "
            "codemode reads only [tool.codemode], so these settings are ignored"
        )
    return out


def _looks_like_codemode(name: str) -> bool:
    """``codemod``, ``code-mode``, ``CodeMode``, ``codmode``: at most two edits from codemode.
    A plain edit distance, not difflib: this runs on every hook run, for every [tool.*] table."""
    a, b = re.sub(r"[-_\s]", "", name.lower()), "codemode"
    if abs(len(a) - len(b)) > 2:
        return False
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1] <= 2


def load_config(
    root: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Config:
    """Read ``[tool.codemode]`` from ``root/pyproject.toml`` and apply env and flag overrides."""
    root = find_root(root or Path.cwd())
    values: dict[str, Any] = {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            text = pyproject.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise FatalError(f"{pyproject}: cannot parse: {exc}; save it as UTF-8") from exc
        parsed = _cached_table(root, text)
        if parsed is None:
            parsed = _parse_table(pyproject, text)
            _cache_table(root, text, parsed)
        table, values["test_paths"] = parsed
        values.update(_validate(table, pyproject, text))
    from_env = _from_env(os.environ if env is None else env)
    values.update(from_env)
    if "base_url" in from_env:
        values["base_url_origin"] = "env"
    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = value
    if (overrides or {}).get("base_url") is not None:
        values["base_url_origin"] = "flag"
    return Config(root=root, **values)
