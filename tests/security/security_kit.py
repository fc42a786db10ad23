"""Run the real ``codemode`` CLI on a hostile project and check that the harm was contained.

Every attack runs in a fresh copy of tests/data/hazards (a git repository, so ``--staged`` and
``regen`` see a real index), as a subprocess of its own: a segfault or an exit 3 is the run's,
not pytest's. The figures are generous ceilings, not speed targets: a contained attack stays
far below them, an uncontained one (an alias bomb, a 40 MB reply) goes far above.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitkit import git

HAZARDS = Path(__file__).parents[1] / "data" / "hazards"
GOOD_ID = "hazards.good.add"
GOOD = """
hazards.good.add:
  dataset:
    - case: {id: two, inputs: [1, 1], expected: 2}
"""
CEILING_MB = 600  # peak RSS of the CLI and every process it waited for
CEILING_S = 90.0


def make_project(
    tmp_path: Path,
    *,
    specs: dict[str, str | bytes] | None = None,
    modules: dict[str, str] | None = None,
    config: str = "",
    commit: bool = True,
) -> Path:
    """A copy of the hazards project with extra spec files and modules of ``hazards``."""
    root = tmp_path / "proj"
    shutil.copytree(HAZARDS, root, ignore=shutil.ignore_patterns("__pycache__"))
    for name, text in (modules or {}).items():
        (root / "src" / "hazards" / f"{name}.py").write_text(text, encoding="utf-8")
    for name, data in (specs or {}).items():
        path = root / "specs" / name
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    if config:
        with (root / "pyproject.toml").open("a", encoding="utf-8") as f:
            f.write(config)
    if commit:
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "init")
    return root


@dataclass
class Run:
    code: int
    out: str
    err: str
    seconds: float
    peak_mb: float
    root: Path

    @property
    def report(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.out)
        return data

    def function(self, fid: str) -> dict[str, Any]:
        return next(f for f in self.report["functions"] if f["id"] == fid)

    def status(self, fid: str) -> str:
        return str(self.function(fid)["status"])

    def messages(self) -> list[str]:
        """Every problem, function and case message of the report, with its file and line."""
        rep = self.report
        out = [f"{p['file']}:{p['line']}: {p['message']}" for p in rep["problems"]]
        for f in rep["functions"]:
            if f.get("message"):
                out.append(f"{f['spec']}:{f['line']}: {f['id']}: {f['message']}")
            for c in f["cases"]:
                if c.get("message"):
                    out.append(f"{f['spec']}:{c['line']}: {f['id']}[{c['id']}]: {c['message']}")
        return out


# A direct child of pytest inherits pytest's own peak RSS through fork and exec (Linux keeps the
# high-water mark across exec), and pytest grows past 300 MB over the full suite. So a small
# launcher starts codemode as its own child and reports that child's peak alone.
_MEASURE = """
import os, signal, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _peak_mb(rss_path: Path, fallback_kb: int) -> float:
    """codemode's peak RSS in MB as the launcher saw it (its own if it was killed first)."""
    try:
        return int(rss_path.read_text()) / 1024
    except (OSError, ValueError):
        return fallback_kb / 1024


def run_cli(
    root: Path, *args: str, timeout: float = CEILING_S, env: dict[str, str] | None = None
) -> Run:
    """``python -m codemode ARGS`` in ``root``; its peak RSS (with the processes it reaped)."""
    out_path, err_path = root.parent / "cli.out", root.parent / "cli.err"
    rss_path = root.parent / "cli.rss"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CODEMODE_", "GITHUB_"))}
    # The hook's warm worker outlives a run by design (#20); what it keeps, and that a run's
    # processes still die with it, is tests/worker/test_warm.py's. Here: nothing outlives.
    base["CODEMODE_WARM"] = "0"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                _MEASURE,
                str(rss_path),
                sys.executable,
                "-m",
                "codemode",
                *args,
            ],
            cwd=root,
            stdout=out,
            stderr=err,
            env={**base, **(env or {})},
            start_new_session=True,
        )
        killed: list[bool] = []

        def kill() -> None:
            killed.append(True)
            os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        t0 = time.monotonic()
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - t0
    run = Run(
        proc.returncode,
        out_path.read_text("utf-8", "replace"),
        err_path.read_text("utf-8", "replace"),
        seconds,
        _peak_mb(rss_path, usage.ru_maxrss),
        root,
    )
    assert not killed, f"codemode {' '.join(args)} ran past {timeout:g} s: {run.err[-2000:]}"
    return run


def processes_under(root: Path) -> list[str]:
    """Processes still alive whose working directory is inside ``root``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and (cwd == str(root) or cwd.startswith(f"{root}/")):
            found.append(f"{entry.name}: {cmd}")
    return found


def assert_contained(
    run: Run,
    *,
    codes: tuple[int, ...] = (1,),
    ceiling_mb: float = CEILING_MB,
    ceiling_s: float = CEILING_S,
) -> None:
    """The run ended by its verdicts, within the ceilings, forged nothing and left nothing."""
    assert run.code in codes, f"exit {run.code}; stderr: {run.err[-3000:]}"
    assert "Traceback" not in run.err, run.err[-3000:]
    assert run.peak_mb < ceiling_mb, f"peak RSS {run.peak_mb:.0f} MB"
    assert run.seconds < ceiling_s, f"{run.seconds:.1f} s"
    forged = [ln for ln in run.out.splitlines() if ln.lstrip().startswith("::")]
    assert not forged, forged[:3]
    json.loads(run.out)  # --format json is still one JSON document
    left: list[str] = []
    for _ in range(40):  # a killed group disappears within moments
        left = processes_under(run.root)
        if not left:
            break
        time.sleep(0.1)
    assert not left, left


def check(root: Path, *extra: str, env: dict[str, str] | None = None) -> Run:
    return run_cli(root, "check", "--all", "--format", "json", *extra, env=env)


def one_problem(run: Run, spec: str = "specs/bad.yml") -> str:
    """The one message of the run, which names ``spec``; the good function still passes."""
    assert run.status(GOOD_ID) == "ok", run.out[-3000:]
    msgs = [m for m in run.messages() if not m.startswith("specs/good.yml")]
    assert len(msgs) >= 1, run.out[-3000:]
    assert all(m.startswith(spec) for m in msgs), msgs
    return msgs[0]
