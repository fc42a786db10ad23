"""A method's instance built the way the project builds it (#32): through a module-level
factory function, through a classmethod constructor, and from every construction string the
tests' tables hold (spread over their shapes, never the first N). Through the CLI with real
git and real workers on both sides; each fails on the code before it (the method was "not
compared": its class cannot be built without arguments)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from diffkit import check, functions, git, project, write


def witness_calls(
    repo: Path, fid: str, scope: str, ref: str, capsys: Any, monkeypatch: Any
) -> list[str]:
    """``check SCOPE [REF]``: ``fid`` is flagged ``changed`` and fails the check; its
    witnesses' calls."""
    rc, report = check(repo, scope, *([ref] if ref else []), capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get(fid)
    assert f is not None and f["status"] == "changed" and rc == 1, f
    return [w["call"] for w in f["witnesses"]]


RENDER = """\
import re


class Renderer:
    def __init__(self, rules, escape):
        self.rules = rules  # compiled patterns: no YAML form
        self.escape = escape

    def render(self, text):
        return self._emphasis(text.strip())

    def _emphasis(self, text):
        for pattern, tag in self.rules:
            text = pattern.sub(lambda m: f"<{tag}>{m.group(1)}</{tag}>", text)
        return text


def create_renderer(escape=True):
    return Renderer([(re.compile(r"\\*(.+?)\\*"), "em")], escape)
"""
RENDER_TEST = """\
import pytest

from demo.render import create_renderer


@pytest.fixture
def md():
    return create_renderer()


def test_emphasis(md):
    assert md.render("a *b* c *d*") == "a <em>b</em> c <em>d</em>"
"""


def test_an_instance_comes_from_the_projects_factory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/render.py": RENDER, "tests/test_render.py": RENDER_TEST})
    # deep in a method the tests never call: only the first emphasis is marked
    write(repo, {"src/demo/render.py": RENDER.replace('</{tag}>", text)', '</{tag}>", text, 1)')})
    git(repo, "commit", "-qam", "new")
    calls = witness_calls(
        repo, "demo.render.Renderer.render", "--base", "HEAD~1", capsys, monkeypatch
    )
    assert any(c.startswith("create_renderer(") and ".render(" in c for c in calls), calls


DURATION = """\
class Duration:
    def __init__(self, parts):
        self.parts = parts

    @classmethod
    def from_text(cls, text):
        parts = {}
        for chunk in text.split():
            parts[chunk[-1]] = int(chunk[:-1])
        return cls(parts)

    def minutes(self):
        return self.parts.get("h", 0) * 60 + self.parts.get("m", 0)

    def seconds(self):
        return self.minutes() * 60
"""
DURATION_TEST = """\
from demo.duration import Duration


def test_minutes():
    assert Duration.from_text("2h").minutes() == 120
    assert Duration.from_text("1h 30m").minutes() == 90
"""


def test_an_instance_comes_from_a_classmethod_constructor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(
        tmp_path, {"src/demo/duration.py": DURATION, "tests/test_duration.py": DURATION_TEST}
    )
    # a method no test calls: it rounds to whole hours now
    new = DURATION.replace("return self.minutes() * 60", "return self.minutes() // 60 * 3600")
    write(repo, {"src/demo/duration.py": new})
    git(repo, "add", "-A")
    calls = witness_calls(
        repo, "demo.duration.Duration.seconds", "--staged", "", capsys, monkeypatch
    )
    assert any(c.startswith("Duration.from_text('1h 30m').seconds(") for c in calls), calls


PATTERN = """\
class Pattern:
    def __init__(self, text):
        self.text = text

    def alternatives(self):
        return self.text.split("|")
"""
ROWS = [f"{a}{b}" for a in "abcdefgh" for b in "vwxyz"] + ["ab|cd"]  # 41 rows
PATTERN_TEST = f"""\
import pytest

from demo.pattern import Pattern


@pytest.mark.parametrize("text", {ROWS!r})
def test_keeps_its_text(text):
    assert Pattern(text).text == text


def test_alternatives():
    assert Pattern("x").alternatives() == ["x"]
"""


def test_every_construction_shape_of_the_tests_is_an_instance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(
        tmp_path, {"src/demo/pattern.py": PATTERN, "tests/test_pattern.py": PATTERN_TEST}
    )
    # only a text with a bar shows it, and its row is the table's last
    write(repo, {"src/demo/pattern.py": PATTERN.replace('split("|")', 'split("|")[::-1]')})
    git(repo, "commit", "-qam", "new")
    fid = "demo.pattern.Pattern.alternatives"
    calls = witness_calls(repo, fid, "--base", "HEAD~1", capsys, monkeypatch)
    assert any(c.startswith("Pattern('ab|cd').alternatives(") for c in calls), calls


def test_regen_writes_a_factory_built_instance_as_a_fixture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A method no test calls, of a class only a classmethod builds: regen writes its
    instance as the project builds it (a ``codemode.build`` fixture calling the classmethod
    with the tests' argument), and ``check`` verifies the spec and sees a later change."""
    import yaml

    from codemode.cli.main import main

    repo = project(
        tmp_path, {"src/demo/duration.py": DURATION, "tests/test_duration.py": DURATION_TEST}
    )
    monkeypatch.chdir(repo)
    fid = "demo.duration.Duration.seconds"
    assert main(["regen", "--function", fid, "-q"]) == 0, capsys.readouterr()
    spec = yaml.safe_load((repo / "specs" / "demo.duration.yml").read_text(encoding="utf-8"))
    assert spec["fixtures"]["duration_seconds"] == {
        "setup": "codemode.build",
        "kwargs": {
            "lines": ["from demo.duration import Duration"],
            "value": "Duration.from_text('2h')",
        },
    }, spec["fixtures"]
    assert [c["case"].get("expected") for c in spec[fid]["dataset"]] == [7200]
    assert main(["check", "--all"]) == 0, capsys.readouterr().out
    write(repo, {"src/demo/duration.py": DURATION.replace("* 60\n", "* 61\n")})
    rc, report = check(repo, "--all", capsys=capsys, monkeypatch=monkeypatch)
    assert functions(report)[fid]["status"] == "drifted" and rc == 1, report


WRAPPED = (
    RENDER
    + """

def render_text(text, escape=True):
    return create_renderer(escape=escape).render(text)
"""
)
WRAPPED_TEST = """\
from demo.render import render_text


def test_render_text():
    assert render_text("x *y* z *w*", escape=False) == "x <em>y</em> z <em>w</em>"
"""


def test_a_wrapper_that_builds_the_instance_through_a_factory_passes_its_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``render_text(text, escape)`` builds its ``Renderer`` with ``create_renderer``: the
    wrapper's test call is the method's input on the instance the factory builds with the
    wrapper's own argument."""
    repo = project(tmp_path, {"src/demo/render.py": WRAPPED, "tests/test_render.py": WRAPPED_TEST})
    write(repo, {"src/demo/render.py": WRAPPED.replace('</{tag}>", text)', '</{tag}>", text, 1)')})
    git(repo, "add", "-A")
    fid = "demo.render.Renderer.render"
    calls = witness_calls(repo, fid, "--staged", "", capsys, monkeypatch)
    shown = "create_renderer(escape=False).render('x *y* z *w*')"
    assert shown in calls, calls


SPLITTER = """\
class Splitter:
    def __init__(self, sep):
        self.sep = sep

    def split(self, text):
        return text.split(self.sep)
"""
SPLITTER_ROWS = [(",", f"a{i},b{i}") for i in range(50)]
SPLITTER_TEST = f"""\
import pytest

from demo.splitter import Splitter


@pytest.mark.parametrize(("sep", "text"), {SPLITTER_ROWS!r})
def test_commas(sep, text):
    s = Splitter(sep)
    assert s.split(text) == text.split(sep)
    assert s.split(text + sep) == text.split(sep) + [""]


def test_a_long_separator():
    s = Splitter("||")
    assert s.split("x||y") == ["x", "y"]
"""


def test_a_methods_test_calls_are_spread_over_their_shapes_not_cut_at_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hundred calls of the method on instances one test builds, then one on an instance
    of another shape, the only one the change shows on: before, the first 60 calls in file
    order were kept."""
    repo = project(
        tmp_path, {"src/demo/splitter.py": SPLITTER, "tests/test_splitter.py": SPLITTER_TEST}
    )
    write(repo, {"src/demo/splitter.py": SPLITTER.replace("split(self.sep)", "split(self.sep[0])")})
    git(repo, "add", "-A")
    calls = witness_calls(repo, "demo.splitter.Splitter.split", "--staged", "", capsys, monkeypatch)
    assert "obj = Splitter('||'); obj.split('x||y')" in calls or any(
        c.startswith("Splitter('||').split('x||y')") for c in calls
    ), calls
