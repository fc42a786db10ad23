"""What does following a change further cost? (issue 32, "scope")

The impact analysis puts in a change's scope every public function that reaches changed code
(calls, instances it builds or holds, class attributes, special methods, dispatch...), up to
``impact_depth`` callers deep. Each function in scope is re-checked and diffed: an
over-approximation costs diff time, never a false alarm by itself (a witness still needs a
real difference on both releases). This benchmark measures that price on real upgrades.

For each upgrade of upgrade_detection.py's tuning and earlier sets that has announced
changes (the releases' source and tests, old committed, new committed on top, no specs), and
for each depth asked, it runs ``codemode diff --base`` (the scope) and ``codemode check
--base`` (the behaviour diff, timed by the report's own ``diff.seconds``), and prints:
functions in the diff's scope, the announced functions among them, the functions the diff
flagged ``changed``, and the diff's seconds. The totals line is the cost of each depth.

    python benchmarks/impact_reach_cost.py                 # depths 3, 6 and 1000
    python benchmarks/impact_reach_cost.py --depth 3 --depth 6 bracex
    python benchmarks/impact_reach_cost.py --python /path/to/other/venv/bin/python

The held-out set is never run here (see upgrade_detection.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import git
from _releases import copy_tests, fetch, install_source
from upgrade_detection import ANNOUNCED, EARLIER, TUNING

PYPROJECT = '[tool.codemode]\nspecs = ["specs/**/*.yml"]\nsource_roots = ["src"]\ntimeout = 5\n'


def _codemode(python: str, root: Path, *args: str) -> dict:
    out = subprocess.run(
        [python, "-m", "codemode", *args, "--format", "json"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if out.returncode not in (0, 1):
        raise RuntimeError(
            f"codemode {' '.join(args)} exited {out.returncode}: {out.stderr[-400:]}"
        )
    return json.loads(out.stdout)


def _upgrade(lib, root: Path) -> None:
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    git(root, "init", "-q")
    for version in (lib.old, lib.new):
        sdist = fetch(lib.dist, version)
        install_source(sdist, lib.package, root / "src")
        copy_tests(sdist, lib.package, root / "tests")
        git(root, "add", "-A")
        git(root, "commit", "-qm", version)


def measure(lib, depths: list[int], python: str) -> list[tuple[int, int, int, int, float]]:
    """Per depth: (depth, functions in scope, announced in scope, flagged changed, seconds)."""
    announced = {a.function for a in ANNOUNCED[(lib.dist, lib.old, lib.new)]}
    rows = []
    with tempfile.TemporaryDirectory(prefix="codemode-reach-") as tmp:
        root = Path(tmp)
        _upgrade(lib, root)
        for depth in depths:
            (root / "pyproject.toml").write_text(
                PYPROJECT + f"impact_depth = {depth}\n", encoding="utf-8"
            )
            scope = _codemode(python, root, "diff", "--base", "HEAD~1")["functions"]
            ids = {f["id"] for f in scope if f["status"] in ("modified", "impacted")}
            report = _codemode(python, root, "check", "--base", "HEAD~1")
            changed = [f["id"] for f in report["functions"] if f["status"] == "changed"]
            seconds = (report.get("diff") or {}).get("seconds") or 0.0
            rows.append((depth, len(ids), len(announced & ids), len(changed), seconds))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("only", nargs="*", help="distribution names (default: every upgrade)")
    parser.add_argument("--depth", type=int, action="append", help="impact depths to compare")
    parser.add_argument("--python", default=sys.executable, help="the codemode to measure")
    args = parser.parse_args()
    depths = args.depth or [3, 6, 1000]
    libs = [
        lib
        for lib in TUNING + EARLIER
        if ANNOUNCED.get((lib.dist, lib.old, lib.new)) and (not args.only or lib.dist in args.only)
    ]
    totals = {d: [0, 0, 0, 0, 0.0] for d in depths}
    n_announced = 0
    start = time.monotonic()
    for lib in libs:
        rows = measure(lib, depths, args.python)
        n_announced += len({a.function for a in ANNOUNCED[(lib.dist, lib.old, lib.new)]})
        cells = "; ".join(
            f"depth {d}: {n} in scope ({a} announced), {c} changed, diff {s:.1f} s"
            for d, n, a, c, s in rows
        )
        print(f"{lib.dist} {lib.old} -> {lib.new}: {cells}", flush=True)
        for d, n, a, c, s in rows:
            for i, v in enumerate((n, a, c, s)):
                totals[d][i] += v
    for d in depths:
        n, a, c, s = totals[d][:4]
        print(
            f"depth {d}: {n} functions in scope, {a}/{n_announced} announced functions in "
            f"scope, {c} flagged changed, behaviour diff {s:.1f} s in all"
        )
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{len(libs)} upgrades; elapsed {time.monotonic() - start:.0f} s; load {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
