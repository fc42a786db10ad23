"""How long does the behaviour diff of a 50-function pull request take? (issue 18, acceptance 2)

Builds a project of 50 modules, one public function each (branches on a threshold, text
built from its arguments, a docstring example, a test that calls it), commits it on `main`,
then a `feature` commit changes every function: the even ones move their threshold by one (a
behaviour change a witness shows), the odd ones are refactored (the same behaviour, other
code). Then times, alternating in one run (the machine's load hits both sides alike):

- ``codemode check --base main --no-diff``: the spec check alone;
- ``codemode check --base main``: the same with the behaviour diff;

and reports the medians, the diff's share (the difference), and what it found: functions
flagged (should be the 25 even ones) and false alarms (any odd one flagged).

Target: the diff of the 50-function pull request under 10 s on 2 cores.
Run: ``python benchmarks/behaviour_diff_pr.py [--functions 50] [--repeat 3] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import git

REPO_ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 10.0

MODULE = '''\
"""Module {i}: a threshold and a label."""

LIMIT = {limit}


def grade_{i}(points: int, label: str = "item") -> str:
    """The grade of a score.

    >>> grade_{i}({limit})
    'item:high'
    """
    if points >= LIMIT + {shift}:
        return f"{{label}}:high"
    if points < 0:
        raise ValueError("negative points")
    return f"{{label}}:low:{{points % {mod}}}"
'''

REFACTOR = '''\
"""Module {i}: a threshold and a label."""

LIMIT = {limit}


def grade_{i}(points: int, label: str = "item") -> str:
    """The grade of a score.

    >>> grade_{i}({limit})
    'item:high'
    """
    high = points >= LIMIT + {shift}
    if high:
        return label + ":high"
    if points < 0:
        raise ValueError("negative points")
    rest = points % {mod}
    return f"{{label}}:low:{{rest}}"
'''

TEST = """\
from demo.m{i} import grade_{i}


def test_grade_{i}():
    assert grade_{i}({below}) == "item:low:{low}"
"""


def _module(i: int, changed: bool) -> str:
    limit, mod = 100 + 7 * i, 3 + i % 5
    if not changed:
        return MODULE.format(i=i, limit=limit, shift=0, mod=mod)
    if i % 2 == 0:  # behaviour: the threshold moves up by one
        return MODULE.format(i=i, limit=limit, shift=1, mod=mod)
    return REFACTOR.format(i=i, limit=limit, shift=0, mod=mod)


def build(root: Path, n: int) -> Path:
    repo = root / "demo"
    (repo / "src" / "demo").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n[tool.codemode]\nsource_roots = ["src"]\n'
    )
    (repo / "src" / "demo" / "__init__.py").write_text("")
    for i in range(n):
        (repo / "src" / "demo" / f"m{i}.py").write_text(_module(i, False))
        below = 90 + 7 * i
        low = below % (3 + i % 5)
        (repo / "tests" / f"test_m{i}.py").write_text(TEST.format(i=i, below=below, low=low))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "feature")
    for i in range(n):
        (repo / "src" / "demo" / f"m{i}.py").write_text(_module(i, True))
    git(repo, "commit", "-qam", "feature")
    return repo


def run_check(repo: Path, *extra: str) -> tuple[float, float, dict[str, object]]:
    """(wall seconds, CPU seconds of codemode and its workers, the JSON report)."""
    cmd = [sys.executable, "-m", "codemode", "check", "--base", "main", "--format", "json"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    # An installed codemode has its bytecode compiled: compiling it on every run is not the
    # diff's cost.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([*cmd, *extra], cwd=repo, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"codemode check failed ({proc.returncode}): {proc.stderr[-2000:]}")
    cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    return elapsed, cpu, json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--functions", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="build the project here and keep it")
    args = ap.parse_args(argv)
    tmp = args.keep or Path(tempfile.mkdtemp(prefix="codemode-bdiff-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        repo = build(tmp, args.functions)
        plain: list[float] = []
        with_diff: list[float] = []
        plain_cpu: list[float] = []
        diff_cpu: list[float] = []
        report: dict[str, object] = {}
        for _ in range(args.repeat):  # alternating: both sides see the same load
            t, cpu, _ = run_check(repo, "--no-diff")
            plain.append(t)
            plain_cpu.append(cpu)
            t, cpu, report = run_check(repo)
            with_diff.append(t)
            diff_cpu.append(cpu)
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    functions = report.get("functions", [])
    assert isinstance(functions, list)
    flagged = {f["id"] for f in functions if f.get("witnesses")}
    want = {f"demo.m{i}.grade_{i}" for i in range(0, args.functions, 2)}
    false_alarms = sorted(flagged - want)
    missed = sorted(want - flagged)
    a, b = statistics.median(plain), statistics.median(with_diff)
    print(f"{args.functions} functions changed ({len(want)} in behaviour, the rest refactored)")
    print(f"check --no-diff: median {a:.2f} s   ({', '.join(f'{x:.2f}' for x in plain)})")
    print(f"check (diff):    median {b:.2f} s   ({', '.join(f'{x:.2f}' for x in with_diff)})")
    print(f"the behaviour diff adds {b - a:.2f} s (target < {TARGET_S:g} s on 2 cores)")
    ca, cb = statistics.median(plain_cpu), statistics.median(diff_cpu)
    load = os.getloadavg()[0]
    print(
        f"CPU (codemode and its workers, user+sys): {ca:.2f} s --no-diff, {cb:.2f} s with the "
        f"diff, +{cb - ca:.2f} s; load average {load:.1f} on {os.cpu_count()} cores (a wall "
        "figure taken under load over the core count is the queue for a core, not the diff)"
    )
    print(
        f"flagged {len(flagged & want)}/{len(want)}; missed {missed[:5]}; false alarms {false_alarms[:5]}"
    )
    ok = b - a < TARGET_S and not false_alarms and not missed
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
