"""Do offline-bootstrapped specs catch the behaviour changes of real library upgrades?

For each library, a pair of consecutive releases is fetched from PyPI (sdists, cached in
~/.cache/codemode-bench, never in the repository). Ground truth comes from a differential run
(benchmarks/_differential.py): both releases are called on the same inputs (both test suites'
literal calls, both releases' docstring examples, a fixed pool of plain values) and every
public function with a different stable outcome counts as behaviour-changing. A library
where the run finds no change is an error, never a pass.

Then, in a temp git repository holding the old release's source, specs are bootstrapped
offline (`codemode regen --all`; while that writes nothing, `codemode regen --function ID`
for each public function), checked on the old code (every non-ok function there is a false
drift), and checked again with the new release's source swapped in. A behaviour-changing
function is caught when its verdict on the new code is drifted or error.

    python benchmarks/upgrade_detection.py            # all libraries
    python benchmarks/upgrade_detection.py roman      # only these (by distribution name)
    python benchmarks/upgrade_detection.py humanize==4.10.0   # one upgrade, by its old release

Exit 0 when the target is met (>= 70% caught overall, 0 false drift), 1 when it is not,
2 when a comparison could not run (a download failed, no change found, a command crashed).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import GIT_ENV
from _differential import Change, changed_functions, harvest, public_functions

CACHE = Path(os.environ.get("CODEMODE_BENCH_CACHE", Path.home() / ".cache" / "codemode-bench"))
TARGET = 0.70
CAUGHT_STATUSES = ("drifted", "error")
PIP_DOWNLOAD = (
    sys.executable,
    "-m",
    "pip",
    "download",
    "--quiet",
    "--no-deps",
    "--no-binary",
    ":all:",
)


@dataclass(frozen=True)
class Library:
    dist: str  # name on PyPI
    package: str  # top-level import name
    old: str
    new: str


# The tuning set: consecutive releases whose changelogs (and diffs) show a change of behaviour
# in a public function's return value for ordinary inputs; the differential run confirms it
# every time. These libraries were read while the offline explorer was written, so their
# figure describes fit.
TUNING = (
    Library("inflection", "inflection", "0.3.1", "0.4.0"),  # passerby plurals, titleize
    Library("pyhumps", "humps", "3.7.3", "3.8.0"),  # whitespace and digits in case conversion
    Library("humanize", "humanize", "4.9.0", "4.10.0"),  # negative deltas, metric precision
    Library("humanize", "humanize", "4.10.0", "4.11.0"),  # naturalsize past 1000 ZB
    Library("roman", "roman", "3.1", "3.2"),  # 0 <-> "N"
    Library("validators", "validators", "0.28.0", "0.28.1"),  # domain: "__", trailing dot
    Library("wcwidth", "wcwidth", "0.2.6", "0.2.7"),  # Unicode 15.1 tables
    Library("tabulate", "tabulate", "0.8.10", "0.9.0"),  # headers="firstrow" on no rows, formats
)

# The held-out set, named here before any tuning of the input sources for issue #18 (it is the
# figure a new user can expect). None of these libraries was used, read or run while
# explore/ was written; their source is run by this harness only, never read to write inputs.
# Chosen as pure-Python distributions with sdists, no runtime dependency, and consecutive
# releases whose changelogs announce changed behaviour of public functions (iteration tools,
# TOML, IDNA/Unicode tables, emoji data, colour names, ISO 8601 dates, natural sorting, title
# casing, transliteration tables). A pair whose differential run finds no change is an error.
HELD_OUT = (
    Library("more-itertools", "more_itertools", "8.14.0", "9.0.0"),
    Library("more-itertools", "more_itertools", "9.0.0", "9.1.0"),
    Library("toml", "toml", "0.10.0", "0.10.1"),
    Library("idna", "idna", "3.3", "3.4"),
    Library("emoji", "emoji", "2.1.0", "2.2.0"),
    Library("webcolors", "webcolors", "1.12", "1.13"),
    Library("webcolors", "webcolors", "1.13", "24.6.0"),
    Library("iso8601", "iso8601", "1.0.2", "1.1.0"),
    Library("natsort", "natsort", "8.2.0", "8.3.0"),
    Library("titlecase", "titlecase", "2.3", "2.4"),
    Library("Unidecode", "unidecode", "1.3.6", "1.3.7"),
)
LIBRARIES = TUNING + HELD_OUT


class BenchError(Exception):
    """A comparison that could not run: the benchmark stops with exit 2."""


@dataclass
class Outcome:
    lib: Library
    functions: int = 0
    cases: int = 0
    false_drift: list[str] = field(default_factory=list)
    changed: dict[str, Change] = field(default_factory=dict)
    caught: list[str] = field(default_factory=list)
    flagged_elsewhere: list[str] = field(default_factory=list)
    why: dict[str, str] = field(default_factory=dict)  # function -> its first failing case
    # caught, but only because an exception's message changed (the same exception type):
    # usually an incidental error on a wrong-type input, a weak way to see a change
    by_message_only: list[str] = field(default_factory=list)
    bootstrap: str = ""
    seconds: float = 0.0


# -- fetching -----------------------------------------------------------------------------


def fetch(dist: str, version: str) -> Path:
    """The unpacked sdist of ``dist==version`` (downloaded once into the cache)."""
    unpacked = CACHE / "src" / f"{dist}-{version}"
    if unpacked.is_dir():
        return unpacked
    downloads = CACHE / "sdists"
    downloads.mkdir(parents=True, exist_ok=True)
    archive = next(iter(sorted(downloads.glob(f"{dist}-{version}.*"))), None)
    if archive is None:
        proc = subprocess.run(
            [*PIP_DOWNLOAD, "--dest", str(downloads), f"{dist}=={version}"],
            capture_output=True,
            text=True,
        )
        archive = next(iter(sorted(downloads.glob(f"{dist}-{version}.*"))), None)
        if proc.returncode != 0 or archive is None:
            raise BenchError(f"pip download {dist}=={version} failed: {proc.stderr.strip()[-500:]}")
    tmp = Path(tempfile.mkdtemp(dir=CACHE / "sdists"))
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                z.extractall(tmp)
        else:
            with tarfile.open(archive) as t:
                t.extractall(tmp, filter="data")
        (top,) = list(tmp.iterdir())
        unpacked.parent.mkdir(parents=True, exist_ok=True)
        top.rename(unpacked)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return unpacked


def package_source(sdist: Path, package: str) -> Path:
    """The package folder or module file inside an unpacked sdist."""
    for candidate in (sdist / package, sdist / "src" / package):
        if (candidate / "__init__.py").is_file():
            return candidate
    for candidate in (sdist / f"{package}.py", sdist / "src" / f"{package}.py"):
        if candidate.is_file():
            return candidate
    raise BenchError(f"{sdist.name}: no package or module named {package!r} in the sdist")


def test_files(sdist: Path, package: str) -> list[Path]:
    pkg = package_source(sdist, package)
    out = []
    for path in sorted(sdist.rglob("*.py")):
        inside = pkg.is_dir() and pkg in path.parents
        name = path.name
        testlike = name.startswith("test") or name.endswith("_test.py") or "tests" in path.parts
        if testlike and (not inside or name.startswith("test")):
            out.append(path)
    return out


def copy_tests(sdist: Path, package: str, dest: Path) -> int:
    """The old release's own test files, under ``dest`` (as in a project that has tests: the
    explorer may take inputs from them). Returns how many."""
    files = test_files(sdist, package)
    for path in files:
        parts = path.relative_to(sdist).parts
        while parts[0] in ("src", "tests", "test", package) and len(parts) > 1:
            parts = parts[1:]
        target = dest.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    return len(files)


def install_source(sdist: Path, package: str, src: Path) -> Path:
    """Copy the package into ``src`` (emptied first), with the metadata an installed
    distribution has (some packages read their own version at import); returns ``src``."""
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    pkg = package_source(sdist, package)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    if pkg.is_dir():
        shutil.copytree(pkg, src / package, ignore=ignore)
    else:
        shutil.copy2(pkg, src / pkg.name)
    name, _, version = sdist.name.rpartition("-")
    info = src / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    return src


# -- ground truth -------------------------------------------------------------------------


def ground_truth(lib: Library, old: Path, new: Path, work: Path) -> dict[str, Change]:
    old_src = install_source(old, lib.package, work / "old")
    new_src = install_source(new, lib.package, work / "new")
    functions = sorted(set(public_functions(old_src)) & set(public_functions(new_src)))
    tests = [
        (p, f"{lib.dist}-{ver}:{p.relative_to(sd)}")
        for ver, sd in ((lib.new, new), (lib.old, old))
        for p in test_files(sd, lib.package)
    ]
    sources = [
        (p, f"{lib.dist}-{ver}:{p.relative_to(s)}")
        for ver, s in ((lib.new, new_src), (lib.old, old_src))
        for p in sorted(s.rglob("*.py"))
    ]
    calls = harvest(functions, tests, sources)
    changes = changed_functions(old_src, new_src, calls)
    if not changes:
        raise BenchError(
            f"{lib.dist} {lib.old} -> {lib.new}: the differential run ({len(calls)} calls) found "
            "no behaviour change; choose another pair of releases"
        )
    return changes


# -- codemode -----------------------------------------------------------------------------


def _run(cmd: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV}
    env.pop("CODEMODE_MODEL", None)  # offline: the benchmark measures the offline explorer
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode not in ok:
        raise BenchError(
            f"{' '.join(cmd[:4])}... exited {proc.returncode}: {proc.stderr.strip()[-1500:]}"
        )
    return proc


def codemode(
    args: list[str], cwd: Path, ok: tuple[int, ...] = (0,)
) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "codemode", *args], cwd, ok)


def make_repo(root: Path, sdist: Path, package: str) -> None:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "bench-upgrade"\nversion = "0"\n\n'
        '[tool.codemode]\nspecs = ["specs/**/*.yml"]\nsource_roots = ["src"]\ntimeout = 5\n',
        encoding="utf-8",
    )
    install_source(sdist, package, root / "src")
    copy_tests(sdist, package, root / "tests")
    (root / "specs").mkdir()
    _run(["git", "init", "-q"], root)
    _run(["git", "add", "-A"], root)
    _run(["git", "commit", "-q", "-m", "old release"], root)


def bootstrap(root: Path) -> str:
    """Write specs for the old release; returns how."""
    codemode(["regen", "--all"], root, ok=(0, 1))
    if any((root / "specs").rglob("*.yml")):
        return "regen --all"
    ids = sorted(public_functions(root / "src"))
    args = ["regen"]
    for fid in ids:
        args += ["--function", fid]
    codemode(args, root, ok=(0, 1))
    if not any((root / "specs").rglob("*.yml")):
        raise BenchError(f"{root.name}: regen wrote no spec for {len(ids)} functions")
    return f"regen --function x{len(ids)} (regen --all wrote nothing)"


def check(root: Path) -> dict[str, dict[str, Any]]:
    proc = codemode(["check", "--all", "--format", "json"], root, ok=(0, 1))
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise BenchError(f"check --format json printed no JSON ({e}): {proc.stderr[-500:]}") from e
    return {f["id"]: f for f in report["functions"]}


def reason(function: dict[str, Any]) -> str:
    """The verdict and first failing case of a function in a JSON report, on one line."""
    for case in function.get("cases", ()):
        if case["status"] not in ("passed", "ok"):
            text = case.get("message") or f"{case.get('expected')!r} -> {case.get('observed')!r}"
            return f"{function['status']}: {case['id']}: {text}".replace("\n", " ")[:160]
    return f"{function['status']}: {function.get('message', '')}".replace("\n", " ")[:160]


def message_only(function: dict[str, Any]) -> bool:
    failing = [c for c in function.get("cases", ()) if c["status"] not in ("passed", "ok")]
    return bool(failing) and all(str(c.get("message", "")).startswith("message ") for c in failing)


def measure(lib: Library, tmp: Path) -> Outcome:
    started = time.perf_counter()
    out = Outcome(lib)
    old, new = fetch(lib.dist, lib.old), fetch(lib.dist, lib.new)
    out.changed = ground_truth(lib, old, new, tmp / "truth")
    root = tmp / f"{lib.dist}-{lib.old}"
    make_repo(root, old, lib.package)
    out.bootstrap = bootstrap(root)
    before = check(root)
    out.functions = len(before)
    out.cases = sum(len(f["cases"]) for f in before.values())
    out.false_drift = sorted(fid for fid, f in before.items() if f["status"] != "ok")
    out.why.update({fid: reason(before[fid]) for fid in out.false_drift})
    install_source(new, lib.package, root / "src")
    after = check(root)
    flagged = {fid for fid, f in after.items() if f["status"] in CAUGHT_STATUSES}
    flagged -= set(out.false_drift)
    out.caught = sorted(flagged & set(out.changed))
    out.flagged_elsewhere = sorted(flagged - set(out.changed))
    out.why.update({fid: reason(after[fid]) for fid in flagged})
    out.by_message_only = sorted(fid for fid in out.caught if message_only(after[fid]))
    out.seconds = time.perf_counter() - started
    return out


# -- printing -----------------------------------------------------------------------------


def show(o: Outcome) -> None:
    lib = o.lib
    print(
        f"{lib.dist} {lib.old} -> {lib.new}: functions {o.functions}, cases {o.cases}, "
        f"false drift {len(o.false_drift)}, caught {len(o.caught)}/{len(o.changed)} "
        f"({o.seconds:.1f} s; bootstrap: {o.bootstrap})"
    )
    for fid in o.false_drift:
        print(f"  FALSE DRIFT {fid}: {o.why[fid]}")
    for fid, ch in sorted(o.changed.items()):
        mark = "caught" if fid in o.caught else "MISSED"
        print(
            f"  {mark:6} {fid}: {ch.call.source()[:90]}  [{ch.call.origin}; "
            f"{ch.differing} of {ch.compared} calls differ]"
        )
        if fid in o.caught:
            weak = " (only an exception's message changed)" if fid in o.by_message_only else ""
            print(f"           {o.why[fid]}{weak}")
        if fid not in o.caught:
            print(f"           old {ch.old[:80]}  new {ch.new[:80]}")
    for fid in o.flagged_elsewhere:
        print(f"  also flagged (not in the differential's changes): {fid}: {o.why[fid]}")


def main(argv: list[str] | None = None) -> int:
    names = set(sys.argv[1:] if argv is None else argv)
    libs = [
        lib
        for lib in LIBRARIES
        if not names or lib.dist in names or f"{lib.dist}=={lib.old}" in names
    ]
    if not libs:
        print(f"no library named {sorted(names)}; known: {[lib.dist for lib in LIBRARIES]}")
        return 2
    started = time.perf_counter()
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="codemode-upgrade-") as tmp:
        for lib in libs:
            try:
                outcomes.append(measure(lib, Path(tmp)))
            except (BenchError, RuntimeError, subprocess.TimeoutExpired) as e:
                print(f"ERROR {lib.dist} {lib.old} -> {lib.new}: {e}", file=sys.stderr)
                return 2
            show(outcomes[-1])
    total = sum(len(o.changed) for o in outcomes)
    caught = sum(len(o.caught) for o in outcomes)
    false = sum(len(o.false_drift) for o in outcomes)
    share = caught / total if total else 0.0
    weak = sum(len(o.by_message_only) for o in outcomes)
    print(
        f"overall: {len({o.lib.dist for o in outcomes})} libraries, {len(outcomes)} upgrades, functions {sum(o.functions for o in outcomes)}, "
        f"cases {sum(o.cases for o in outcomes)}, false drift {false}, "
        f"caught {caught}/{total} = {share:.0%} (target >= {TARGET:.0%}, 0 false drift); "
        f"{weak} of the caught only through an exception's message"
    )
    print(f"elapsed: {time.perf_counter() - started:.1f} s")
    return 0 if share >= TARGET and false == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
