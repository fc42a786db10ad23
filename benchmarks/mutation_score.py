"""Mutation score of the specs the offline explorer writes for real PyPI libraries.

For each library (sdists fetched with pip into ~/.cache/codemode-bench at run time, never
committed) and for the shop example: a temp project holds the library's modules, and
`regen` bootstraps specs for them offline. Then every function whose spec passes `check`
on the unchanged code is mutated in its file, one first-order mutant at a time (string
constants changed, calls dropped such as `.lower()`, operators and comparisons swapped,
numbers changed, `not` dropped, returns replaced by None; the operators of
codemode/worker/mutants.py), and the function's spec is checked again in a fresh worker.
The same is done with an independent operator set, mutmut's (benchmarks/_mutmut_ops.py),
whose score is printed beside codemode's own: the selector chooses cases that kill
codemode's mutants, so its own score alone describes fit.
A mutant is killed when the spec fails. Equivalent mutants count as survivors, so the
score is a lower bound.

Printed per library: functions, specs passing, cases, mutants, killed % (overall and for
string and dropped-call mutants), the share of cases whose outcome is an incidental
wrong-type error, and bootstrap seconds per function; then the totals.

    python benchmarks/mutation_score.py [--max-mutants 25] [--max-cases N] [LIB ...]

Targets (issue #12): >= 40 library functions, >= 85% of mutants killed, <= 5% incidental.
No mutant is left out of the score except those the operators never make: translation
lookups and log lines (worker/mutants.py ``_I18N``), which no spec can observe.
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import _mutmut_ops as independent_ops
from _releases import Library, copy_tests, fetch, install_source
from upgrade_detection import HELD_OUT

from codemode.check.verify import Verifier
from codemode.config import load_config
from codemode.explore.writing.regen import run_regen
from codemode.scope import Scope
from codemode.specs.index import build_index
from codemode.worker import mutants as mutation_ops
from codemode.worker.make import make_worker

CACHE = Path.home() / ".cache" / "codemode-bench"
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "shop"
INCIDENTAL = ("TypeError", "AttributeError")


class Lib(NamedTuple):
    dist: str
    version: str
    copy: tuple[tuple[str, str], ...]  # (path in the sdist, path in the project)
    modules: tuple[str, ...]  # project-relative module files to bootstrap
    deps: tuple[tuple[str, str, str], ...] = ()  # (dist, version, package path in its sdist)
    patch: tuple[tuple[str, str, str], ...] = ()  # (file, old, new): make it import uninstalled


LIBS = (
    Lib(
        "python-slugify",
        "8.0.1",
        (("slugify", "src/slugify"),),
        ("src/slugify/slugify.py",),
        deps=(("text-unidecode", "1.3", "src/text_unidecode"),),
    ),
    Lib("inflection", "0.5.1", (("inflection", "src/inflection"),), ("src/inflection",)),
    Lib(
        "humanize",
        "4.9.0",
        (("src/humanize", "src/humanize"),),
        ("src/humanize/number.py", "src/humanize/filesize.py", "src/humanize/time.py"),
        patch=(
            (
                "src/humanize/__init__.py",
                "importlib.metadata.version(__name__)",
                '"4.9.0"',
            ),
        ),
    ),
    Lib(
        "boltons",
        "23.1.1",
        (
            ("boltons/__init__.py", "src/boltons/__init__.py"),
            ("boltons/strutils.py", "src/boltons/strutils.py"),
        ),
        ("src/boltons/strutils.py",),
    ),
)


def sdist(dist: str, version: str) -> Path:
    """The unpacked sdist, downloaded with pip once into the cache."""
    out = CACHE / f"{dist}-{version}"
    if out.is_dir():
        return out
    CACHE.mkdir(parents=True, exist_ok=True)
    dl = CACHE / "downloads"
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"]
    subprocess.run([*cmd, "-d", str(dl), f"{dist}=={version}"], check=True)
    archive = next(
        p
        for p in dl.iterdir()
        if p.name.lower().replace("_", "-").startswith(f"{dist}-{version}".lower())
    )
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        [top] = list(Path(tmp).iterdir())
        top.rename(out)
    return out


def _place(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    else:
        shutil.copy2(src, dst)


def held_out_project(tmp: Path, lib: Library) -> Path:
    """A project holding the old release of one held-out upgrade (benchmarks/
    upgrade_detection.py HELD_OUT) with its own tests, laid out as upgrade_detection does."""
    root = tmp / f"{lib.dist}-{lib.old}"
    sd = fetch(lib.dist, lib.old)
    install_source(sd, lib.package, root / "src")
    copy_tests(sd, lib.package, root / "tests")
    (root / "specs").mkdir()
    (root / "pyproject.toml").write_text('[tool.codemode]\nsource_roots = ["src"]\ntimeout = 5\n')
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def make_project(tmp: Path, lib: Lib) -> Path:
    root = tmp / lib.dist
    base = sdist(lib.dist, lib.version)
    for inside, where in lib.copy:
        _place(base / inside, root / where)
    for dist, version, pkg in lib.deps:  # installed-looking: outside the project's code
        _place(sdist(dist, version) / pkg, root / "_deps" / "site-packages" / Path(pkg).name)
    for rel, old, new in lib.patch:
        path = root / rel
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    (root / "specs").mkdir()
    (root / "pyproject.toml").write_text(
        '[tool.codemode]\nsource_roots = ["src", "_deps/site-packages"]\n'
        'exclude = ["_deps/**"]\ntimeout = 5\n'
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


class Row(NamedTuple):
    name: str
    functions: int
    passing: int
    cases: int
    incidental: int
    mutants: int
    killed: int
    strings: tuple[int, int]  # (killed, total)
    dropped: tuple[int, int]
    seconds: float
    survivors: tuple[str, ...]
    independent: tuple[int, int] = (0, 0)  # (killed, total) under mutmut's operators


def _kind(desc: str) -> str:
    if desc.startswith("string"):
        return "string"
    if desc.startswith("drop call"):
        return "dropped"
    return "other"


def _find(tree: ast.Module, name: str) -> int | None:
    for i, node in enumerate(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return i
    return None


def _locate(tree: ast.Module, qualname: str, methods: bool) -> tuple[list[ast.stmt], int] | None:
    """The statement list holding the function and its index there: a module-level function,
    or with ``methods`` a method of a module-level class (``Wallet.withdraw``)."""
    if "." not in qualname:
        index = _find(tree, qualname)
        return None if index is None else (tree.body, index)
    cls, _, name = qualname.partition(".")
    if not methods or "." in name:
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for i, item in enumerate(node.body):
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                    return node.body, i
    return None


def _sample(n: int, limit: int) -> list[int]:
    if n <= limit:
        return list(range(n))
    return sorted({round(i * (n - 1) / (limit - 1)) for i in range(limit)})


def measure(
    root: Path, name: str, max_mutants: int, modules: Sequence[str], max_cases: int | None = None
) -> Row:
    config = load_config(root)
    if max_cases:  # as `[tool.codemode] max_cases` would set it
        config = config.replace(max_cases=max_cases)
    started = time.perf_counter()
    scope = Scope("paths", paths=tuple(str(root / m) for m in modules)) if modules else Scope("all")
    report = run_regen(config, scope, dry_run=False)
    seconds = time.perf_counter() - started
    functions = [f for f in report.functions]
    written = [f.id for f in functions if f.status == "ok"]
    by_id = {f.id: (s, f) for s in build_index(config).files for f in s.functions}
    passing: list[str] = []
    cases = incidental = 0
    worker = make_worker(config)
    try:
        for fid in written:
            s, f = by_id[fid]
            fr, _ = Verifier(config, worker).verify_function(s, f)
            if fr.status == "ok":
                passing.append(fid)
                cases += len(f.cases)
                # a project's own TypeError gets a `match:`; one without it is an accident
                incidental += sum(1 for c in f.cases if c.raises in INCIDENTAL and not c.match)
    finally:
        worker.close()
    total = killed = 0
    kinds = {"string": [0, 0], "dropped": [0, 0]}
    survivors: list[str] = []
    independent = [0, 0]
    for fid in passing:
        for _, dead in mutate_function(
            config, root, fid, by_id[fid], max_mutants, independent_ops
        ):
            independent[0] += dead
            independent[1] += 1
        outcome = mutate_function(config, root, fid, by_id[fid], max_mutants, mutation_ops)
        for desc, dead in outcome:
            total += 1
            killed += dead
            if _kind(desc) in kinds:
                kinds[_kind(desc)][0] += dead
                kinds[_kind(desc)][1] += 1
            if not dead:
                survivors.append(f"{fid}: {desc}")
    return Row(
        name,
        len(functions),
        len(passing),
        cases,
        incidental,
        total,
        killed,
        (kinds["string"][0], kinds["string"][1]),
        (kinds["dropped"][0], kinds["dropped"][1]),
        seconds,
        tuple(survivors),
        (independent[0], independent[1]),
    )


def mutate_function(
    config: object,
    root: Path,
    fid: str,
    spec_func: tuple[object, object],
    max_mutants: int,
    ops: Any,
    methods: bool = False,
) -> list[tuple[str, int]]:
    from codemode.explore.target import split_id

    cfg = config  # a Config; typed loosely to keep this script's signature short
    _, qualname, path = split_id(cfg, fid)  # type: ignore[arg-type]
    original = path.read_text(encoding="utf-8")
    tree = ast.parse(original)
    found = _locate(tree, qualname, methods)
    if found is None:
        return []
    body, index = found
    fn = body[index]
    assert isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
    sites = ops.count(fn)
    out: list[tuple[str, int]] = []
    s, f = spec_func
    try:
        for k in _sample(len(sites), max_mutants):
            body[index] = ops.mutate(fn, k)
            try:
                text = ast.unparse(ast.fix_missing_locations(tree))
            except Exception:
                continue
            path.write_text(text, encoding="utf-8")
            worker = make_worker(cfg.replace(timeout=2.0))  # type: ignore[attr-defined]
            try:
                fr, _ = Verifier(cfg, worker).verify_function(s, f)  # type: ignore[arg-type]
            finally:
                worker.close()
            out.append((sites[k][0], int(fr.status != "ok")))
    finally:
        body[index] = fn
        path.write_text(original, encoding="utf-8")
    return out


def _pct(a: int, b: int) -> str:
    return f"{a / b:.0%}" if b else "-"


def show(rows: Sequence[Row]) -> None:
    head = f"{'library':<16}{'funcs':>6}{'specs':>6}{'cases':>6}{'mutants':>8}{'killed':>8}"
    head += f"{'strings':>9}{'dropped':>9}{'incid.':>7}{'s/func':>8}{'mutmut-ops':>12}"
    print(head)
    for r in rows:
        print(
            f"{r.name:<16}{r.functions:>6}{r.passing:>6}{r.cases:>6}{r.mutants:>8}"
            f"{_pct(r.killed, r.mutants):>8}{_pct(*r.strings):>9}{_pct(*r.dropped):>9}"
            f"{_pct(r.incidental, r.cases):>7}{r.seconds / max(1, r.functions):>8.2f}"
            f"{_pct(*r.independent):>12}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("libs", nargs="*", help="dist names (default: all)")
    parser.add_argument("--max-mutants", type=int, default=25, help="per function (default 25)")
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    parser.add_argument("--max-cases", type=int, default=None, help="[tool.codemode] max_cases")
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="score the old releases of upgrade_detection's held-out set instead (LIB filters)",
    )
    args = parser.parse_args(argv)
    chosen = [lib for lib in LIBS if not args.libs or lib.dist in args.libs]
    started = time.perf_counter()
    rows: list[Row] = []
    if args.held_out:
        chosen = []
        olds = {lib.dist: lib for lib in reversed(HELD_OUT)}  # the first release of each
        with tempfile.TemporaryDirectory(prefix="codemode-mutation-") as name:
            for dist, lib in sorted(olds.items()):
                if args.libs and dist not in args.libs:
                    continue
                root = held_out_project(Path(name), lib)
                label = f"{dist} {lib.old}"[:15]
                rows.append(measure(root, label, args.max_mutants, (), args.max_cases))
                print(f"  {dist}: done", file=sys.stderr, flush=True)
                chosen.append(lib)  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory(prefix="codemode-mutation-") as name:
        tmp = Path(name)
        if not args.held_out and (not args.libs or "shop" in args.libs):
            shop = tmp / "shop"
            shutil.copytree(EXAMPLE, shop, ignore=shutil.ignore_patterns("specs", "__pycache__"))
            (shop / "specs").mkdir()
            subprocess.run(["git", "init", "-q", str(shop)], check=True)
            rows.append(measure(shop, "shop (example)", args.max_mutants, (), args.max_cases))
        for lib in chosen if not args.held_out else []:
            root = make_project(tmp, lib)
            rows.append(measure(root, lib.dist, args.max_mutants, lib.modules, args.max_cases))
            print(f"  {lib.dist}: done", file=sys.stderr, flush=True)
    show(rows)
    libs = [r for r in rows if not r.name.endswith("(example)")]
    funcs = sum(r.passing for r in libs)
    total = sum(r.mutants for r in libs)
    killed = sum(r.killed for r in libs)
    cases = sum(r.cases for r in libs)
    incid = sum(r.incidental for r in libs)
    strings = (sum(r.strings[0] for r in libs), sum(r.strings[1] for r in libs))
    dropped = (sum(r.dropped[0] for r in libs), sum(r.dropped[1] for r in libs))
    seconds = sum(r.seconds for r in libs)
    n_funcs = sum(r.functions for r in libs)
    print(
        f"libraries: {funcs} functions with passing specs; mutants {total}, killed "
        f"{killed}/{total} = {killed / max(1, total):.1%} (strings {_pct(*strings)} of {strings[1]}, dropped calls "
        f"{_pct(*dropped)} of {dropped[1]}); incidental wrong-type cases {incid}/{cases} "
        f"({_pct(incid, cases)})"
    )
    indep = (sum(r.independent[0] for r in libs), sum(r.independent[1] for r in libs))
    print(
        f"independent operators (mutmut's, benchmarks/_mutmut_ops.py): killed "
        f"{indep[0]}/{indep[1]} = {indep[0] / max(1, indep[1]):.1%}, beside codemode's own "
        f"{killed}/{total} = {killed / max(1, total):.1%}"
    )
    print(
        f"bootstrap: {n_funcs} functions in {seconds:.1f} s "
        f"({seconds / max(1, n_funcs):.2f} s per function)"
    )
    if args.survivors:
        for r in rows:
            for s in r.survivors:
                print(f"  survived: {s}")
    print(f"elapsed: {time.perf_counter() - started:.0f} s")
    ok = funcs >= 40 and total and killed / total >= 0.85 and incid <= 0.05 * cases
    if not chosen:
        print("no library ran: the comparison cannot be made", file=sys.stderr)
        return 1
    return 0 if ok or args.libs else 1


if __name__ == "__main__":
    sys.exit(main())
