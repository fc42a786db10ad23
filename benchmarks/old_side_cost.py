"""What does the behaviour diff's old side cost beside a large tracked file? (issue 33, acceptance 2)

Builds one small project twice: alone, and tracking a large file (300 MB of random bytes by
default, stored uncompressed so the build is quick); stages the same one-line change of one
function in each; then measures, alternating the two repositories in each round (the machine's
load falls on both alike):

- the old side as the diff builds it (``change.old_side.build``): the bytes it writes, and the
  size of the folder it leaves to the worker;
- ``codemode check --staged`` (the spec check and the behaviour diff, which finds the witness):
  wall clock, median per repository, for each ``--python`` given (another checkout's
  interpreter, e.g. main's, to compare with the old side written as a whole tree).

Targets: under 1 MB written; the large repository's median within 10% (+0.1 s) of the small
one's, for this checkout.
Run: ``python benchmarks/old_side_cost.py [--mb 300] [--repeat 5] [--python PY ...] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common
from _common import git

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "src"))
MB = 1 << 20

LABEL = '''\
def label(n: int) -> str:
    """A label."""
    return "#" + str(n)
'''


def build(root: Path, big_mb: int) -> Path:
    repo = root / f"tracks-{big_mb}mb"
    (repo / "src" / "demo").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n[tool.codemode]\nsource_roots = ["src"]\n'
    )
    (repo / "src" / "demo" / "__init__.py").write_text("")
    (repo / "src" / "demo" / "labels.py").write_text(LABEL)
    if big_mb:
        (repo / "data").mkdir()
        with open(repo / "data" / "big.bin", "wb") as f:
            for _ in range(big_mb):
                f.write(os.urandom(MB))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "core.compression=0", "add", "-A")
    git(repo, "commit", "-qm", "base")
    (repo / "src" / "demo" / "labels.py").write_text(LABEL.replace('"#"', '"No. "'))
    git(repo, "add", "-A")
    return repo


def old_side_bytes(repo: Path) -> tuple[int, int]:
    """(bytes the old side wrote, bytes in its folder, manifest included)."""
    from codemode.change import git as cgit
    from codemode.change.old_side import build as build_old

    folder = Path(tempfile.mkdtemp(prefix="old-side-"))
    try:
        head = cgit.commit_or_none(repo, "HEAD")
        assert head is not None
        got = build_old(repo, repo, head, folder)
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        return got.written, size
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def check_seconds(python: str, repo: Path) -> float:
    env = {**_common.user_env(), **_common.GIT_ENV, "CODEMODE_WARM": "0"}
    t0 = time.perf_counter()
    proc = subprocess.run(
        [python, "-m", "codemode", "check", "--staged"], cwd=repo, capture_output=True, env=env
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode != 1 or b"label(3)" not in proc.stdout:  # the witness, `changed`
        raise SystemExit(f"{python}: no witness ({proc.returncode}):\n{proc.stdout.decode()}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=300, help="the large tracked file, in MB")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--python", action="append", help="an interpreter with codemode (repeatable)")
    ap.add_argument("--keep", type=Path, help="build the repositories here and keep them")
    args = ap.parse_args(argv)
    pythons = args.python or [sys.executable]
    tmp = args.keep or Path(tempfile.mkdtemp(prefix="codemode-oldside-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        repos = [build(tmp, 0), build(tmp, args.mb)]
        written = [old_side_bytes(r) for r in repos]
        times: dict[tuple[str, int], list[float]] = {}
        for _ in range(args.repeat + 1):  # the first round warms the bytecode caches
            for python in pythons:
                for i, repo in enumerate(repos):
                    times.setdefault((python, i), []).append(check_seconds(python, repo))
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"one-line change; the second repository tracks a {args.mb} MB file beside it")
    for (w, size), name in zip(written, ("alone", f"{args.mb} MB")):
        print(f"old side written ({name}): {w} bytes of old content, {size} bytes in its folder")
    ok = all(size < MB for _, size in written)
    load = os.getloadavg()[0]
    print(f"check --staged (diff included), median of {args.repeat}, load {load:.1f}:")
    for k, python in enumerate(pythons):
        small, big = (statistics.median(times[(python, i)][1:]) for i in (0, 1))
        print(f"  {python}: alone {small:.3f} s, beside {args.mb} MB {big:.3f} s")
        if k == 0:
            ok = ok and big <= small * 1.10 + 0.1
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
