"""The hook's resident parent (#36): ``codemode check --staged`` through the console script, in a
real git repository, served by a process of the repository that imported codemode once.

The evidence that a run was served is the client's probe line (``CODEMODE_PROBE``: ``resident``
with the child's pid and CPU); a run that was not writes none. A served run must say and do
what the ordinary one does: the same report and exit code, in the client's folder, with its
environment (the index git names in ``GIT_INDEX_FILE``), never from a stale import.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gitkit import git

pytestmark = pytest.mark.slow  # real processes that outlive a run: seconds each

CODEMODE = str(Path(sys.executable).with_name("codemode"))
SRC = Path(__file__).resolve().parents[2] / "src"

CALC = 'def double(x):\n    """Twice x."""\n    return {body}\n'
SPEC = """\
shop.calc.double:
  dataset:
    - case: {id: one, inputs: [1], expected: 2}
    - case: {id: two, inputs: [2], expected: 4}
"""


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.probe = root.parent / "probe.log"
        self.write("pyproject.toml", '[tool.codemode]\nsource_roots = ["src"]\nwarm_idle = 60\n')
        self.write("src/shop/__init__.py", "")
        self.write("src/shop/calc.py", CALC.format(body="x * 2"))
        self.write("specs/calc.yml", SPEC)
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial")
        self.stage("x + x")  # a refactor: its spec runs, and passes

    def write(self, rel: str, text: str) -> None:
        (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.root / rel).write_text(text)

    def stage(self, body: str) -> None:
        self.write("src/shop/calc.py", CALC.format(body=body))
        git(self.root, "add", "src/shop/calc.py")

    def run(
        self, *args: str, cwd: Path | None = None, **env: str
    ) -> tuple[subprocess.CompletedProcess[str], list[str]]:
        """``codemode ARGS`` as the hook runs it; the process and its ``resident`` probe lines."""
        self.probe.unlink(missing_ok=True)
        full = {**os.environ, "CODEMODE_WARM": "1", "CODEMODE_PROBE": str(self.probe), **env}
        proc = subprocess.run(
            [CODEMODE, *args], cwd=cwd or self.root, env=full, capture_output=True, text=True
        )
        lines = self.probe.read_text().splitlines() if self.probe.exists() else []
        return proc, [line for line in lines if line.startswith("resident\t")]

    def served(self, *args: str, **env: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
        """The first run the resident process serves (it starts as an ordinary run ends)."""
        deadline = time.monotonic() + 20
        while True:
            proc, served = self.run(*args, **env)
            if served or time.monotonic() > deadline:
                return proc, served
            time.sleep(0.2)

    def front(self) -> Path:
        return self.root / ".git" / "codemode-cache" / "front"


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    p = Project(tmp_path / "proj")
    try:
        yield p
    finally:
        p.run("worker", "stop")


TIMINGS = ("elapsed", "seconds", "duration_ms")


def _report(proc: subprocess.CompletedProcess[str]) -> object:
    """The JSON report without the run's timings, which differ between any two runs."""

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in TIMINGS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(json.loads(proc.stdout))


def test_a_repeat_run_is_served_and_says_what_the_ordinary_run_says(project: Project) -> None:
    cold, served = project.run("check", "--staged", "--format", "json")
    assert served == [], "the first run has no resident process to ask"
    warm, served = project.served("check", "--staged", "--format", "json")
    assert len(served) == 1, "a later run is served by the resident process"
    assert (warm.returncode, _report(warm), warm.stderr) == (0, _report(cold), cold.stderr)
    pid = int(served[0].split("\t")[1])
    assert pid != os.getpid() and not Path(f"/proc/{pid}").exists(), "its child has ended"

    project.stage("x * 3")  # drifts: the exit code and the verdict come back through it
    drifted, served = project.run("check", "--staged", "--format", "json")
    assert served and drifted.returncode == 1
    functions = json.loads(drifted.stdout)["functions"]
    assert [f["status"] for f in functions] == ["drifted"]


