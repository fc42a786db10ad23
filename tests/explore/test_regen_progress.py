"""``codemode regen --all`` says how long is left (#35): each progress line carries an estimate
from the functions done so far, each module ends with a summary line, and a message repeated
for every function of a module names its cause and the line that showed it whole."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from codemode.explore.writing.plan import Done
from codemode.explore.writing.progress import Tracker, module_of, time_left
from lanekit import codemode

CALC = """\
def scale(x: int) -> int:
    if x < 0:
        raise ValueError("negative")
    return x * 3 + 1


def label(name: str, width: int = 4) -> str:
    return name.strip().upper()[:width]
"""
# A module whose dependency is not installed: every function fails with one import error.
NEEDS = "import not_installed_dep\n\n" + "".join(
    f"\ndef {name}(x: int) -> int:\n    return x + {i}\n\n"
    for i, name in enumerate(("one", "two", "three"))
)


def _project(root: Path) -> None:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("")
    (root / "src" / "pkg" / "calc.py").write_text(CALC)
    (root / "src" / "pkg" / "needs.py").write_text(NEEDS)
    (root / "pyproject.toml").write_text('[project]\nname = "p"\n')
    git = ["git"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=root, check=True)


def test_a_bootstrap_shows_an_estimate_a_module_summary_and_a_repeat_by_its_cause(
    tmp_path: Path,
) -> None:
    _project(tmp_path)
    code, _, err = codemode(tmp_path, "regen", "--all")
    assert code == 0, err
    lines = err.splitlines()
    progress = [ln for ln in lines if ln.startswith("[")]
    assert [ln.split("]")[0] for ln in progress] == [f"[{n}/5" for n in range(1, 6)]
    left = re.compile(r" · ~\d+ (s|min) left$")
    assert all(left.search(ln) for ln in progress[:-1]), progress
    assert re.search(r" · done in \d+ (s|min)$", progress[-1]), progress
    # The import error is shown whole once; the next functions of the module say "same as".
    needs = [ln for ln in progress if " pkg.needs." in ln]
    first = needs[0].split(" ")[0]
    assert "No module named 'not_installed_dep'" in needs[0]
    for line in needs[1:]:
        assert f": same as {first}: cannot import pkg.needs (ModuleNotFoundError) · " in line
    assert "  pkg.calc done: 2 function(s), 2 got " in err
    assert (
        "  pkg.needs done: 3 function(s), 3 without cases "
        "(3 cannot import pkg.needs (ModuleNotFoundError))" in lines
    )


def test_the_estimate_is_the_time_per_function_explored_times_the_functions_left() -> None:
    now = [100.0]
    order = ["a.f", "a.g", "b.h", "b.Cls.m"]
    tracker = Tracker(order, {}, clock=lambda: now[0])
    now[0] += 30.0  # one function in 30 s: three left, ~90 s
    tracker.arrived(done := Done("a.f", "error", "no call could become a case"))
    assert tracker.lines(1, done) == ["[1/4] a.f: no call could become a case · ~2 min left"]
    # 30 s later a.g (up to date: it costs nothing, it does not count) and b.h (another lane's)
    # have finished: 60 s for two functions explored, one left when a.g is shown
    now[0] += 30.0
    tracker.arrived(done := Done("a.g", "ok", "up to date"))
    tracker.arrived(Done("b.h", "error", "no call could become a case"))
    first, summary = tracker.lines(2, done)
    assert first == "[2/4] a.g: up to date · ~30 s left" and summary.startswith("  a done: 2")
    assert module_of("b.Cls.m") == "b" and module_of("pkg.mod.func") == "pkg.mod"
    assert [time_left(s) for s in (0.2, 59, 61, 8_000)] == [
        "~1 s left",
        "~59 s left",
        "~1 min left",
        "~2 h 13 min left",
    ]
