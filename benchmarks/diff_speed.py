"""How fast is ``codemode diff``? (issue 3, acceptance 3)

Builds a repository of 2,000 modules with 20 functions each (a class with methods, calls into
two sibling modules, a module constant), commits, then a second commit that edits one function
in each of 500 modules, and times in one run:

- ``git diff --stat`` between the two commits (the floor: git alone),
- a naive baseline: read every changed blob (both sides) and ``ast.parse`` it whole, two ways:
  the GitPython way (``commit.diff`` + ``blob.data_stream``) and a fast way (``git cat-file --batch``),
- ``codemode diff --base HEAD~1 --format json`` in a fresh process, cold (empty cache) and warm
  (second run); and what of warm is the interpreter, the CLI, and ``analyze()`` itself,
- the staged path with five staged files (what a pre-commit hook pays): the first run ever,
  the next edit (per-blob cache warm), and the same staged content again,
- the peak RSS of the largest child process.

The objects are packed, as in a clone (a CI checkout); ``--loose`` leaves them loose.
Targets (issue 20, acceptance 3): cold <= 0.6x naive, warm <= 3x ``git diff --stat``, both
under 1 s.

Which interpreter runs ``codemode``: by default a clean virtual environment made from this
interpreter (``venv --without-pip``, codemode's source on its path, nothing else), as a
project's own environment is; the verdict uses it. The same runs under this interpreter
(whose global site-packages may do work at every start: this machine's imports ``certifi``
through a ``.pth``, ~35 ms) are printed too, with their own verdict. ``--no-venv`` skips
the clean environment and judges this interpreter. The naive baselines run in this process.
Run: ``python benchmarks/diff_speed.py [--modules 2000] [--touch 500] [--keep DIR] [--loose]
[--no-venv]``.
"""

from __future__ import annotations

import argparse
import ast
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import _common
from _common import git

FUNCS_PER_MODULE = 20
GIT_ENV = _common.GIT_ENV


def module_text(i: int, n_modules: int, edited: bool = False) -> str:
    """A realistic-ish module: imports of two siblings, a constant, 14 functions and a class
    with 6 methods that call each other and the siblings' helpers."""
    a, b = (i + 1) % n_modules, (i + 7) % n_modules
    lines = [
        f'"""Module {i}: generated for the diff benchmark."""',
        "",
        "from __future__ import annotations",
        "",
        "import math",
        "",
        f"from pkg import m{a:04d}",
        f"from pkg.m{b:04d} import f{b:04d}_00 as other",
        "",
        f"LIMIT_{i:04d} = {i % 97 + 3}",
        "",
    ]
    for k in range(14):
        name = f"f{i:04d}_{k:02d}"
        body_edit = "    total += 1  # edited\n" if edited and k == 3 else ""
        call = f"f{i:04d}_{k - 1:02d}(x)" if k else f"m{a:04d}.f{a:04d}_05(x)"
        lines.append(
            f"def {name}(x: int, y: int = 2) -> int:\n"
            f'    """Return something about {name}; docstrings are not part of the fingerprint."""\n'
            f"    total = x * y + {k}\n"
            f"{body_edit}"
            f"    for j in range(y):\n"
            f"        total += math.isqrt(abs(total) + j)  # a comment\n"
            f"    if total > LIMIT_{i:04d}:\n"
            f"        total -= {call}\n"
            f"    return total + other(y)\n"
        )
    lines.append(f"class Thing{i:04d}:")
    lines.append('    """A class with six methods."""\n')
    lines.append("    def __init__(self, value: int) -> None:\n        self.value = value\n")
    for k in range(15, 20):
        lines.append(
            f"    def meth_{k:02d}(self, x: int) -> int:\n"
            f"        if x < 0:\n"
            f"            raise ValueError('negative')\n"
            f"        return self.value + f{i:04d}_{k - 10:02d}(x)\n"
        )
    return "\n".join(lines) + "\n"


