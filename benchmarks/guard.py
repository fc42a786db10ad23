"""Is this branch slower than REF? The throughput, scale and hook benchmarks of both, in one run.

    python benchmarks/guard.py --against main [--head HEAD] [--runs 5]

Both sides are built from git, never from the work tree: each commit is extracted with
``git archive`` and installed (not editable) into a virtualenv of its own, both under a cache
outside the repository (``$CODEMODE_BENCH_CACHE``, else ``~/.cache/codemode-bench``), keyed by
the commit and reused by later runs. Uncommitted edits are therefore not measured: commit first.

Then, with this checkout's benchmark projects (so both sides run the same inputs):

- throughput: ``codemode check`` of one spec file of 2,000 cases (benchmarks/verify_throughput.py);
- scale: ``codemode check --all`` of many small functions over many files (benchmarks/_scale.py;
  ``--scale 25000/5000/100`` is the issue's full size, the default is a fifth of it);
- hook: the ``codemode-check`` entry of a pre-commit hook env built from each side, on a no-op
  staged change and on a change to a spec'd function (benchmarks/hook_latency.py's project);
- heavy: the same entry, repeat runs with the warm worker, on a project whose spec'd module
  imports a module of the project that costs 0.8 s at import (hook_latency.py's, ``repo``).

Each command runs in rounds, the two sides alternating (A B, then B A), after a warm-up round;
the table gives the medians (wall clock, and CPU of the process and all it waited for) and the
ratio HEAD/REF per figure: under 1 is faster. On a busy machine trust the CPU column and the
ratio, not the absolute walls. The guard exits 2 when a side cannot be built or run (a bad ref,
an install that fails, a check that crashes, sides that disagree on the verdicts), 0 otherwise.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import _common
import _scale
import hook_latency
import verify_throughput

REPO_ROOT = Path(__file__).resolve().parents[1]
SLOWER = 1.10  # DEVELOPERS.md: a slowdown over 10% needs a reason in the commit message


class GuardError(Exception):
    """A side cannot be built or run: the comparison is void."""


class Side(NamedTuple):
    label: str  # the ref as given
    sha: str
    tree: Path  # the extracted commit
    python: Path  # its own venv's interpreter, codemode installed from ``tree``


class Run(NamedTuple):
    wall: float
    cpu: float
    rss_mb: float  # peak resident set of the largest process among it and its children
    stdout: str


def cache_dir() -> Path:
    env = os.environ.get("CODEMODE_BENCH_CACHE")
    path = Path(env) if env else Path.home() / ".cache" / "codemode-bench"
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Several engineers may build the same side at once: one builds, the others wait."""
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def git(*args: str) -> str:
    proc = subprocess.run(["git", "-C", str(REPO_ROOT), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise GuardError(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def build_side(ref: str, cache: Path) -> Side:
    sha = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    tree, venv = cache / "trees" / sha, cache / "venvs" / sha
    (cache / "trees").mkdir(exist_ok=True)
    (cache / "venvs").mkdir(exist_ok=True)
    with locked(cache / f"lock-{sha}"):
        if not tree.exists():
            tmp = Path(tempfile.mkdtemp(dir=cache / "trees"))
            archive = subprocess.run(
                ["git", "-C", str(REPO_ROOT), "archive", sha], capture_output=True, check=True
            )
            subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
            tmp.rename(tree)
        if not (venv / ".ready").exists():
            shutil.rmtree(venv, ignore_errors=True)
            print(f"installing {ref} ({sha[:10]}) into {venv} ...", flush=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            pip = subprocess.run(
                [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(tree)],
                capture_output=True,
                text=True,
            )
            if pip.returncode != 0:
                raise GuardError(f"{ref}: pip install failed:\n{pip.stderr[-2000:]}")
            (venv / ".ready").write_text(sha)
    return Side(ref, sha, tree, venv / "bin" / "python")


def run_once(cmd: Sequence[str], cwd: Path, env: dict[str, str]) -> Run:
    """One run, with the CPU and peak memory of the command and every process it waited for
    (``wait4`` reports them together: the worker and its forked children included), and the
    CPU of the resident parent's child that ran it, as its client notes it (#36)."""
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile() as probe,
    ):
        env = {**env, "CODEMODE_PROBE": probe.name}
        t0 = time.perf_counter()
        proc = subprocess.Popen(list(cmd), cwd=cwd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        if proc.returncode not in (0, 1):
            tail = err.read().decode(errors="replace")[-2000:]
            raise GuardError(f"{' '.join(cmd)}: exit {proc.returncode}\n{stdout[-1000:]}{tail}")
        cpu = usage.ru_utime + usage.ru_stime + hook_latency.served_cpu(Path(probe.name))
    return Run(wall, cpu, usage.ru_maxrss / 1024, stdout)


def interleaved(
    cmds: Sequence[tuple[Sequence[str], Path, dict[str, str]]], runs: int
) -> list[list[Run]]:
    """``runs`` timed rounds after a warm-up, alternating the order each round so that neither
    side always runs second (a busy second, a warm page cache)."""
    got: list[list[Run]] = [[] for _ in cmds]
    for round_ in range(runs + 1):
        order = list(range(len(cmds)))
        if round_ % 2:
            order.reverse()
        for i in order:
            run = run_once(*cmds[i])
            if round_:
                got[i].append(run)
    return got


class Figure(NamedTuple):
    name: str
    ref: list[Run]
    head: list[Run]


def median(runs: list[Run], field: str) -> float:
    return statistics.median(getattr(r, field) for r in runs)


def bench_env() -> dict[str, str]:
    env = _common.user_env()
    env.update(NO_COLOR="1", LOGFIRE_IGNORE_NO_CONFIG="1")
    return env


def same_verdicts(name: str, a: Run, b: Run) -> None:
    """Speed means nothing if the two sides do not agree on what passed."""
    ca, cb = (
        verify_throughput.codemode_counts(a.stdout),
        verify_throughput.codemode_counts(b.stdout),
    )
    if ca != cb:
        raise GuardError(f"{name}: the sides disagree on passed/failed counts: {ca} vs {cb}")


def throughput(sides: tuple[Side, Side], work: Path, runs: int, cases: int) -> list[Figure]:
    verify_throughput.WORK = work / "throughput"
    project, spec, _ = verify_throughput.build_project(cases, 20)
    env = bench_env()
    cmds = [
        (
            [
                str(s.python),
                "-m",
                "codemode",
                "check",
                "--root",
                str(project),
                str(spec),
                "--python",
                str(s.python),
            ],
            project,
            env,
        )
        for s in sides
    ]
    a, b = interleaved(cmds, runs)
    same_verdicts("throughput", a[0], b[0])
    return [Figure(f"throughput: check, {cases:,} cases in one file", a, b)]


def scale(
    sides: tuple[Side, Side], work: Path, runs: int, size: tuple[int, int, int]
) -> list[Figure]:
    proj = _scale.build_scale(work / "scale", *size)
    env = {**bench_env(), **_common.GIT_ENV}
    subprocess.run(["git", "init", "-q"], cwd=proj.root, check=True, env=env)
    cmds = [
        (
            [
                str(s.python),
                "-m",
                "codemode",
                "check",
                "--all",
                "--root",
                str(proj.root),
                "--python",
                str(s.python),
            ],
            proj.root,
            env,
        )
        for s in sides
    ]
    a, b = interleaved(cmds, runs)
    same_verdicts("scale", a[0], b[0])
    return [
        Figure(
            f"scale: check --all, {proj.cases:,} cases/{proj.functions:,} functions/"
            f"{proj.files} files",
            a,
            b,
        )
    ]


def hook_env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in bench_env().items() if not k.startswith("GIT_")}
    env.update(hook_latency.GIT_ENV, PRE_COMMIT_HOME=str(cache / "pre-commit-home"))
    return env


def hook_projects(
    sides: tuple[Side, Side], work: Path, cache: Path, heavy: bool = False
) -> tuple[list[Path], list[Path]]:
    """Each side's hook project (the heavy one: a module inside the repository that costs
    0.8 s at import, #36) and the codemode entry of the pre-commit env built from that side."""
    env = hook_env(cache)
    projects, entries = [], []
    for s in sides:
        repo = cache / "hookrepos" / s.sha
        with locked(cache / f"lock-{s.sha}"):
            if not repo.exists():  # pinned dates: the same commit every run, so pre-commit
                tmp = Path(tempfile.mkdtemp(dir=cache))  # reuses its env for it
                hook_latency.make_hook_repo(tmp, env, source=s.tree)
                repo.parent.mkdir(exist_ok=True)
                tmp.rename(repo)
        hook_sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
        ).stdout.strip()
        project = work / f"hook-{'heavy-' if heavy else ''}{s.sha[:10]}"
        project.mkdir()
        if heavy:
            hook_latency.make_heavy_project(project, repo, hook_sha, env, "repo")
        else:
            hook_latency.make_project(project, repo, hook_sha, env)
        projects.append(project)
        entries.append(hook_entry(cache / "pre-commit-home", repo))
    return projects, entries


def hooks(sides: tuple[Side, Side], work: Path, runs: int, cache: Path) -> list[Figure]:
    env = hook_env(cache)
    projects, entries = hook_projects(sides, work, cache)
    figures = []
    for name, (rel, text) in {
        "no-op": ("src/shop/text.py", hook_latency.TEXT_EDITED),
        "one-function": ("src/shop/pricing.py", hook_latency.PRICING_EDITED),
    }.items():
        for project in projects:
            hook_latency.must(["git", "reset", "-q", "--hard"], project, env)
            (project / rel).write_text(text)
            hook_latency.must(["git", "add", rel], project, env)
        cmds = [([str(e), "check", "--staged"], p, env) for e, p in zip(entries, projects)]
        a, b = interleaved(cmds, runs)
        figures.append(Figure(f"hook entry: check --staged, {name}", a, b))
    for e, p in zip(entries, projects):  # a side with the warm worker (#20) leaves it running
        subprocess.run([str(e), "worker", "stop"], cwd=p, env=env, capture_output=True)
    return figures


def heavy_hook(sides: tuple[Side, Side], work: Path, runs: int, cache: Path) -> list[Figure]:
    """The hook entry on a project whose spec'd module imports a module of the project that
    costs 0.8 s at import, each run staging the other of two refactors of the spec'd function
    (check and behaviour diff), as consecutive commits do; after two runs per side from no warm
    worker, so the figure is the repeat runs' (#36)."""
    env = hook_env(cache)
    projects, entries = hook_projects(sides, work, cache, heavy=True)
    edits = work / "heavy-edits"
    edits.mkdir()
    first, second = (
        hook_latency.REPORT_EDITED,
        hook_latency.REPORT_EDITED.replace("scale = ", "factor = ").replace("* scale", "* factor"),
    )
    (edits / "a.py").write_text(first)
    (edits / "b.py").write_text(second)
    rel = "src/shop/report.py"
    toggle = (
        f'if grep -q "scale = " {rel}; then cp {edits / "b.py"} {rel}; '
        f'else cp {edits / "a.py"} {rel}; fi && git add {rel} && exec "$0" check --staged'
    )
    cmds = [
        (["sh", "-c", toggle, str(e)], p, {**env, "CODEMODE_WARM": "1"})
        for e, p in zip(entries, projects)
    ]
    try:
        for cmd in cmds * 2:  # cold, then the warm worker's first run (it may still import)
            run_once(*cmd)
        a, b = interleaved(cmds, runs)
    finally:
        for e, p in zip(entries, projects):
            subprocess.run([str(e), "worker", "stop"], cwd=p, env=env, capture_output=True)
    return [Figure("hook entry: check --staged, heavy module in the repo", a, b)]


def hook_entry(home: Path, repo: Path) -> Path:
    """The codemode executable of the pre-commit env that pre-commit built for ``repo``."""
    import sqlite3

    with sqlite3.connect(home / "db.db") as db:
        rows = db.execute("SELECT path FROM repos WHERE repo = ?", (str(repo),)).fetchall()
    for (path,) in rows:
        found = sorted(Path(path).glob("py_env-*/bin/codemode"))
        if found:
            return found[-1]
    raise GuardError(f"pre-commit built no codemode env for {repo}")


def table(sides: tuple[Side, Side], figures: list[Figure]) -> list[str]:
    ref, head = sides
    lines = [
        f"{'figure':<58} {'measure':<9} {ref.label[:14] + ' ' + ref.sha[:7]:>22} "
        f"{head.label[:14] + ' ' + head.sha[:7]:>22} {'ratio':>7}",
    ]
    slower = []
    for f in figures:
        for field, unit in (("wall", "s"), ("cpu", "s"), ("rss_mb", "MB")):
            a, b = median(f.ref, field), median(f.head, field)
            ratio = b / a if a else float("nan")
            mark = " <" if field != "rss_mb" and ratio > SLOWER else ""
            if mark and field == "cpu":
                slower.append(f.name)
            name = f.name if field == "wall" else ""
            lines.append(
                f"{name:<58} {field:<9} {a:>19.3f} {unit:<2} {b:>19.3f} {unit:<2} {ratio:>6.2f}x{mark}"
            )
    lines.append(f"ratio = {head.label}/{ref.label}, medians; '<' marks a ratio over {SLOWER:.2f}")
    if slower:
        lines.append("CPU slower by over 10% on: " + "; ".join(slower))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--against", required=True, metavar="REF", help="the base, e.g. main")
    p.add_argument("--head", default="HEAD", metavar="REF", help="the side measured (HEAD)")
    p.add_argument("--runs", type=int, default=5, help="timed rounds per figure")
    p.add_argument("--cases", type=int, default=2000, help="cases of the throughput spec")
    p.add_argument("--scale", default="5000/1000/20", metavar="CASES/FUNCTIONS/FILES")
    p.add_argument("--only", action="append", choices=("throughput", "scale", "hook", "heavy"))
    a = p.parse_args(argv)
    if git("status", "--porcelain", "--untracked-files=no") and a.head == "HEAD":
        print("note: uncommitted edits are not measured (both sides come from git)")
    cache = cache_dir()
    work = Path(tempfile.mkdtemp(prefix="guard-", dir=cache))
    try:
        sides = (build_side(a.against, cache), build_side(a.head, cache))
        size = tuple(int(x) for x in a.scale.split("/"))
        load = os.getloadavg()[0]
        print(f"machine: {len(os.sched_getaffinity(0))} cores, load {load:.2f}; {a.runs} rounds")
        only = set(a.only or ("throughput", "scale", "hook", "heavy"))
        figures = []
        if "throughput" in only:
            figures += throughput(sides, work, a.runs, a.cases)
        if "scale" in only:
            figures += scale(sides, work, a.runs, size)  # type: ignore[arg-type]
        if "hook" in only:
            figures += hooks(sides, work, a.runs, cache)
        if "heavy" in only:
            figures += heavy_hook(sides, work, a.runs, cache)
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        print("\n".join(table(sides, figures)))
    except (GuardError, subprocess.CalledProcessError, SystemExit) as exc:
        print(f"guard: a side cannot run, so there is no comparison: {exc}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
