"""The warm worker of the hook's path (#20): real ``codemode check --staged`` processes in a
real git repository whose virtualenv holds a dependency that notes every import of it.

The dependency ``notedep`` appends the importing process's pid to ``imports.log``: a run
served by the warm worker imports it nowhere (the warm worker did, once); a cold run imports
it in its own worker.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitkit import git

pytestmark = pytest.mark.slow  # real virtualenvs, real processes: seconds each

CODEMODE = str(Path(sys.executable).with_name("codemode"))

NOTEDEP = """\
import os

with open({log!r}, "a") as f:
    f.write(f"{{os.getpid()}}\\n")
FACTOR = {factor}
"""

CALC = """\
import notedep


def double(x):
    return x * notedep.FACTOR{extra}
"""

SPEC = """\
shop.calc.double:
  dataset:
    - case: {id: one, inputs: [1], expected: 2}
    - case: {id: two, inputs: [2], expected: 4}
"""


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.log = root.parent / "imports.log"
        venv = root / ".venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        self.site = Path(
            sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
        )
        self.set_dependency(factor=2)
        self.write("src/shop/__init__.py", "")
        self.write("src/shop/calc.py", CALC.format(extra=""))
        self.write("specs/calc.yml", SPEC)
        # notedep's log of its imports is the tests' evidence: allowed on purpose (#31)
        self.write(
            "pyproject.toml",
            f'[tool.codemode]\nwarm_idle = 60\n\n[tool.codemode.effects]\nwrites = ["{self.log}"]\n',
        )
        self.write(".gitignore", ".venv/\n")
        self.git("init", "-q")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "initial")
        self.stage_calc(" + 0")  # a staged change to the spec'd function: its spec runs

    def set_dependency(self, factor: int) -> None:
        (self.site / "notedep").mkdir(exist_ok=True)
        (self.site / "notedep" / "__init__.py").write_text(
            NOTEDEP.format(log=str(self.log), factor=factor)
        )

    def write(self, rel: str, text: str) -> None:
        (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.root / rel).write_text(text)

    def git(self, *args: str) -> None:
        git(self.root, *args)

    def stage_calc(self, extra: str) -> None:
        self.write("src/shop/calc.py", CALC.format(extra=extra))
        self.git("add", "src/shop/calc.py")

    def check(self, diff: bool = False, **env: str) -> dict[str, object]:
        """``codemode check --staged`` as the hook runs it (by default without the behaviour
        diff: one worker)."""
        # The project's own virtualenv is the active one, as for a user who activated it: an
        # outer VIRTUAL_ENV (.ci/run activates .ci-venv) would be the interpreter, without notedep.
        venv = {"VIRTUAL_ENV": str(self.root / ".venv")}
        full = {**os.environ, "CODEMODE_WARM": "1", **venv, **env}
        for name, value in env.items():
            if value == "":
                full.pop(name)
        proc = subprocess.run(
            [CODEMODE, "check", "--staged", *([] if diff else ["--no-diff"]), "--format", "json"],
            cwd=self.root,
            env=full,
            capture_output=True,
            text=True,
        )
        assert proc.returncode in (0, 1), proc.stderr
        report: dict[str, object] = json.loads(proc.stdout)
        return report

    def imports(self) -> list[int]:
        if not self.log.exists():
            return []
        return [int(line) for line in self.log.read_text().split()]

    def worker(self, action: str) -> str:
        proc = subprocess.run(
            [CODEMODE, "worker", action], cwd=self.root, capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    def server_pid(self, wait: float = 10.0) -> int | None:
        """The warm worker's pid once it answers (it starts as a cold run ends)."""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            out = self.worker("status")
            if out.startswith("pid "):
                return int(out.split()[1].rstrip(":"))
            time.sleep(0.05)
        return None

    def warm_folders(self) -> list[Path]:
        warm = self.root / ".git" / "codemode-cache" / "warm"
        return sorted(p for p in warm.iterdir() if p.is_dir()) if warm.exists() else []


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    p = Project(tmp_path / "proj")
    try:
        yield p
    finally:
        p.worker("stop")


