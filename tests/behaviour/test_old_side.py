"""The behaviour diff's old side (#33): the work tree, with the changed modules' old content
served from git's objects and the added ones hidden. What git does not track (a generated
``_version.py``, a submodule's checkout) is there for the old side as for the new one, and a
side that cannot run is named per function in every output. Real git, the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from diffkit import check, functions, git, project, write

from codemode.report.markdown import escape_text, render_markdown
from codemode.report.model import Report

LABEL = '''\
def label(n: int) -> str:
    """A label."""
    return "#" + str(n)
'''
NEW_LABEL = LABEL.replace('"#" + str(n)', '"No. " + str(n)')


def _witness(report: dict[str, object], call: str = "label(3)") -> dict[str, object]:
    f = functions(report)["demo.labels.label"]
    assert f["status"] == "changed", f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert call in calls, list(calls)
    return calls[call]


def _staged_witness(repo: Path, old: str, new: str, capsys: Any, monkeypatch: Any) -> int:
    """``check --staged``: label(3) returned ``old`` before the change and ``new`` after it;
    returns the exit code."""
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    w = _witness(report)
    assert (w["old"], w["new"]) == ({"returned": old}, {"returned": new})
    return rc


def test_a_gitignored_generated_version_module_is_there_for_the_old_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # setuptools-scm's layout: the package imports a module the build writes and git ignores
    repo = project(
        tmp_path,
        {
            ".gitignore": "src/demo/_version.py\n",
            "src/demo/__init__.py": "from demo._version import version\n",
            "src/demo/labels.py": LABEL,
        },
    )
    write(repo, {"src/demo/_version.py": 'version = "1.0"\n', "src/demo/labels.py": NEW_LABEL})
    git(repo, "add", "-A")
    assert _staged_witness(repo, "#3", "No. 3", capsys, monkeypatch) == 1


def test_a_submodule_checkout_on_the_path_is_there_for_the_old_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = tmp_path / "vendorlib"
    lib.mkdir()
    write(lib, {"prefixes.py": 'PREFIX = "#"\n'})
    git(lib, "init", "-q", "-b", "main")
    git(lib, "add", "-A")
    git(lib, "commit", "-qm", "lib")
    uses = LABEL.replace('"#"', "PREFIX")
    repo = project(tmp_path, {"src/demo/labels.py": "from prefixes import PREFIX\n\n\n" + uses})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "-q", "add", str(lib), "vendor/lib")
    pyproject = (repo / "pyproject.toml").read_text()
    write(repo, {"pyproject.toml": pyproject.replace('["src"]', '["src", "vendor/lib"]')})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "vendor the prefixes")
    new = uses.replace("PREFIX + str(n)", 'PREFIX + " " + str(n)')
    write(repo, {"src/demo/labels.py": "from prefixes import PREFIX\n\n\n" + new})
    git(repo, "add", "-A")
    assert _staged_witness(repo, "#3", "# 3", capsys, monkeypatch) == 1


def test_a_deleted_module_imports_on_the_old_side_and_an_added_one_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Old: no demo.fancy, so the prefix comes from demo.plain. The change deletes demo.plain
    # and adds demo.fancy. An old side that found the new module would see no change; one
    # that lost the deleted module would raise instead of returning '#3'.
    old = '''\
def label(n: int) -> str:
    """A label."""
    try:
        from demo import fancy
    except ImportError:
        from demo.plain import PREFIX

        return PREFIX + str(n)
    return fancy.PREFIX + str(n)
'''
    repo = project(tmp_path, {"src/demo/plain.py": 'PREFIX = "#"\n', "src/demo/labels.py": old})
    new = old.replace("from demo.plain import PREFIX", "PREFIX = '#'")
    write(repo, {"src/demo/fancy.py": 'PREFIX = "No. "\n', "src/demo/labels.py": new})
    (repo / "src/demo/plain.py").unlink()
    git(repo, "add", "-A")
    _staged_witness(repo, "#3", "No. 3", capsys, monkeypatch)


def test_an_unstaged_edit_is_neither_side_of_a_staged_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # --staged: the new side is the index ('No. '), the old side HEAD ('#'); the work tree
    # holds a third version ('Nr. ') that neither may show.
    repo = project(tmp_path, {"src/demo/labels.py": LABEL})
    write(repo, {"src/demo/labels.py": NEW_LABEL})
    git(repo, "add", "-A")
    write(repo, {"src/demo/labels.py": LABEL.replace('"#"', '"Nr. "')})
    _staged_witness(repo, "#3", "No. 3", capsys, monkeypatch)


def test_an_old_side_that_cannot_import_is_named_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The change drops a dependency that is not installed: the old side cannot import, so
    # nothing was compared, and no output may read as "no difference".
    repo = project(tmp_path, {"src/demo/labels.py": "import demo_gone_dependency\n\n\n" + LABEL})
    write(repo, {"src/demo/labels.py": NEW_LABEL})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    why = (
        "not compared: the old side failed to import demo.labels: "
        "No module named 'demo_gone_dependency'"
    )
    f = functions(report)["demo.labels.label"]
    assert f["diff_note"].startswith(why), f
    assert not f["witnesses"]
    assert f"behaviour diff of demo.labels.label: {f['diff_note']}" in report["notes"]
    assert rc == 0  # no verdict in --fail-on: said, not failed
    assert escape_text(why) in render_markdown(Report.from_dict(report))
    from codemode.cli.main import main

    main(["check", "--staged"])  # what the hook prints
    assert why in capsys.readouterr().out


def test_a_function_with_a_passing_spec_that_was_not_compared_is_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # "ok" rows are left out of the terminal report; what the diff could not compare is not.
    spec = {
        "demo.labels.label": {
            "dataset": [{"case": {"id": "four", "input": 4, "expected": "No. 4"}}]
        }
    }
    repo = project(tmp_path, {"src/demo/labels.py": "import demo_gone_dependency\n\n\n" + LABEL})
    write(repo, {"src/demo/labels.py": NEW_LABEL, "specs/labels.yml": json.dumps(spec)})
    git(repo, "add", "-A")
    from codemode.cli.main import main

    monkeypatch.chdir(repo)
    capsys.readouterr()
    assert main(["check", "--staged"]) == 0
    out = capsys.readouterr().out
    assert "demo.labels.label: not compared: the old side failed to import demo.labels" in out


@pytest.mark.parametrize("cache", ["1", "0"], ids=["bytecode-cache", "no-bytecode-cache"])
def test_the_old_side_never_runs_the_new_sources_bytecode(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    cache: str,
) -> None:
    # The work tree holds the new source's compiled .pyc (the user ran it) and codemode's
    # private cache holds the new source's code: the old side's module has the same path,
    # and must still run its own source.
    import compileall

    repo = project(tmp_path, {"src/demo/labels.py": LABEL})
    write(repo, {"src/demo/labels.py": NEW_LABEL})
    git(repo, "add", "-A")
    assert compileall.compile_dir(str(repo / "src"), quiet=1)
    monkeypatch.setenv("CODEMODE_BYTECODE_CACHE", cache)
    for _ in range(2):  # the second run finds both sources compiled in the private cache
        _staged_witness(repo, "#3", "No. 3", capsys, monkeypatch)
