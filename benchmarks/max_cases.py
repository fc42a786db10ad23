"""How many cases per function: the mutation score the offline bootstrap reaches for each
`max_cases`, the figure `[tool.codemode] max_cases`'s default is chosen by (#23).

For each value, a fresh copy of every project is bootstrapped offline (`regen --all` with that
`max_cases`), then each function whose spec passes `check` is mutated one first-order mutant
at a time and its spec checked again (benchmarks/mutation_score.py's `measure`): with
codemode's own operators (worker/mutants.py, the ones the selection aims at) and with
mutmut's (benchmarks/_mutmut_ops.py), an independent set that keeps the score honest.

The projects are the shop example and the old release of libraries from
upgrade_detection.py's TUNING set (sdists fetched at run time into ~/.cache/codemode-bench,
never committed), with their own tests. The HELD_OUT set is never used here: it is the
figure a new user can expect, and a default tuned on it would describe fit.

    python benchmarks/max_cases.py [--values 4,6,8,12,16] [--max-mutants 8] [LIB ...]

Prints, per value: cases per function, the share of mutants killed (both operator sets),
and the smallest value whose scores are within one point of the largest value's.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from mutation_score import EXAMPLE, Row, held_out_project, measure
from upgrade_detection import HELD_OUT, TUNING

# Small, pure-Python, quick to bootstrap: the first release of each, with its tests.
DEFAULT_LIBS = ("roman", "pyhumps", "inflection")


def projects(tmp: Path, libs: Sequence[str]) -> list[tuple[str, Path]]:
    shop = tmp / "shop"
    shutil.copytree(EXAMPLE, shop, ignore=shutil.ignore_patterns("specs", "__pycache__"))
    (shop / "specs").mkdir()
    subprocess.run(["git", "init", "-q", str(shop)], check=True)
    out = [("shop (example)", shop)]
    held = {lib.dist for lib in HELD_OUT}
    seen: set[str] = set()
    for lib in TUNING:
        if lib.dist in seen or lib.dist not in libs:
            continue
        assert lib.dist not in held, f"{lib.dist} is held out: never tune on it"
        seen.add(lib.dist)
        out.append((f"{lib.dist} {lib.old}", held_out_project(tmp, lib)))
    missing = set(libs) - seen
    if missing:
        raise SystemExit(f"not in upgrade_detection's TUNING set: {', '.join(sorted(missing))}")
    return out


def one_value(value: int, libs: Sequence[str], max_mutants: int) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix=f"codemode-max-cases-{value}-") as name:
        rows = [
            measure(root, label, max_mutants, (), value)
            for label, root in projects(Path(name), libs)
        ]
    return rows


def _pct(a: int, b: int) -> float:
    return 100.0 * a / b if b else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("libs", nargs="*", default=list(DEFAULT_LIBS))
    parser.add_argument("--values", default="4,6,8,12,16")
    parser.add_argument("--max-mutants", type=int, default=8, help="per function and operator set")
    args = parser.parse_args(argv)
    values = [int(v) for v in args.values.split(",")]
    started = time.perf_counter()
    table: dict[int, tuple[float, float, float]] = {}
    print(
        f"{'max_cases':>9} {'project':<22}{'funcs':>6}{'cases':>7}{'c/f':>6}{'own %':>7}{'mutmut %':>9}"
    )
    for value in values:
        rows = one_value(value, args.libs, args.max_mutants)
        for r in rows:
            print(
                f"{value:>9} {r.name:<22}{r.passing:>6}{r.cases:>7}"
                f"{r.cases / max(1, r.passing):>6.1f}{_pct(r.killed, r.mutants):>7.1f}"
                f"{_pct(*r.independent):>9.1f}"
            )
        funcs = sum(r.passing for r in rows)
        cases = sum(r.cases for r in rows)
        own = _pct(sum(r.killed for r in rows), sum(r.mutants for r in rows))
        ind = _pct(sum(r.independent[0] for r in rows), sum(r.independent[1] for r in rows))
        table[value] = (cases / max(1, funcs), own, ind)
        print(
            f"{value:>9} {'all':<22}{funcs:>6}{cases:>7}{cases / max(1, funcs):>6.1f}{own:>7.1f}{ind:>9.1f}",
            flush=True,
        )
    top = table[max(values)]
    enough = min(v for v, (_, own, ind) in table.items() if own >= top[1] - 1 and ind >= top[2] - 1)
    print(
        f"smallest max_cases within one point of max_cases={max(values)} on both operator sets: "
        f"{enough} ({table[enough][0]:.1f} cases per function against {top[0]:.1f})"
    )
    print(f"elapsed: {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
