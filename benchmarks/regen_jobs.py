"""``regen --all --jobs N`` against ``--jobs 1`` on a multi-module project (#20): wall and CPU.

    python benchmarks/regen_jobs.py [--modules 12] [--rounds 3] [--jobs 2]

Builds a project of ``--modules`` modules of four functions each (branches, text, numbers,
lists: the offline explorer's inputs, the mutation analysis and the gate all have work) in a
temp git repository, then runs the offline bootstrap ``codemode regen --all`` with
``--jobs 1`` and ``--jobs N`` in rounds that alternate which goes first, each from the
committed tree. For each side: the median wall time and the median CPU time of every process
of the run (codemode, its lanes, their workers and children: ``RUSAGE_CHILDREN``), and their
ratio. A shared, loaded machine makes the wall time noisy; the CPU time says what the lanes
cost. The two sides must write byte-identical spec files and the same report (less its
elapsed time), or the comparison means nothing: exit 2.
"""

from __future__ import annotations

import argparse
import hashlib
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

from _common import GIT_ENV

MODULE = '''\
def grade(score: int, curve: int = {m}) -> str:
    """The letter for a score, after the curve."""
    if score < 0:
        raise ValueError("negative score")
    s = score + curve
    if s >= 90:
        return "A"
    if s >= 75:
        return "B"
    if s >= 50:
        return "C"
    return "F"


def slug(text: str, sep: str = "-") -> str:
    words = [w for w in text.lower().split() if w.isalnum()]
    return sep.join(words)[: {m} + 20]


def total(prices: list[float], rate: float = 0.{m}) -> float:
    if not prices:
        return 0.0
    return round(sum(prices) * (1 + rate), 2)


def window(items: list[int], size: int = 2) -> list[int]:
    if size <= 0:
        raise ValueError("size must be positive")
    return [sum(items[i : i + size]) for i in range(0, len(items), size)]
'''


def build(root: Path, modules: int) -> None:
    (root / "src" / "proj").mkdir(parents=True)
    (root / "src" / "proj" / "__init__.py").write_text("")
    for m in range(modules):
        (root / "src" / "proj" / f"mod{m:02d}.py").write_text(MODULE.format(m=m + 1))
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\n')
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "init"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env)


def run(root: Path, jobs: int) -> tuple[float, float, str]:
    """Wall, CPU, and a digest of the spec files and the report; then the committed tree."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEMODE_")}
    env["CODEMODE_WARM"] = "0"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "codemode",
            "regen",
            "--all",
            "--jobs",
            str(jobs),
            "--root",
            str(root),
            "--python",
            sys.executable,
            "--format",
            "json",
            "-q",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"regen --jobs {jobs} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    report = json.loads(proc.stdout)
    report.pop("elapsed", None)  # the run's time: a field of the report (#34)
    digest = hashlib.sha256(json.dumps(report, sort_keys=True).encode())
    for path in sorted(root.glob("specs/*.yml")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    kept = Path(tempfile.gettempdir()) / f"regen-jobs-{digest.hexdigest()[:10]}"
    if not kept.exists():  # each distinct outcome, to compare when the runs disagree
        shutil.copytree(root / "specs", kept / "specs")
        (kept / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True))
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "clean", "-fdq"], cwd=root, check=True, env=env)
    subprocess.run(["git", "checkout", "-q", "."], cwd=root, check=True, env=env)
    return wall, cpu, digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    sides = (1, args.jobs)
    times: dict[int, list[tuple[float, float]]] = {j: [] for j in sides}
    digests: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="regen-jobs-") as tmp:
        root = Path(tmp) / "proj"
        build(root, args.modules)
        for r in range(args.rounds):
            for jobs in sides if r % 2 == 0 else sides[::-1]:
                wall, cpu, digest = run(root, jobs)
                times[jobs].append((wall, cpu))
                digests.setdefault(digest, []).append(f"round {r + 1} --jobs {jobs}")
                print(
                    f"round {r + 1}: --jobs {jobs}: wall {wall:.2f} s, CPU {cpu:.2f} s", flush=True
                )
    if len(digests) != 1:
        for digest, runs in digests.items():
            where = Path(tempfile.gettempdir()) / f"regen-jobs-{digest[:10]}"
            print(f"{', '.join(runs)}: wrote {where}", file=sys.stderr)
        print("the runs wrote different spec files or reports: no comparison", file=sys.stderr)
        return 2
    load = os.getloadavg()[0]
    med = {
        j: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t))
        for j, t in times.items()
    }
    one, many = med[1], med[args.jobs]
    print(
        f"{args.modules * 4} functions in {args.modules} modules, {args.rounds} rounds, load {load:.1f}"
    )
    for j in sides:
        print(f"--jobs {j}: median wall {med[j][0]:.2f} s, median CPU {med[j][1]:.2f} s")
    print(
        f"--jobs {args.jobs} / --jobs 1: wall {many[0] / one[0]:.2f}x, CPU {many[1] / one[1]:.2f}x"
    )
    print("spec files and report identical on both sides")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
