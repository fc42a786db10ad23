"""Bootstrap: `codemode regen --all | MODULE | PACKAGE | SPEC` on projects with no specs yet."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codemode.check.run import run_check
from codemode.cli.main import main
from codemode.config import load_config
from codemode.scope import Scope
from codemode.specs.spec_files import load_spec_file
from gitkit import git

TEXT = """\
import re


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def shout(word: str) -> str:
    def inner(w: str) -> str:  # nested: never a target
        return w.upper()

    return inner(word) + "!"


def _private(n: int) -> int:
    return n + 1


class Meter:
    def double(self, n: int) -> int:
        return 2 * n

    def _hidden(self) -> int:
        return 1
"""

NUM = """\
def clamp(x: int, lo: int = 0, hi: int = 10) -> int:
    if x < lo:
        return lo
    return hi if x > hi else x
"""

TEXT_IDS = ["pkg.text.slug", "pkg.text.shout", "pkg.text.Meter.double"]


def _project(root: Path, pyproject: str = "") -> Path:
    """A flat layout (no src/), so that the walk of `.` meets tests, conftest and setup.py."""
    files = {
        "pyproject.toml": '[project]\nname = "pkg"\n' + pyproject,
        "pkg/__init__.py": "",
        "pkg/text.py": TEXT,
        "pkg/num.py": NUM,
        "pkg/tests/test_inner.py": "def test_x() -> None:\n    assert True\n",
        "pkg/num_test.py": "def check_num() -> None:\n    pass\n",
        "tests/test_text.py": "def helper(x: int) -> int:\n    return x\n",
        "conftest.py": "def fixture_maker() -> int:\n    return 1\n",
        "setup.py": "def build() -> None:\n    raise SystemExit('setup.py must not run')\n",
        "tools/gen.py": "def generate(n: int) -> int:\n    return n * 3\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(root, "init", "-q")
    return root


def _ids(spec: Path, root: Path) -> list[str]:
    return [f.id for f in load_spec_file(spec, root).functions]


def test_all_writes_one_spec_per_module_and_leaves_tests_setup_and_private_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path / "proj")
    assert main(["regen", "--all", "--root", str(root)]) == 0
    out, err = capsys.readouterr()
    specs = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.yml"))
    assert specs == ["specs/pkg.num.yml", "specs/pkg.text.yml", "specs/tools.gen.yml"]
    assert sorted(_ids(root / "specs/pkg.text.yml", root)) == sorted(TEXT_IDS)
    assert _ids(root / "specs/pkg.num.yml", root) == ["pkg.num.clamp"]
    # progress: one line per function on stderr; the summary on stdout
    assert len([ln for ln in err.splitlines() if ln.startswith("[")]) == 5
    assert "5 function(s): 5 got " in out and "in 3 spec file(s) written" in out
    assert "left out: 5 excluded file(s), 2 private function(s)" in out
    report = run_check(load_config(root), Scope("all"))
    assert {f.status for f in report.functions} == {"ok"} and len(report.functions) == 5


def test_exclude_and_include_private_from_the_config(tmp_path: Path) -> None:
    extra = '[tool.codemode]\nexclude = ["tools/**", "pkg/num.py"]\ninclude-private = true\n'
    root = _project(tmp_path / "proj", extra)
    assert main(["regen", "--all", "--root", str(root), "-q"]) == 0
    assert sorted(p.name for p in (root / "specs").iterdir()) == ["pkg.text.yml"]
    ids = _ids(root / "specs/pkg.text.yml", root)
    assert sorted(ids) == sorted([*TEXT_IDS, "pkg.text._private", "pkg.text.Meter._hidden"])


def test_a_module_a_package_and_a_spec_file_as_scopes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(tmp_path / "proj")
    monkeypatch.chdir(root)
    assert main(["regen", "pkg/num.py", "-q"]) == 0
    assert sorted(p.name for p in (root / "specs").iterdir()) == ["pkg.num.yml"]
    assert main(["regen", "pkg", "-q"]) == 0  # the package: its other module, tests left out
    assert sorted(p.name for p in (root / "specs").iterdir()) == ["pkg.num.yml", "pkg.text.yml"]
    from codemode.explore.writing.regen import run_regen

    report = run_regen(
        load_config(root), Scope("paths", paths=("specs/pkg.num.yml",)), dry_run=True
    )
    assert [(f.id, f.message) for f in report.functions] == [
        ("pkg.num.clamp", "up to date (fingerprint unchanged)")
    ]
    assert not (root / "specs/tools.gen.yml").exists()


def test_src_layout_searches_src_only(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "src" / "lib").mkdir(parents=True)
    (root / "src" / "lib" / "__init__.py").write_text(NUM)
    (root / "noxfile.py").write_text("def tests(session: object) -> None:\n    pass\n")
    (root / "pyproject.toml").write_text('[project]\nname = "lib"\n')
    git(root, "init", "-q")
    assert main(["regen", "--all", "--root", str(root), "-q"]) == 0
    assert sorted(p.name for p in (root / "specs").iterdir()) == ["lib.yml"]


def test_an_empty_scope_says_what_was_searched_and_what_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_a.py").write_text("def test_a() -> None:\n    pass\n")
    (root / "util.py").write_text("def _only_private() -> int:\n    return 1\n")
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n')
    git(root, "init", "-q")
    assert main(["regen", "--all", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "nothing to explore: searched . (1 module(s)" in out
    assert "1 excluded file(s)" in out and "1 private function(s)" in out
    assert "codemode regen src/pkg" in out and "--function" in out
    assert not (root / "specs").exists()


def test_a_function_that_cannot_be_explored_is_skipped_with_its_reason(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    (root / "pkg" / "db.py").write_text(
        textwrap.dedent(
            """\
            import not_installed_anywhere


            def fetch(n: int) -> int:
                return not_installed_anywhere.get(n)
            """
        )
    )
    from codemode.explore.writing.regen import run_regen

    report = run_regen(
        load_config(root), Scope("paths", paths=(str(root / "pkg/db.py"),)), dry_run=True
    )
    [fr] = report.functions
    assert fr.status == "missing"  # a bootstrap skip, not a failed run
    assert "cannot import pkg.db: ModuleNotFoundError" in fr.message
    assert any("1 function(s): 0 got 0 generated case(s)" in n for n in report.notes)
    assert any("without cases" in n for n in report.notes)


SERIALIZED = '''\
def doubled(data: dict) -> tuple:
    """The spec's serializer: every input arrives doubled."""
    raw = data.get("inputs", data.get("input"))
    return tuple(2 * v for v in raw) if isinstance(raw, list) else (2 * raw,)