def _observed(report: dict[str, object]) -> list[object]:
    functions = report["functions"]
    assert isinstance(functions, list)
    return [c.get("observed") for c in functions[0]["cases"]]


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_repeat_runs_fork_from_the_warm_worker_and_import_changed_modules_afresh(
    project: Project,
) -> None:
    assert _observed(project.check()) == [2, 4]  # cold: its own worker imports notedep
    pid = project.server_pid()
    assert pid is not None
    deadline = time.monotonic() + 10
    while len(project.imports()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)  # the warm worker imports what the cold run learned
    assert project.imports()[1] == pid != project.imports()[0]

    project.stage_calc(" + 10")  # the project's module changes between runs
    assert _observed(project.check()) == [12, 14]
    project.stage_calc(" + 20")
    assert _observed(project.check()) == [22, 24]
    assert len(project.imports()) == 2  # both runs forked: notedep imported by nobody else
    assert project.server_pid() == pid


def test_a_project_module_the_warm_worker_holds_is_never_served_from_its_memory(
    project: Project,
) -> None:
    """Even when the warm worker imported the project's own module (an editable install on
    its path, named in its list), a run imports the module from the tree under check."""
    (project.site / "shop-editable.pth").write_text(str(project.root / "src") + "\n")
    project.check()
    pid = project.server_pid()
    folder = project.warm_folders()[0]
    project.worker("stop")
    learned = (folder / "learned").read_text()
    (folder / "learned").write_text(learned + "shop.calc\n")  # as if it had been learned
    project.check()  # cold again (stopped); starts a warm worker that imports shop.calc
    second = project.server_pid()
    assert second not in (None, pid)
    # Staged only (as `git add -p` leaves it): the work tree's file, which the warm worker
    # imported, is untouched, so nothing it watches changed; the index holds other code.
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=project.root,
        input=CALC.format(extra=" + 100"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    project.git("update-index", "--cacheinfo", f"100644,{blob},src/shop/calc.py")
    assert _observed(project.check()) == [102, 104]
    assert project.server_pid() == second  # the same warm worker served it


def test_a_dependency_change_restarts_the_warm_worker(project: Project) -> None:
    project.check()
    first = project.server_pid()
    assert first is not None
    project.check()  # warm
    project.set_dependency(factor=3)  # an upgrade in place: the module's file changed
    assert _observed(project.check()) == [3, 6]  # not the FACTOR the warm worker holds
    second = project.server_pid()
    assert second not in (None, first)
    assert _gone(first)
    assert _observed(project.check()) == [3, 6]


def test_a_settings_change_restarts_it_and_warm_false_turns_it_off(project: Project) -> None:
    project.check()
    first = project.server_pid()
    project.write("pyproject.toml", "[tool.codemode]\nwarm_idle = 61\n")
    project.check()
    assert project.server_pid() not in (None, first)
    project.worker("stop")
    project.write("pyproject.toml", "[tool.codemode]\nwarm = false\n")
    project.check(CODEMODE_WARM="")  # CODEMODE_WARM=1 would ask for it all the same
    time.sleep(0.3)
    assert project.worker("status").startswith("codemode: no warm worker")


def test_flags_of_one_run_do_not_restart_it(project: Project) -> None:
    """``--no-diff`` and ``--fail-on`` decide what the run does with the answers, not what
    the warm worker holds: alternating them keeps it (each replaced it before)."""
    project.check()
    pid = project.server_pid()
    assert pid is not None
    project.check(diff=True)
    project.check()
    assert project.server_pid() == pid


def test_not_used_in_ci_unless_asked(project: Project) -> None:
    project.check(CI="true", CODEMODE_WARM="")
    time.sleep(0.3)
    assert project.warm_folders() == []
    assert project.worker("status").startswith("codemode: no warm worker")
    project.check(CI="true", CODEMODE_WARM="1")
    assert project.server_pid() is not None


def test_worker_stop_ends_it_and_the_next_run_starts_another(project: Project) -> None:
    project.check()
    pid = project.server_pid()
    assert pid is not None
    assert f"stopped the warm worker (pid {pid})" in project.worker("stop")
    deadline = time.monotonic() + 5
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _gone(pid)
    assert not (project.warm_folders()[0] / "sock").exists()
    assert "no warm worker" in project.worker("stop")
    assert _observed(project.check()) == [2, 4]
    assert project.server_pid() not in (None, pid)


def test_sigterm_ends_an_idle_warm_worker_at_once(project: Project) -> None:
    """As a system shutdown or ``kill`` ends it: not only when its idle time is up."""
    project.check()
    pid = project.server_pid()
    assert pid is not None
    os.kill(pid, 15)
    deadline = time.monotonic() + 5
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _gone(pid)
    assert not (project.warm_folders()[0] / "sock").exists()


def test_owner_only_and_a_loosened_folder_or_stale_socket_is_not_trusted(
    project: Project,
) -> None:
    project.check()
    pid = project.server_pid()
    assert pid is not None
    warm = project.warm_folders()
    for folder in [warm[0].parent, *warm]:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for f in [*warm[0].iterdir(), warm[0].parent / "seed"]:
        assert stat.S_IMODE(f.lstat().st_mode) & 0o077 == 0, f
    assert stat.S_ISSOCK((warm[0] / "sock").lstat().st_mode)

    warm[0].chmod(0o755)  # someone else could have put a socket there: not used
    before = len(project.imports())
    assert _observed(project.check()) == [2, 4]
    assert len(project.imports()) == before + 1  # a cold run imported notedep itself
    warm[0].chmod(0o700)

    os.kill(pid, 9)  # a stale socket: nobody listens on it
    deadline = time.monotonic() + 5
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert (warm[0] / "sock").exists()
    assert _observed(project.check()) == [2, 4]
    assert project.server_pid() not in (None, pid)


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to give the socket to another user")
def test_a_socket_of_another_user_is_not_trusted(project: Project) -> None:
    project.check()
    assert project.server_pid() is not None
    sock = project.warm_folders()[0] / "sock"
    os.chown(sock, 65534, 65534, follow_symlinks=False)
    before = len(project.imports())
    project.check()
    assert len(project.imports()) == before + 1  # cold: the socket was not used
    os.chown(sock, 0, 0, follow_symlinks=False)


# A behaviour change that the spec's two cases do not reach: the code's own constant (50)
# gives the behaviour diff the inputs that show it.
CHANGED = "\n    if x >= 50:\n        return x * notedep.FACTOR + 1\n    return x * notedep.FACTOR"


def _witnesses(report: dict[str, object]) -> list[tuple[str, str, str]]:
    functions = report["functions"]
    assert isinstance(functions, list)
    return sorted(
        (w["call"], json.dumps(w["old"]), json.dumps(w["new"]))
        for f in functions
        for w in f["witnesses"]
    )


def test_the_behaviour_diff_forks_both_sides_from_the_warm_worker(project: Project) -> None:
    """Both sides of the diff (the old tree from git, the new one) and the check are served
    by one warm worker: a repeat run imports the dependency nowhere, and finds the same
    witnesses as a run with no warm worker at all. Each run had picked a hash seed of its own
    for the diff's two sides, so each found a warm worker of another seed: none (#20)."""
    project.write(
        "src/shop/calc.py",
        CALC.format(extra="").replace(
            "    return x * notedep.FACTOR", CHANGED.replace("notedep.FACTOR + 1", "notedep.FACTOR")
        ),
    )
    project.git("add", "-A")
    project.git("commit", "-q", "-m", "the old side")
    project.write(
        "src/shop/calc.py", CALC.format(extra="").replace("    return x * notedep.FACTOR", CHANGED)
    )
    project.git("add", "src/shop/calc.py")

    cold = _witnesses(project.check(diff=True, CODEMODE_WARM="0"))
    assert ("double(50)", '{"returned": 100}', '{"returned": 101}') in cold
    project.check(diff=True)  # cold too: it starts the warm worker as it ends
    pid = project.server_pid()
    deadline = time.monotonic() + 10
    while pid not in project.imports() and time.monotonic() < deadline:
        time.sleep(0.05)  # the warm worker imports what the cold run learned
    before = len(project.imports())
    assert _witnesses(project.check(diff=True)) == cold
    assert _witnesses(project.check(diff=True)) == cold
    # The check and both sides of the first run forked; only the second run of the calls
    # that differed imports it, in two fresh workers (another hash seed: never forked).
    assert len(project.imports()) == before + 2 * 2
    assert project.server_pid() == pid
    assert len(project.warm_folders()) == 1


def test_a_dependency_edited_in_place_with_its_size_and_mtime_kept_restarts_it(
    project: Project,
) -> None:
    """The same size, the same inode, the mtime put back: only its ctime tells (#33)."""
    project.check()
    first = project.server_pid()
    assert first is not None
    assert _observed(project.check()) == [2, 4]  # warm
    module = project.site / "notedep" / "__init__.py"
    before = module.stat()
    project.set_dependency(factor=3)  # in place: write_text truncates the same file
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = module.stat()
    assert (after.st_size, after.st_ino, after.st_mtime_ns) == (
        before.st_size,
        before.st_ino,
        before.st_mtime_ns,
    )
    assert _observed(project.check()) == [3, 6]  # not the FACTOR the warm worker holds
    assert project.server_pid() not in (None, first)


@pytest.mark.parametrize("state", ["readable by others", "removed"])
def test_worker_stop_stops_it_whatever_state_its_folder_is_in(project: Project, state: str) -> None:
    """A folder made readable by others (runs rightly refuse it), or removed with the cache:
    ``stop`` still stops the warm worker (#33)."""
    project.check()
    pid = project.server_pid()
    assert pid is not None
    folder = project.warm_folders()[0]
    if state == "removed":
        shutil.rmtree(folder.parent)
    else:
        folder.chmod(0o755)
    assert f"stopped the warm worker (pid {pid})" in project.worker("stop")
    assert _gone(pid)


# --- the project's own heavy module (#36) ---------------------------------------------------

HEAVY = NOTEDEP  # a module of the project itself this time: src/shop/heavy.py
CALC_HEAVY = """\
from shop import heavy


def double(x):
    return x * heavy.FACTOR{extra}
"""


@pytest.fixture
def heavy(project: Project) -> Project:
    """The project, its spec'd module importing ``shop.heavy`` (which notes each import of
    it in the log) instead of the dependency; committed, and a change of ``double`` staged."""
    project.write("src/shop/heavy.py", HEAVY.format(log=str(project.log), factor=2))
    project.write("src/shop/calc.py", CALC_HEAVY.format(extra=""))
    project.git("add", "-A")
    project.git("commit", "-q", "-m", "a heavy module of the project's own")
    project.write("src/shop/calc.py", CALC_HEAVY.format(extra=" + 0"))
    project.git("add", "src/shop/calc.py")
    return project


def _warmed(project: Project) -> int:
    """A cold run, then the warm worker it starts, once it has imported the project's heavy
    module itself; its pid."""
    project.check()
    return _imported_by_server(project)


def _imported_by_server(project: Project) -> int:
    pid = project.server_pid()
    assert pid is not None
    deadline = time.monotonic() + 20
    while pid not in project.imports() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pid in project.imports()
    return pid


def test_an_unchanged_project_module_is_imported_once_per_warm_worker(heavy: Project) -> None:
    """Runs after the warm worker imported ``shop.heavy`` import it nowhere, the check's
    worker and both sides of the behaviour diff alike; the spec'd module they changed is
    imported afresh (its new code is what they verify)."""
    pid = _warmed(heavy)
    before = len(heavy.imports())
    heavy.write("src/shop/calc.py", CALC_HEAVY.format(extra=" + 10"))
    heavy.git("add", "src/shop/calc.py")
    assert _observed(heavy.check()) == [12, 14]
    heavy.write("src/shop/calc.py", CALC_HEAVY.format(extra=" + 20"))
    heavy.git("add", "src/shop/calc.py")
    report = heavy.check(diff=True)
    assert _observed(report) == [22, 24]
    assert _witnesses(report)  # the diff ran: old (committed) and new (+ 20) differ
    # The check's worker and both sides forked; only the second run of the calls that
    # differed imports it, in two fresh workers (another hash seed: never forked).
    assert len(heavy.imports()) == before + 2
    assert heavy.server_pid() == pid


def test_an_edited_project_module_is_imported_afresh(heavy: Project) -> None:
    """No stale verdict: an edit of the kept module, staged (the work tree the warm worker
    imported from edited too) or in the index only, is what the run verifies."""
    _warmed(heavy)
    heavy.write("src/shop/heavy.py", HEAVY.format(log=str(heavy.log), factor=3))
    heavy.git("add", "src/shop/heavy.py")
    before = len(heavy.imports())
    assert _observed(heavy.check()) == [3, 6]
    assert len(heavy.imports()) > before  # the run imported the edited module itself
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=heavy.root,
        input=HEAVY.format(log=str(heavy.log), factor=5),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    heavy.git("update-index", "--cacheinfo", f"100644,{blob},src/shop/heavy.py")
    assert _observed(heavy.check()) == [5, 10]  # the index's, not the work tree's 3


def test_both_sides_of_the_diff_see_their_own_version_of_a_changed_module(
    heavy: Project,
) -> None:
    """The old side keeps the warm worker's copy of ``shop.heavy`` (the committed one), the
    new side imports the staged edit: the witnesses are those of a run with no warm worker,
    run after run (the warm worker catching up with the work tree in between)."""
    heavy.write("src/shop/heavy.py", HEAVY.format(log=str(heavy.log), factor=3))
    heavy.git("add", "src/shop/heavy.py")
    cold = _witnesses(heavy.check(diff=True, CODEMODE_WARM="0"))
    # double(x) was x * 2 at HEAD and is x * 3 staged: the witnesses show both versions
    assert ("double(1.0)", '{"returned": 2.0}', '{"returned": 3.0}') in cold
    _warmed(heavy)
    for _ in range(3):
        assert _witnesses(heavy.check(diff=True)) == cold


def test_a_module_another_ones_import_changes_is_not_kept(heavy: Project) -> None:
    """A registry a plugin adds itself to at import: kept as the warm worker left it, a run
    that imports the edited plugin afresh would find it in the registry twice."""
    heavy.write("src/shop/registry.py", HEAVY.format(log=str(heavy.log), factor=0) + "NAMES = []\n")
    heavy.write("src/shop/plugin.py", "from shop import registry\n\nregistry.NAMES.append('p')\n")
    heavy.write(
        "src/shop/names.py",
        "from shop import plugin, registry\n\n\ndef count():\n    return len(registry.NAMES)\n",
    )
    heavy.write(
        "specs/names.yml",
        "shop.names.count:\n  dataset:\n    - case: {id: one, inputs: [], expected: 1}\n",
    )
    heavy.git("add", "-A")
    heavy.git("commit", "-q", "-m", "a registry")
    for n in range(3):  # each run a new plugin and a change of count: both verified afresh
        heavy.write(
            "src/shop/plugin.py",
            f"from shop import registry\n\nregistry.NAMES.append('p{n}')\n",
        )
        heavy.write(
            "src/shop/names.py",
            "from shop import plugin, registry\n\n\n"
            f"def count():\n    return len(registry.NAMES) + {n} - {n}\n",
        )
        heavy.git("add", "-A")
        report = heavy.check()
        functions = report["functions"]
        assert isinstance(functions, list)
        assert [c["observed"] for f in functions for c in f["cases"]] == [1], n
        if n == 0:
            _imported_by_server(heavy)  # the registry, by the warm worker


def test_the_warm_worker_imports_the_projects_modules_behind_the_wall(heavy: Project) -> None:
    """A project module that writes outside the scratch folder as it is imported: the warm
    worker imports it behind the same wall as a run's worker (#31), so the write never
    happens, in the warm worker or in any run (without the warm worker's wall it did)."""
    outside = heavy.root.parent / "outside.txt"
    sneaky = f"try:\n    open({str(outside)!r}, 'w').write('x')\nexcept OSError:\n    pass\n"
    heavy.write("src/shop/sneaky.py", sneaky)
    calc = "from shop import sneaky  # noqa: F401\n" + CALC_HEAVY
    heavy.write("src/shop/calc.py", calc.format(extra=""))
    heavy.git("add", "-A")
    heavy.git("commit", "-q", "-m", "a module that writes at import")
    for n in range(3):
        heavy.write("src/shop/calc.py", calc.format(extra=f" + {n}"))
        heavy.git("add", "src/shop/calc.py")
        assert _observed(heavy.check()) == [2 + n, 4 + n]
        if n == 0:
            _imported_by_server(heavy)  # shop.heavy, and shop.sneaky beside it
    assert not outside.exists()


CALC_SLOW = """\
import sys
import time

if "--serve" in sys.argv:  # the warm worker: it notes that it is in this body, and stays
    with open({log!r}, "a") as f:
        f.write("serving\\n")
    time.sleep(2)


def double(x):
    return x * 2{extra}
"""


def test_a_module_edited_while_the_warm_worker_imports_it_is_not_kept(project: Project) -> None:
    """The user saves (and stages) a module while the warm worker is importing the previous
    version: the warm worker's code is the old bytes', so it must not be kept as the new ones
    (it was recorded with the bytes read after its import, and the next run verified the old
    code: a CI run saw ``[12, 14]`` for ``+ 20``)."""
    project.write("src/shop/calc.py", CALC_SLOW.format(log=str(project.log), extra=" + 10"))
    project.git("add", "src/shop/calc.py")
    assert _observed(project.check()) == [12, 14]  # cold; the warm worker starts as it ends
    deadline = time.monotonic() + 20
    while "serving" not in _text(project.log) and time.monotonic() < deadline:
        time.sleep(0.02)
    # the warm worker is in calc's body, for two seconds (and answers nothing, ``worker
    # status`` included, until its imports are done)
    assert "serving" in _text(project.log)
    project.write("src/shop/calc.py", CALC_SLOW.format(log=str(project.log), extra=" + 20"))
    project.git("add", "src/shop/calc.py")
    assert _observed(project.check()) == [22, 24]
    assert _observed(project.check()) == [22, 24]  # and after the warm worker caught up


def _text(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def test_a_module_is_kept_again_after_the_data_file_it_reads_was_edited(heavy: Project) -> None:
    """A kept module that reads a data file of the project at import: once the file is edited
    (and the module imported afresh by a run and re-imported by the warm worker), later runs
    keep it again: what the warm worker compares with is this import's read, not the first."""
    table = heavy.root / "src" / "shop" / "table.txt"
    table.write_text("2\n")
    module = HEAVY.format(log=str(heavy.log), factor=f"int(open({str(table)!r}).read())")
    heavy.write("src/shop/heavy.py", module)
    heavy.git("add", "-A")
    heavy.git("commit", "-q", "-m", "a table read at import")
    heavy.write("src/shop/calc.py", CALC_HEAVY.format(extra=" + 1"))
    heavy.git("add", "src/shop/calc.py")
    pid = _warmed(heavy)
    table.write_text("3\n")
    heavy.git("add", "-A")
    assert _observed(heavy.check()) == [4, 7]  # the run imported it afresh
    deadline = time.monotonic() + 20
    while heavy.imports().count(pid) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert heavy.imports().count(pid) == 2  # the warm worker re-imported it
    before = len(heavy.imports())
    assert _observed(heavy.check()) == [4, 7]
    assert len(heavy.imports()) == before  # kept: imported by no one
