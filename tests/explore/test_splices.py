"""The bound on the splices of a change's operands into a function's pool (#32): at most
``MAX_SPLICES`` per function, and every operand's first splice before any operand's second,
read from a real project and the old side's folder as the behaviour diff lays them out."""

from __future__ import annotations

from pathlib import Path

from codemode.config import load_config
from codemode.explore.offline.harvest import files_read_once
from codemode.explore.offline.input_pool import pool_for
from codemode.explore.offline.splice import MAX_SPLICES

WORDS = [f"w{i:02d}" for i in range(40)]
OLD = "def label(text):\n    return text\n"
NEW = (
    "def label(text):\n"
    + "".join(f'    if text.endswith("{w}"):\n        return "{w.upper()}"\n' for w in WORDS)
    + "    return text\n"
)
TEST = "from demo.m import label\n\n\ndef test_label():\n" + "".join(
    f'    assert label("a plain sentence number {i}")\n' for i in range(10)
)


def _project(tmp_path: Path, old_m: str, new_m: str, test: str) -> Path:
    """The new side's project (``src/demo/m.py`` and its test) and the old side's folder
    beside it, as the behaviour diff lays them out; the new side's root."""
    root = tmp_path / "new"
    for rel, text in {
        "pyproject.toml": '[project]\nname = "demo"\nversion = "0"\n\n'
        '[tool.codemode]\nsource_roots = ["src"]\n',
        "src/demo/__init__.py": "",
        "src/demo/m.py": new_m,
        "tests/test_m.py": test,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    old = tmp_path / "old"
    (old / "src/demo").mkdir(parents=True)
    (old / "src/demo/m.py").write_text(old_m, encoding="utf-8")
    return root


def test_each_operand_gets_its_turn_and_the_splices_are_bounded(tmp_path: Path) -> None:
    root = _project(tmp_path, OLD, NEW, TEST)
    with files_read_once():
        pool = pool_for(load_config(root), "demo.m.label", old_root=tmp_path / "old", new_root=root)
    spliced = [c.args[0] for c in pool if c.source == "splices"]
    assert len(spliced) == MAX_SPLICES
    firsts = [next(w for w in WORDS if w in text) for text in spliced[:32]]
    assert len(set(firsts)) == 32, firsts  # the first 32 operands, one splice each
    assert all("sentence" in text for text in spliced[:32])  # into a test's call


QUOTE_OLD = "def quote(text):\n    return text.replace('%', '%25').replace(' ', '%20')\n"
QUOTE_NEW = """\
import re

ESCAPE = re.compile(r"(%[0-9A-Fa-f]{2})")


def quote(text):
    parts = ESCAPE.split(text)
    return "".join(p if n % 2 else p.replace('%', '%25').replace(' ', '%20')
                   for n, p in enumerate(parts))
"""
QUOTE_TEST = "from demo.m import quote\n\n\ndef test_quote():\n    assert quote('a b') == 'a%20b'\n"


def test_a_patterns_examples_are_spliced_inside_a_tests_text(tmp_path: Path) -> None:
    """The least example of an escape's pattern and the one with its class's letters, each
    joined inside the test's text (in place of its space), besides the other places."""
    root = _project(tmp_path, QUOTE_OLD, QUOTE_NEW, QUOTE_TEST)
    with files_read_once():
        pool = pool_for(load_config(root), "demo.m.quote", old_root=tmp_path / "old", new_root=root)
    spliced = {c.args[0] for c in pool if c.source == "splices"}
    assert {"a%00b", "a%AAb", "a b%00", "a b%AA"} <= spliced, spliced
