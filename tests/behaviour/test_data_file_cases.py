"""The tests' data files the change is about, and the cases of a many-case file, reach the
behaviour diff (#32), through the CLI with real git and real workers on both sides. Fails on
the code before it.

``render(text)`` reads a definition (a line, then ``:`` and a tab or a space) and the change
lets a tab start one too. Only a whole case shows it (one line alone is a paragraph either
way):

- one spec file of 300 cases between fence lines, too large to be one input: its cases are
  split, and the one holding the change's literal (``':\\t'``) is tried;
- 15 data files of one case each, the one the change is about the last in name order (the
  harvest read the first 12).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

OLD = """\
def render(text: str) -> str:
    out = []
    rows = text.splitlines()
    for i, row in enumerate(rows):
        if row.startswith(": ") and i > 0:
            out[-1] = f"<dt>{rows[i - 1]}</dt><dd>{row[2:]}</dd>"
        else:
            out.append(f"<p>{row}</p>")
    return "\\n".join(out)
"""
NEW = OLD.replace('row.startswith(": ")', 'row.startswith((": ", ":\\t"))')
TEST = """\
from pathlib import Path

from demo.core import render

DATA = Path(__file__).parent / "data"


def test_cases():
    for path in sorted(DATA.glob("*.txt")):
        assert render(path.read_text())
"""
FENCE = "`" * 16


def _case(n: int) -> str:
    return f"{FENCE} example\nplain words number {n}\nand more words\n.\n<p>plain words number {n}</p>\n{FENCE}\n"


def _changed(
    tmp_path: Path,
    data: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> dict[str, object]:
    files = {"src/demo/core.py": OLD, "tests/test_core.py": TEST}
    repo = project(tmp_path, {**files, **{f"tests/data/{k}": v for k, v in data.items()}})
    write(repo, {"src/demo/core.py": NEW})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.core.render")
    assert f is not None and f["status"] == "changed" and rc == 1, f
    return f


def test_the_cases_of_a_large_spec_file_are_split_and_ranked_by_the_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = [_case(n) for n in range(300)]
    cases.insert(240, f"{FENCE} example\nterm\n:\tits meaning\n.\n<dl></dl>\n{FENCE}\n")
    spec = "# Spec\n\n" + "\n".join(cases)
    assert len(spec) > 8000  # not one input
    f = _changed(tmp_path, {"spec.txt": spec}, capsys, monkeypatch)
    calls = [w["call"] for w in f["witnesses"]]  # type: ignore[index]
    assert any("term\\n:\\tits meaning" in c for c in calls), calls


def test_the_data_file_the_change_is_about_is_read_past_the_first_dozen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = {f"a{n:02}.txt": f"plain words {n}\nand more\n" for n in range(15)}
    data["z_last.txt"] = "term\n:\tits meaning\n"
    f = _changed(tmp_path, data, capsys, monkeypatch)
    calls = [w["call"] for w in f["witnesses"]]  # type: ignore[index]
    assert "render('term\\n:\\tits meaning\\n')" in calls, calls
