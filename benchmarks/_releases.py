"""Releases of real libraries for benchmarks/upgrade_detection.py: fetched from PyPI as
sdists (they carry the tests) into a cache outside the repository, laid out as a project's
source, and swapped into a git repository the way a pull request would bring them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CACHE = Path(os.environ.get("CODEMODE_BENCH_CACHE", Path.home() / ".cache" / "codemode-bench"))
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
# test data next to the tests is copied too (a project's tests read it), up to this size
MAX_TEST_DATA_BYTES = 2_000_000


class BenchError(Exception):
    """A comparison that could not run: the benchmark stops with exit 2."""


@dataclass(frozen=True)
class Library:
    dist: str  # name on PyPI
    package: str  # top-level import name
    old: str
    new: str


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _archive(downloads: Path, dist: str, version: str) -> Path | None:
    # sdist names vary: 'Unidecode-1.3.6.tar.gz', 'more_itertools-10.1.0.tar.gz'
    for path in sorted(downloads.iterdir()):
        for suffix in (".tar.gz", ".zip", ".tar.bz2"):
            name, _, ver = path.name[: -len(suffix)].rpartition("-")
            if path.name.endswith(suffix) and (_normal(name), ver) == (_normal(dist), version):
                return path
    return None


def fetch(dist: str, version: str, cache: Path | None = None) -> Path:
    """The unpacked sdist of ``dist==version`` (downloaded once into the cache)."""
    cache = cache or CACHE
    unpacked = cache / "src" / f"{dist}-{version}"
    if unpacked.is_dir():
        return unpacked
    downloads = cache / "sdists"
    downloads.mkdir(parents=True, exist_ok=True)
    archive = _archive(downloads, dist, version)
    if archive is None:
        proc = subprocess.run(
            [*PIP_DOWNLOAD, "--dest", str(downloads), f"{dist}=={version}"],
            capture_output=True,
            text=True,
        )
        archive = _archive(downloads, dist, version)
        if proc.returncode != 0 or archive is None:
            raise BenchError(f"pip download {dist}=={version} failed: {proc.stderr.strip()[-500:]}")
    tmp = Path(tempfile.mkdtemp(dir=downloads))
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
    roots = (sdist, sdist / "src", sdist / "lib")  # the layouts sdists use
    for candidate in (root / package for root in roots):
        if (candidate / "__init__.py").is_file():
            return candidate
    for candidate in (root / f"{package}.py" for root in roots):
        if candidate.is_file():
            return candidate
    raise BenchError(f"{sdist.name}: no package or module named {package!r} in the sdist")


def _testlike(path: Path, pkg: Path) -> bool:
    inside = pkg.is_dir() and pkg in path.parents
    name = path.name
    testlike = name.startswith("test") or name.endswith("_test.py") or "tests" in path.parts
    return testlike and (not inside or name.startswith("test"))


def test_files(sdist: Path, package: str) -> list[Path]:
    pkg = package_source(sdist, package)
    return [p for p in sorted(sdist.rglob("*.py")) if _testlike(p, pkg)]


def _test_data(sdist: Path, files: list[Path]) -> list[Path]:
    """Non-Python files in the folders the test files live in (and below), bounded."""
    out: list[Path] = []
    total = 0
    folders = {p.parent for p in files if p.parent != sdist}
    for folder in sorted(folders):
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.suffix in (".py", ".pyc") or path in out:
                continue
            total += path.stat().st_size
            if total > MAX_TEST_DATA_BYTES:
                return out
            out.append(path)
    return out


def copy_tests(sdist: Path, package: str, dest: Path) -> int:
    """The release's own test files and the data beside them, under ``dest`` (emptied first),
    as in a project that has tests. Returns how many test files."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    files = test_files(sdist, package)
    for path in [*files, *_test_data(sdist, files)]:
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


# The interpreter the releases of the upgrade being measured run in: this one, or a virtual
# environment with their runtime requirements (_requirements.interpreter); set per upgrade.
PYTHON = [sys.executable]


def run_beside(
    script: str, src: Path, payload: Any, what: str, args: tuple[str, ...] = (), python: str = ""
) -> list[str]:
    """Run ``script`` on the package under ``src`` in a fresh interpreter (``python``, else
    ``PYTHON``'s), ``payload`` as JSON on stdin, and read its JSON list of outcomes. Both
    releases run from one folder beside them: a function that returns a path from the
    working directory (humanfriendly's format_path('')) differed only by where each ran."""
    cwd = src.parent / "cwd"
    cwd.mkdir(exist_ok=True)
    proc = subprocess.run(
        [python or PYTHON[0], "-c", script, str(src), *args],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{what} under {src} failed: {proc.stderr.strip()[-2000:]}")
    try:
        out: list[str] = json.loads(proc.stdout)
    except ValueError:
        # exit 0 with no answer: a called function ended the runner's own process (os._exit,
        # a closed stdout); a RuntimeError, so this upgrade is an ERROR line, not the run's end
        raise RuntimeError(
            f"{what} under {src} gave no answer (stdout {proc.stdout[:200]!r}, "
            f"stderr {proc.stderr.strip()[-1000:]!r})"
        ) from None
    return out


# An outcome's text as the runners print it: the first 2,000 characters, and a digest of the
# rest, so two long outcomes that differ only past the cut (a table of 4,525 names against
# 4,916) are not the same outcome.
SHOWN = r"""
def shown(text):
    if len(text) <= 2000:
        return text
    import hashlib
    return text[:2000] + "...#" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]
"""
# The head of a runner script (_changelog, _witness): ``observe(thunk, seconds)`` is a call's
# outcome as both compare it: "value:<repr>" (an iterator's first items as a list, without
# `` at 0x...`` addresses), "raised:<Type>: <message>" or "timeout".
OBSERVE = (
    SHOWN
    + r"""
import contextlib, io, itertools, re, signal, types
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
def described(value):  # a runner may say more (_witness.RECHECK: an object's attributes)
    return ADDRESS.sub("", repr(value))
def alarm(signum, frame):
    raise TimeoutError("call took too long")
signal.signal(signal.SIGALRM, alarm)
def observe(thunk, seconds):
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            value = thunk()
            if isinstance(value, types.GeneratorType) or (
                hasattr(value, "__next__") and hasattr(value, "__iter__")
            ):
                value = list(itertools.islice(value, 1000))
        return "value:" + shown(described(value))
    except TimeoutError:
        return "timeout"
    except BaseException as e:
        return "raised:" + type(e).__name__ + ": " + ADDRESS.sub("", str(e))[:300]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
"""
)
