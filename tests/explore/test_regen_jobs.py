"""``regen --jobs N`` (#20): the spec files written and the report printed are the ones
``--jobs 1`` gives, with real workers, a real git repository and the real command; a function
that fails, or a lane that dies, does not hide the others."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from codemode.cli.main import main
from gitkit import git
from lanekit import codemode

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"

# Which codemode processes ran a call: the nearest ancestor that is the run (``--jobs 1``) or
# one of its lanes (forks of it, with its command line). Written under pids/, not a spec.
PROBE = """\
import ctypes
import os

KILL = False  # True: the call kills the run's process that made it (a lane, under --jobs)


def _record(x: int) -> int:  # private: not explored, nor mutated
    pid = os.getppid()
    while pid > 1:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            if b"codemode\\x00regen" in fh.read():
                break
        with open(f"/proc/{pid}/stat") as fh:
            pid = int(fh.read().rsplit(")", 1)[1].split()[1])
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pids")
    os.makedirs(here, exist_ok=True)
    open(os.path.join(here, str(pid)), "w").close()
    if KILL:
        try:  # once: the lane's workers, orphaned, call on with the run as their ancestor
            open(os.path.join(here, "killed"), "x").close()
        except FileExistsError:
            return x
        # past the wall's audit hook (it refuses os.kill of another process, #31), with
        # Landlock off in this test: as code that sets out to escape would
        ctypes.CDLL(None).kill(pid, 9)
    return x
"""

MODULE = """\
from pkg.probe import _record


def scale(x: int) -> int:
    if x < 0:
        raise ValueError("negative")
    return x * {m} + 1


def label(name: str, width: int = {m}) -> str:
    return name.strip().upper()[:width]


def tag(x: int) -> int:
    return _record(x) + {m}
"""


def _run(root: Path, *args: str) -> tuple[int, str, str, dict[str, bytes]]:
    """One regen from the committed tree: its exit code, report (less the elapsed line),
    progress, and every spec file's bytes; then the tree is as committed again."""
    code, out, err = codemode(root, "regen", *args)
    assert code in (0, 1), err
    specs = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.glob("specs/*.yml")}
    git(root, "checkout", "-q", ".")
    git(root, "clean", "-fdq", "-e", "pids")
    report = "\n".join(ln for ln in out.splitlines() if not ln.startswith("note: elapsed"))
    # the progress lines' estimates of the time left are timings too (#35)
    err = re.sub(r" · (~\d+ (s|min) left|done in \d+ (s|min))$", "", err, flags=re.M)
    return code, report, err, specs


def _lanes_seen(root: Path) -> int:
    seen = len(list((root / "pids").iterdir()))
    shutil.rmtree(root / "pids")
    return seen


def _project(root: Path) -> None:
    """Six modules of three functions, a spec file holding two modules' hand-written blocks
    (their new functions join that file, so the two modules share one lane), a module that
    cannot be imported and one whose function kills its worker."""
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "specs").mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "multi"\n\n[tool.codemode]\nspecs = ["specs/*.yml"]\ntimeout = 5\n'
        # the probe's evidence under pids/: writes on purpose, allowed (#31)
        '\n[tool.codemode.effects]\nwrites = ["pids/**"]\n'
    )
    (root / "src" / "pkg" / "__init__.py").write_text("")
    (root / "src" / "pkg" / "probe.py").write_text(PROBE)
    for m in range(6):
        (root / "src" / "pkg" / f"m{m}.py").write_text(MODULE.format(m=m + 2))
    (root / "src" / "pkg" / "broken.py").write_text(
        'raise RuntimeError("this module cannot be imported")\n\n\n'
        "def never(x: int) -> int:\n    return x\n"
    )
    (root / "src" / "pkg" / "crash.py").write_text(
        "import os\n\n\ndef boom(x: int) -> int:\n    os._exit(3)\n"
    )
    (root / "specs" / "mixed.yml").write_text(
        "pkg.m0.scale:\n  dataset:\n    - case: {id: two, input: 2, expected: 5}\n"
        "pkg.m1.scale:\n  dataset:\n    - case: {id: two, input: 2, expected: 7}\n"
    )
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")


def test_the_shop_writes_the_same_specs_and_report_in_two_lanes(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root, ignore=shutil.ignore_patterns("__pycache__"))
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    serial = _run(root, "--all", "--jobs", "1")
    assert "by offline" in serial[1] and len(serial[3]) > 3  # new spec files were written
    assert _run(root, "--all", "--jobs", "2") == serial


def test_a_multi_module_project_writes_the_same_in_lanes(tmp_path: Path) -> None:
    root = tmp_path / "multi"
    _project(root)
    serial = _run(root, "--all", "--jobs", "1")
    assert _lanes_seen(root) == 1
    _, report, _, specs = serial
    # The failing functions fail alone: every module's other functions got their cases.
    assert "pkg.broken.never" in report and "pkg.crash.boom" in report
    for m in range(6):
        rel = "specs/mixed.yml" if m < 2 else f"specs/pkg.m{m}.yml"
        assert f"pkg.m{m}.label:" in specs[rel].decode()
    assert b"id: two, input: 2, expected: 5" in specs["specs/mixed.yml"]  # hand-written kept
    assert _run(root, "--all", "--jobs", "2") == serial
    assert _lanes_seen(root) == 2
    assert _run(root, "--all", "--jobs", "3") == serial
    assert _lanes_seen(root) == 3


def test_a_lane_that_dies_loses_its_functions_only(tmp_path: Path) -> None:
    """A lane killed mid-run (the OOM killer, say: here a function kills its own lane) leaves
    its functions unexplored, said so, and the other lane's written; no internal error."""
    root = tmp_path / "multi"
    _project(root)
    (root / "src" / "pkg" / "probe.py").write_text(PROBE.replace("KILL = False", "KILL = True"))
    ids = ("pkg.m2.tag", "pkg.m3.scale", "pkg.m4.label")
    code, out, err = codemode(
        root,
        "regen",
        "--jobs",
        "2",
        *(f"--function={f}" for f in ids),
        CODEMODE_WORKER_LANDLOCK="0",
    )
    assert code == 1, err
    assert "[1/3] pkg.m2.tag: not explored: lane 1 of the --jobs run (pid " in err
    assert "error    2 functions: not explored: lane 1" in out  # m4.label shared its lane
    assert "ok       pkg.m3.scale: 5 case(s) by offline" in out
    assert "pkg.m3.scale" in (root / "specs" / "pkg.m3.yml").read_text()


@pytest.mark.parametrize("value", ["0", "two"])
def test_bad_jobs_values_are_the_same_line_as_checks(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    said = []
    for command in ("check", "regen"):
        assert main([command, "--root", str(tmp_path), "--jobs", value]) == 2
        said.append(capsys.readouterr().err)
    assert said[0] == said[1]
    assert f"--jobs {value!r}: write a number of lanes from 1 to 1024, or auto" in said[1]