def half(n: int) -> int:
    return n // 2
'''


def test_a_serializer_spec_survives_regen_then_check(tmp_path: Path) -> None:
    """Exploration and the gate build inputs through the block's serializer, as check does."""
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    (root / "calc.py").write_text(SERIALIZED)
    (root / "pyproject.toml").write_text('[project]\nname = "calc"\n')
    spec = root / "specs" / "calc.yml"
    spec.write_text(
        "serializers:\n  twice: {serializer: calc.doubled}\n"
        "calc.half:\n  serializer: twice\n  dataset:\n"
        "    - case: {id: by_hand, inputs: [3], expected: 3}\n"
    )
    git(root, "init", "-q")
    assert main(["regen", "--root", str(root), "--function", "calc.half", "-q"]) == 0
    [func] = load_spec_file(spec, root).functions
    assert func.serializer == "twice" and len(func.cases) > 3
    assert func.cases[0].id == "by_hand" and all(c.generated for c in func.cases[1:])
    report = run_check(load_config(root), Scope("all"))
    assert [(f.id, f.status) for f in report.functions] == [("calc.half", "ok")]


VERSIONEER = """\
# This file helps to compute a version number in source trees obtained from
# git-archive tarball (such as those provided by githubs download-from-tag
# feature).
# This file is released into the public domain.
# Generated by versioneer-0.29
# https://github.com/python-versioneer/python-versioneer


def get_keywords() -> dict:
    return {"refnames": "$Format:%d$"}
"""
SCM_VERSION = """\
# file generated by setuptools-scm
# don't change, don't track in version control
__version__ = version = "1.2.3"


def version_tuple() -> tuple:
    return (1, 2, 3)
"""


def test_private_modules_and_generated_version_files_are_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """toolz's ``_signatures`` and versioneer's ``_version.py`` got specs (#23): README says
    private names are left out, and a generated file is no one's behaviour."""
    root = _project(tmp_path / "proj")
    for rel, text in {
        "pkg/_signatures.py": "def num_required_args(func: object) -> int:\n    return 1\n",
        "pkg/_impl/__init__.py": "",
        "pkg/_impl/core.py": "def helper(n: int) -> int:\n    return n\n",
        "pkg/_version.py": VERSIONEER,
        "pkg/version.py": SCM_VERSION,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    assert main(["regen", "--all", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    specs = sorted(p.name for p in (root / "specs").iterdir())
    assert specs == ["pkg.num.yml", "pkg.text.yml", "tools.gen.yml"], out
    assert "left out: 7 excluded file(s), 4 private function(s)" in out