def make_repo(root: Path, n_modules: int, n_touch: int, pack: bool = True) -> None:
    pkg = root / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for i in range(n_modules):
        (pkg / f"m{i:04d}.py").write_text(module_text(i, n_modules))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    step = max(1, n_modules // n_touch)
    for i in range(0, step * n_touch, step):
        (pkg / f"m{i:04d}.py").write_text(module_text(i, n_modules, edited=True))
    git(root, "commit", "-q", "-am", "touch")
    if pack:
        git(root, "gc", "-q")  # as a clone (a CI checkout) is: packed, not loose objects


def timed(fn: Callable[[], object], repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def naive_gitpython(root: Path) -> int:
    import git as gitpython  # the straightforward GitPython way

    repo = gitpython.Repo(root)
    head = repo.head.commit
    n = 0
    for d in head.parents[0].diff(head):
        for blob in (d.a_blob, d.b_blob):
            if blob is not None and str(blob.path).endswith(".py"):
                ast.parse(blob.data_stream.read())
                n += 1
    return n


def naive_catfile(root: Path) -> int:
    """Read every changed blob with one ``git cat-file --batch`` and parse it whole."""
    raw = git(root, "diff", "--raw", "-z", "--no-abbrev", "HEAD~1", "HEAD").split("\0")
    shas = []
    for i in range(0, len(raw) - 1, 2):
        meta, path = raw[i], raw[i + 1]
        if path.endswith(".py"):
            _, _, old, new, _ = meta.split(" ")
            shas += [s for s in (old, new) if set(s) != {"0"}]
    out = subprocess.run(
        ["git", "cat-file", "--batch"],
        cwd=root,
        input="\n".join(shas).encode() + b"\n",
        capture_output=True,
        check=True,
    ).stdout
    pos = n = 0
    while pos < len(out):
        nl = out.index(b"\n", pos)
        size = int(out[pos:nl].split()[2])
        ast.parse(out[nl + 1 : nl + 1 + size])
        pos = nl + 1 + size + 1
        n += 1
    return n


def clean_venv(where: Path) -> str:
    """A virtual environment without the global site-packages, where ``codemode`` imports
    from the same source as here (a .pth line, as an editable install does); its python."""
    import codemode

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = str(where / "bin" / "python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "codemode-src.pth").write_text(str(Path(codemode.__file__).parents[1]) + "\n")
    return python


# A user's codemode runs from compiled bytecode (pip writes it at install, an editable install
# on first import); a shell that sets PYTHONDONTWRITEBYTECODE would have every run compile
# codemode's modules from source, ~40 ms that no user pays.
CLI_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_cli(root: Path, args: Sequence[str], python: str = sys.executable) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [python, "-m", "codemode", "diff", *args, "--root", str(root)],
        capture_output=True,
        text=True,
        env={**CLI_ENV, **GIT_ENV},
    )
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"codemode diff failed: {proc.stderr}")
    return elapsed


def peak_child_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", type=int, default=2000)
    parser.add_argument("--touch", type=int, default=500)
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    parser.add_argument(
        "--loose", action="store_true", help="leave objects loose (a fresh local repo, slower)"
    )
    parser.add_argument(
        "--no-venv", action="store_true", help="run codemode under this interpreter only"
    )
    opts = parser.parse_args(argv)

    root = opts.keep or Path(tempfile.mkdtemp(prefix="codemode-bench-"))
    try:
        if not (root / ".git").exists():
            root.mkdir(parents=True, exist_ok=True)
            t0 = time.perf_counter()
            make_repo(root, opts.modules, opts.touch, pack=not opts.loose)
            objects = "loose" if opts.loose else "packed"
            print(
                f"repo: {opts.modules} modules x {FUNCS_PER_MODULE} functions, {opts.touch} "
                f"touched, {objects} objects; built in {time.perf_counter() - t0:.1f} s"
            )
        cache = Path(git(root, "rev-parse", "--absolute-git-dir").strip()) / "codemode-cache"

        t_stat = timed(lambda: git(root, "diff", "--stat", "HEAD~1", "HEAD"), repeat=5)
        t_naive_gp = timed(lambda: naive_gitpython(root), repeat=3)
        t_naive = timed(lambda: naive_catfile(root), repeat=3)

        args = ["--base", "HEAD~1", "--format", "json"]
        venv_dir = Path(tempfile.mkdtemp(prefix="codemode-bench-venv-"))
        pythons = [("this interpreter", sys.executable)]
        if not opts.no_venv:
            pythons.insert(0, ("clean venv", clean_venv(venv_dir)))

        def measure(python: str) -> dict[str, float]:
            colds, warms = [], []
            for _ in range(3):
                shutil.rmtree(cache, ignore_errors=True)
                colds.append(run_cli(root, args, python))
                warms.append(run_cli(root, args, python))
            t: dict[str, float] = {"cold": min(colds), "warm": min(warms)}

            # The pre-commit path: a handful of staged files in a big repo. Cold: the first
            # run ever; next edit: other files staged, the per-blob cache filled by earlier
            # runs (what a hook meets on most commits); same: the same staged content again.
            def stage(first: int, old: str, new: str) -> None:
                for i in range(first, first + 5):
                    p = root / "src" / "pkg" / f"m{i * 3 + 1:04d}.py"
                    p.write_text(p.read_text().replace(old, new))
                git(root, "add", "src/pkg")

            stage(0, "total = x * y + 2\n", "total = x * y + 22\n")
            shutil.rmtree(cache, ignore_errors=True)
            t["staged_cold"] = run_cli(root, ["--staged"], python)
            stage(10, "total = x * y + 3\n", "total = x * y + 33\n")
            t["staged_next"] = run_cli(root, ["--staged"], python)
            t["staged_same"] = min(run_cli(root, ["--staged"], python) for _ in range(3))
            git(root, "reset", "-q", "--hard")
            t["start"] = timed(
                lambda: subprocess.run([python, "-c", "pass"], env=CLI_ENV), repeat=5
            )
            # what a run costs before codemode diff does anything: the CLI's dispatcher
            t["dispatch"] = timed(
                lambda: subprocess.run(
                    [python, "-m", "codemode", "--version"], stdout=-3, env=CLI_ENV
                ),
                repeat=5,
            )
            return t

        try:
            results = [(label, measure(python)) for label, python in pythons]
        finally:
            shutil.rmtree(venv_dir, ignore_errors=True)
        peak = peak_child_rss_mb()

        # the analysis alone, warm, in this process (no interpreter start, no dispatcher)
        from codemode.change.diff import analyze
        from codemode.config import load_config
        from codemode.scope import Scope

        scope = Scope("range", base="HEAD~1", head="HEAD")
        t_api_warm = timed(lambda: analyze(load_config(root), scope), repeat=5)
        naive = min(t_naive, t_naive_gp)
        print(f"git diff --stat:               {t_stat * 1000:8.1f} ms")
        print(f"naive (GitPython blobs+parse): {t_naive_gp * 1000:8.1f} ms")
        print(f"naive (cat-file --batch+parse):{t_naive * 1000:8.1f} ms")
        print(f"analyze() alone, warm, in this process: {t_api_warm * 1000:.1f} ms")
        verdicts = []
        for label, t in results:
            t_cold, t_warm = t["cold"], t["warm"]
            print(f"codemode diff as a subprocess (python -m codemode), {label}:")
            print(
                f"  cold:                        {t_cold * 1000:8.1f} ms  "
                f"= {t_cold / naive:.2f}x the faster naive, {t_cold / t_naive_gp:.2f}x GitPython's "
                "(target <= 0.6x)"
            )
            print(
                f"  warm:                        {t_warm * 1000:8.1f} ms  "
                f"= {t_warm / t_stat:.2f}x git diff --stat (target <= 3x)"
            )
            print(
                f"    of which python -c pass {t['start'] * 1000:.1f} ms, codemode --version "
                f"{t['dispatch'] * 1000:.1f} ms"
            )
            print(
                f"  --staged, 5 files: cold {t['staged_cold'] * 1000:.1f} ms, "
                f"next edit {t['staged_next'] * 1000:.1f} ms, "
                f"same again {t['staged_same'] * 1000:.1f} ms"
            )
            ok = t_cold <= 0.6 * naive and t_warm <= 3 * t_stat and max(t_cold, t_warm) < 1.0
            verdicts.append((label, ok))
        print(f"peak RSS of a child process:   {peak:8.1f} MB")
        label, ok = verdicts[0]
        print(("targets met" if ok else "targets NOT met") + f" ({label})")
        for label, ok in verdicts[1:]:
            print(f"  under {label}: " + ("targets met" if ok else "targets NOT met"))
        return 0
    finally:
        if not opts.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
