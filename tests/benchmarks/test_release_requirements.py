"""The runtime requirements benchmarks/upgrade_detection.py installs for a release, read from
the release's own metadata as pip reads them: a release that needs ``six`` is measured in an
environment that has it, never excluded as one that "cannot be imported here"."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from _requirements import interpreter, requirements

PKG_INFO = """\
Metadata-Version: 2.1
Name: demo
Version: 1.0
Requires-Dist: six>=1.9
Requires-Dist: pytest; extra == "tests"
Requires-Dist: enum34; python_version < "3.4"
Provides-Extra: tests

A description.
"""
# setuptools' requires.txt, for a release whose PKG-INFO names none: the requirements, then
# sections for markers and extras
REQUIRES_TXT = """\
six

[:python_version < "3.2"]
backports.functools-lru-cache>=1.2.1

[:sys_platform == "linux"]
typing-extensions

[tests]
pytest
"""


def _sdist(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    root = tmp_path / name
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_requirements_come_from_pkg_info_without_extras_or_markers_that_do_not_hold(
    tmp_path: Path,
) -> None:
    sdist = _sdist(tmp_path, "demo-1.0", {"PKG-INFO": PKG_INFO})
    assert [str(r) for r in requirements(sdist)] == ["six>=1.9"]


def test_requirements_come_from_requires_txt_when_pkg_info_names_none(tmp_path: Path) -> None:
    sdist = _sdist(
        tmp_path,
        "demo-1.0",
        {
            "PKG-INFO": "Metadata-Version: 1.1\nName: demo\nVersion: 1.0\n",
            "demo.egg-info/requires.txt": REQUIRES_TXT,
        },
    )
    got = [r.name for r in requirements(sdist)]
    expected = ["six", "typing-extensions"] if sys.platform == "linux" else ["six"]
    assert got == expected


def test_a_release_that_needs_nothing_runs_in_this_interpreter(tmp_path: Path) -> None:
    old = _sdist(tmp_path, "demo-1.0", {"PKG-INFO": "Metadata-Version: 2.1\nName: demo\n"})
    new = _sdist(tmp_path, "demo-1.1", {"PKG-INFO": "Metadata-Version: 2.1\nName: demo\n"})
    assert interpreter(old, new) == sys.executable
