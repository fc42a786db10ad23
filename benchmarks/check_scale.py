"""``check --all`` at the issue's scale (#20, acceptance 2): cases per second on every core, against
N concurrent ``--shard K/N`` processes, and the peak memory of the whole process tree.

    python benchmarks/check_scale.py [--size 25000/5000/100] [--runs 3] [--serial]

The project is benchmarks/_scale.py's: 25,000 cases in 5,000 functions over 100 modules, one
spec file each, one case in 500 wrong on purpose. With this checkout's codemode (run it from a
virtualenv where it is installed), in rounds that alternate the order of the commands:

- ``codemode check --all`` with its default ``--jobs`` (the cores available);
- N ``codemode check --all --shard K/N`` processes started at once (N = the cores), timed until
  the last ends: the way to use every core before ``--jobs``;
- with ``--serial``, ``check --all --jobs 1`` too.

For each: the median wall time, cases per second, the CPU time of every process involved,
and the peak memory: the largest single
process (its peak RSS, from ``wait4``) and the whole tree at its largest (the sum of the
processes' proportional set sizes, PSS, sampled every 50 ms from /proc: pages a fork shares
count once). The shards' summed pass/fail counts must equal ``check --all``'s, or the
comparison means nothing (exit 2). Targets: >= 8,000 cases/s, ``check --all`` within 1.15x of
the shards, under 300 MB peak.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import _common
import _scale
import verify_throughput

from codemode.worker.orphans import descendants  # one reader of the process tree

TARGET_RATE = 8_000.0
TARGET_SHARDS = 1.15
TARGET_MB = 300.0


class Run(NamedTuple):
    wall: float
    cpu: float  # user + system of every process, workers and their children included
    rss_mb: float  # the largest single process's peak
    tree_mb: float  # the whole tree's peak PSS
    counts: tuple[int, int]  # passed, failed


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


class TreeMemory:
    """The peak, over the run, of the summed PSS of every process below this one."""

    def __init__(self) -> None:
        self.peak_kb = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        me = os.getpid()
        while not self.stop.wait(0.05):
            total = sum(_pss_kb(p) for p in descendants(me))
            self.peak_kb = max(self.peak_kb, total)

    def __enter__(self) -> TreeMemory:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


def run_together(cmds: Sequence[Sequence[str]], cwd: Path, env: dict[str, str]) -> Run:
    """Start every command at once; the wall time until the last ends."""
    with TreeMemory() as mem, contextlib.ExitStack() as files:
        outs = [
            (
                files.enter_context(tempfile.TemporaryFile()),
                files.enter_context(tempfile.TemporaryFile()),
            )
            for _ in cmds
        ]
        t0 = time.perf_counter()
        procs = [
            subprocess.Popen(list(c), cwd=cwd, env=env, stdout=o, stderr=e)
            for c, (o, e) in zip(cmds, outs)
        ]
        rss = cpu = 0.0
        passed = failed = 0
        for proc, (out, errf) in zip(procs, outs):
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            rss = max(rss, usage.ru_maxrss / 1024)
            cpu += usage.ru_utime + usage.ru_stime
            out.seek(0)
            errf.seek(0)
            text = out.read().decode(errors="replace")
            err = errf.read().decode(errors="replace")
            if proc.returncode not in (0, 1):
                raise SystemExit(f"{' '.join(proc.args)}: exit {proc.returncode}\n{err[-2000:]}")
            p, f = verify_throughput.codemode_counts(text)
            passed, failed = passed + p, failed + f
        wall = time.perf_counter() - t0
    return Run(wall, cpu, rss, mem.peak_kb / 1024, (passed, failed))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", default="25000/5000/100", metavar="CASES/FUNCTIONS/FILES")
    p.add_argument("--runs", type=int, default=3, help="timed rounds (median)")
    p.add_argument("--serial", action="store_true", help="also time check --all --jobs 1")
    p.add_argument(
        "--no-spec-cache",
        action="store_true",
        help="parse every spec file in every run (CODEMODE_SPEC_CACHE=0), as a fresh CI checkout",
    )
    a = p.parse_args(argv)
    cores = len(os.sched_getaffinity(0))
    work = Path(tempfile.mkdtemp(prefix="codemode-scale-"))
    try:
        return _measure(a, cores, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _measure(a: argparse.Namespace, cores: int, work: Path) -> int:
    cases, functions, files = (int(x) for x in a.size.split("/"))
    proj = _scale.build_scale(work / "scale", cases, functions, files)
    env = _common.user_env()
    env.update(_common.GIT_ENV, NO_COLOR="1", LOGFIRE_IGNORE_NO_CONFIG="1")
    subprocess.run(["git", "init", "-q"], cwd=proj.root, check=True, env=env)
    if a.no_spec_cache:
        env["CODEMODE_SPEC_CACHE"] = "0"
    base = [sys.executable, "-m", "codemode", "check", "--all", "-q"]
    base += ["--root", str(proj.root), "--python", sys.executable]
    variants: dict[str, list[list[str]]] = {
        "check --all": [base],
        f"{cores} x check --all --shard K/{cores}": [
            [*base, "--shard", f"{k}/{cores}"] for k in range(1, cores + 1)
        ],
    }
    if a.serial:
        variants["check --all --jobs 1"] = [[*base, "--jobs", "1"]]
    print(
        f"project: {proj.cases:,} cases, {proj.functions:,} functions, {proj.files} files "
        f"({proj.wrong} wrong on purpose); {cores} cores, load {os.getloadavg()[0]:.2f}; "
        + ("no spec cache" if a.no_spec_cache else "spec files read from the cache round 0 fills")
    )
    got: dict[str, list[Run]] = {name: [] for name in variants}
    names = list(variants)
    for round_ in range(a.runs + 1):  # round 0 warms the page cache and the bytecode
        for name in names if round_ % 2 == 0 else names[::-1]:
            run = run_together(variants[name], proj.root, env)
            if round_:
                got[name].append(run)
    counts = {run.counts for runs in got.values() for run in runs}
    if len(counts) != 1:
        print(f"the variants disagree on passed/failed counts: {counts}", file=sys.stderr)
        return 2
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    walls = {name: statistics.median(r.wall for r in runs) for name, runs in got.items()}
    for name, runs in got.items():
        wall = walls[name]
        print(
            f"{name:<34} {wall:8.2f} s wall ({', '.join(f'{r.wall:.2f}' for r in runs)}), "
            f"{proj.cases / wall:8,.0f} cases/s, "
            f"{statistics.median(r.cpu for r in runs):7.2f} s CPU; peak: largest process "
            f"{max(r.rss_mb for r in runs):6.1f} MB, whole tree {max(r.tree_mb for r in runs):6.1f} MB"
        )
    rate = proj.cases / walls["check --all"]
    ratio = walls["check --all"] / walls[names[1]]
    tree = max(r.tree_mb for r in got["check --all"])
    cpu = {name: statistics.median(r.cpu for r in runs) for name, runs in got.items()}
    print(
        f"check --all / shards: {ratio:.2f}x wall, {cpu[names[0]] / cpu[names[1]]:.2f}x CPU "
        "(on a busy machine the CPU ratio is the one to trust: the wall depends on the share "
        "of the cores each variant's processes get)"
    )
    print(
        f"targets: >= {TARGET_RATE:,.0f} cases/s: {'met' if rate >= TARGET_RATE else 'MISSED'}; "
        f"within {TARGET_SHARDS}x of the shards: {'met' if ratio <= TARGET_SHARDS else 'MISSED'}; "
        f"under {TARGET_MB:.0f} MB: {'met' if tree < TARGET_MB else 'MISSED'}"
    )
    return 0 if rate >= TARGET_RATE and ratio <= TARGET_SHARDS and tree < TARGET_MB else 1


if __name__ == "__main__":
    raise SystemExit(main())
