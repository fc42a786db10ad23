"""upgrade_detection's runners show an outcome's first 2,000 characters; two long outcomes
that differ only past the cut (a table of 4,525 names against 4,916) must not compare the
same, or a flag that names a real change is scored as a false alarm (emoji 2.1 -> 2.2's
get_aliases_unicode_dict) and the differential run misses it."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from _changelog import Announced, run

TABLE = "def table():\n    return {{f'name{{i:05d}}': i for i in range({n})}}\n"


def _release(root: Path, n: int) -> Path:
    (root / "tbl").mkdir(parents=True)
    (root / "tbl" / "__init__.py").write_text(TABLE.format(n=n))
    return root


def test_outcomes_that_differ_past_the_shown_part_are_not_the_same(tmp_path: Path) -> None:
    call = [Announced("tbl.table", "table()", "value:", "value:")]
    (old,) = run(_release(tmp_path / "old", 4525), call)
    (again,) = run(_release(tmp_path / "again", 4525), call)
    (new,) = run(_release(tmp_path / "new", 4916), call)
    assert old.startswith("value:{'name00000': 0") and len(old) < 2200
    assert old == again  # the same long outcome is the same
    assert old != new