def test_a_served_run_takes_the_clients_folder_and_environment(project: Project) -> None:
    project.served("check", "--staged")
    # from a subfolder, a relative --report-out lands in the client's folder
    proc, served = project.run(
        "check", "--staged", "--report-out", "r.json", cwd=project.root / "src"
    )
    assert served and proc.returncode == 0, proc.stderr
    assert json.loads((project.root / "src" / "r.json").read_text())["functions"]
    # git's own index for a `commit -a` or a partial commit: GIT_INDEX_FILE names it
    other = project.root / ".git" / "other-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(other)}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=project.root, env=env, check=True)
    project.write("src/shop/calc.py", CALC.format(body="x * 5"))
    subprocess.run(["git", "add", "src/shop/calc.py"], cwd=project.root, env=env, check=True)
    proc, served = project.run("check", "--staged", GIT_INDEX_FILE=str(other))
    assert served and proc.returncode == 1, proc.stdout + proc.stderr
    proc, served = project.run("check", "--staged")  # the default index: still the refactor
    assert served and proc.returncode == 0, proc.stdout + proc.stderr


def test_an_edited_codemode_module_is_never_served_stale(project: Project, tmp_path: Path) -> None:
    """codemode upgraded or edited under a running resident process: the next run is the
    ordinary one, with the new code, and the process started after it serves the new code."""
    copy = tmp_path / "src"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    path = {"PYTHONPATH": str(copy)}  # codemode imported from the copy, first on sys.path
    proc, served = project.served("check", "--staged", **path)
    assert served and "codemode: 1 function" in proc.stdout
    terminal = copy / "codemode" / "report" / "terminal.py"
    text = terminal.read_text()
    assert 'p(f"codemode: {text}", "bold")' in text
    terminal.write_text(text.replace('p(f"codemode: {text}"', 'p(f"codemode (edited): {text}"'))
    proc, served = project.run("check", "--staged", **path)
    assert served == [] and "codemode (edited): 1 function" in proc.stdout
    proc, served = project.served("check", "--staged", **path)
    assert served and "codemode (edited): 1 function" in proc.stdout


def test_only_a_private_folder_of_this_user_is_trusted(project: Project) -> None:
    project.served("check", "--staged")
    (folder,) = [p for p in project.front().iterdir() if p.is_dir()]
    folder.chmod(0o755)  # others may enter: not used
    proc, served = project.run("check", "--staged")
    assert served == [] and proc.returncode == 0, proc.stderr
    folder.chmod(0o700)
    proc, served = project.run("check", "--staged")
    assert served and proc.returncode == 0


def _servers(project: Project) -> list[int]:
    """Processes whose command line names a folder of the project's resident parents."""
    front = str(project.front())
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        if any(arg.startswith(front) for arg in argv):
            found.append(int(entry.name))
    return found


def _until(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


def test_worker_stop_ends_it_and_warm_off_starts_none(project: Project) -> None:
    project.served("check", "--staged")
    sock = next(project.front().iterdir()) / "sock"
    assert sock.exists() and _servers(project)
    project.run("worker", "stop")
    assert _until(lambda: not sock.exists() and not _servers(project)), "it ended"
    for _ in range(3):  # CODEMODE_WARM=0 (the suite's default): ordinary runs, none started
        proc, served = project.run("check", "--staged", CODEMODE_WARM="0")
        assert served == [] and proc.returncode == 0
    time.sleep(0.5)
    assert _servers(project) == []
    # one still importing as the stop comes (a run has just started it) is found and ended
    project.run("check", "--staged")
    project.run("worker", "stop")
    assert _until(lambda: not _servers(project))


CLIENT = """
import sys
before = set(sys.modules)
from codemode import resident
code = resident.run(["check", "--staged"])
heavy = ("json", "socket", "selectors", "argparse", "pathlib", "re", "enum", "typing")
print(code, sorted(m for m in set(sys.modules) - before if m in heavy or m.startswith("codemode.")))
"""


def test_the_client_imports_nothing_of_the_run(project: Project) -> None:
    """What the command imports before a resident parent takes the run: none of codemode's
    modules, nor the standard library's that the run itself needs (json, socket, argparse)."""
    (project.front() / "nobody").mkdir(mode=0o700, parents=True)  # no server listens there
    proc = subprocess.run(
        [sys.executable, "-c", CLIENT],
        cwd=project.root,
        env={**os.environ, "CODEMODE_WARM": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout.split() == ["None", "['codemode.resident']"]
