"""How long does an offline bootstrap of a real library take? (issue 12, acceptance 4)

Fetches the sdist of a real PyPI library of about fifty public functions (validators 0.28.0
by default: 23 modules, no runtime dependencies) into ~/.cache/codemode-bench (the cache
benchmarks/upgrade_detection.py uses; never the repository), copies its source into a temp
git repository, and times, each as a fresh process with no model configured:

- ``codemode regen --all`` (the bootstrap: one spec file per module),
- ``codemode check --all`` on the specs it wrote (every verdict must be ok: a spec that fails
  on the code it was written from is false drift).

It prints functions, cases, spec files, seconds in all and per function, and how good the
progress lines' estimate of the time left was (#35): what it said at 10%, 25% and 50% of the
functions against the time that was then really left. Target: under 30 s on this 2-core machine
(for the default library). Exit 0 when met, 1 when not, 2 when the comparison could not run.

    python benchmarks/bootstrap_speed.py
    # 246 functions (README's figures); its dependency goes into this interpreter first
    pip install pymeeus && python benchmarks/bootstrap_speed.py --dist convertdate --version 2.4.0
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common
from _common import GIT_ENV
from upgrade_detection import BenchError, fetch

TARGET_SECONDS = 30.0

# The held-out libraries of #36 (item 5), named here before any tuning of the bootstrap's speed
# and never used to tune it (more-itertools 10.5.0 and convertdate 2.4.0 are the tuning ones):
# pure Python, no runtime dependencies beyond the standard library and typing-extensions,
# whole libraries (no module picked), mid-size. funcy 2.0: 180 public functions in 14
# modules; pydash 7.0.7: 386 in 11 (a size up).
HELD_OUT = (("funcy", "2.0"), ("pydash", "7.0.7"))


def _project(src: Path, dest: Path) -> None:
    """The library's importable source under ``src/`` (or at the root for a flat layout)."""
    if (src / "src").is_dir():
        shutil.copytree(src / "src", dest / "src")
    else:
        for child in src.iterdir():
            if child.suffix == ".py" or (child.is_dir() and (child / "__init__.py").exists()):
                copy = shutil.copytree if child.is_dir() else shutil.copy2
                copy(child, dest / child.name)
    (dest / "pyproject.toml").write_text('[project]\nname = "bench"\n', encoding="utf-8")
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q"], cwd=dest, check=True, env=env)


def _codemode(root: Path, *args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    env = _common.user_env(("CODEMODE_",))
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "codemode", *args, "--root", str(root), "--format", "json", "-q"],
        capture_output=True,
        text=True,
        env=env,
    )
    return time.perf_counter() - started, proc


# "[6/247] pkg.mod.func: ... · ~4 min left" (explore/writing/progress.py)
_LINE = re.compile(r"^\[(\d+)/(\d+)\] .* · ~(?:(\d+) h )?(\d+) (s|min) left$")


def _regen_with_progress(root: Path) -> tuple[float, subprocess.CompletedProcess[str], list[str]]:
    """``regen --all`` with its progress lines, each read as it comes with the second it came."""
    env = _common.user_env(("CODEMODE_",))
    cmd = [sys.executable, "-m", "codemode", "regen", "--all", "--root", str(root)]
    # The report goes to a file: a pipe read only at the end could fill while stderr is read.
    with tempfile.TemporaryFile("w+", encoding="utf-8") as report:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [*cmd, "--format", "json"], stdout=report, stderr=subprocess.PIPE, text=True, env=env
        )
        assert proc.stderr is not None
        timed = [(time.perf_counter() - started, line.rstrip("\n")) for line in proc.stderr]
        proc.wait()
        seconds = time.perf_counter() - started
        report.seek(0)
        out = report.read()
    done = subprocess.CompletedProcess(cmd, proc.returncode, out, "\n".join(t for _, t in timed))
    return seconds, done, _estimates(timed, seconds)


def _estimates(timed: list[tuple[float, str]], seconds: float) -> list[str]:
    """What the estimate said at 10%, 25% and 50% of the functions, and what was left."""
    out = []
    for share in (0.10, 0.25, 0.50):
        for at, line in timed:
            m = _LINE.match(line)
            if m and int(m[1]) >= share * int(m[2]):
                said = (int(m[3] or 0) * 60 + int(m[4])) * (60 if m[5] == "min" else 1)
                out.append(
                    f"at {m[1]}/{m[2]} ({at:.0f} s): estimate ~{said / 60:.1f} min left, "
                    f"really {(seconds - at) / 60:.1f} min"
                )
                break
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--dist", default=HELD_OUT[0][0])
    p.add_argument("--version", default=HELD_OUT[0][1])
    args = p.parse_args(argv)
    try:
        src = fetch(args.dist, args.version)
    except BenchError as exc:
        print(f"bootstrap_speed: {exc}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="codemode-bootstrap-") as tmp:
        root = Path(tmp) / "lib"
        root.mkdir()
        _project(src, root)
        seconds, proc, estimates = _regen_with_progress(root)
        if proc.returncode not in (0, 1):
            print(f"regen --all failed ({proc.returncode}): {proc.stderr[-800:]}", file=sys.stderr)
            return 2
        regen = json.loads(proc.stdout)
        check_seconds, proc = _codemode(root, "check", "--all", "--fail-on", "none")
        if proc.returncode != 0:
            print(f"check --all failed ({proc.returncode}): {proc.stderr[-800:]}", file=sys.stderr)
            return 2
        check = json.loads(proc.stdout)
    functions = regen["functions"]
    written = [f for f in functions if f["status"] == "ok"]
    cases = sum(len(f["cases"]) for f in check["functions"])
    not_ok = [f["id"] for f in check["functions"] if f["status"] != "ok"]
    n = max(1, len(functions))
    print(
        f"{args.dist} {args.version}: {len(functions)} functions, {len(written)} with specs, "
        f"{cases} cases in {len(regen['edits'])} spec files"
    )
    print(
        f"regen --all (offline): {seconds:.1f} s in all, {seconds / n:.2f} s per function "
        f"(target: under {TARGET_SECONDS:.0f} s)"
    )
    for line in estimates:
        print(f"progress estimate {line}")
    print(
        f"check --all on the new specs: {check_seconds:.1f} s; not ok: {len(not_ok)} "
        f"{not_ok[:5] if not_ok else ''}".rstrip()
    )
    if len(functions) < 40:
        print(
            f"bootstrap_speed: only {len(functions)} functions; choose a bigger library",
            file=sys.stderr,
        )
        return 2
    return 0 if seconds < TARGET_SECONDS and not not_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
