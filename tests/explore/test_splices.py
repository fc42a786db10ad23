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


def test_each_operand_gets_its_turn_and_the_splices_are_bounded(tmp_path: Path) -> None:
    root = tmp_path / "new"
    for rel, text in {
        "pyproject.toml": '[project]\nname = "demo"\nversion = "0"\n\n'
        '[tool.codemode]\nsource_roots = ["src"]\n',
        "src/demo/__init__.py": "",
        "src/demo/m.py": NEW,
        "tests/test_m.py": TEST,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    old = tmp_path / "old"
    (old / "src/demo").mkdir(parents=True)
    (old / "src/demo/m.py").write_text(OLD, encoding="utf-8")
    with files_read_once():
        pool = pool_for(load_config(root), "demo.m.label", old_root=old, new_root=root)
    spliced = [c.args[0] for c in pool if c.source == "splices"]
    assert len(spliced) == MAX_SPLICES
    firsts = [next(w for w in WORDS if w in text) for text in spliced[:32]]
    assert len(set(firsts)) == 32, firsts  # the first 32 operands, one splice each
    assert all("sentence" in text for text in spliced[:32])  # into a test's call
