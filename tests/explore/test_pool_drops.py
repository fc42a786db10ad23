"""A test call the pool cannot carry is counted by its reason, not lost silently (#32): one
that passes a fixture has no value in its file; one that passes a constant of its file, or a
value a line of its test builds, is carried with it."""

from __future__ import annotations

from pathlib import Path

from projectkit import project

from codemode.config import load_config
from codemode.explore.offline.input_pool import pool_for

SOURCE = """
def tag(text, lang):
    return f"{lang}:{text}"
"""

TESTS = """
import datetime

from pkg.tags import tag

LANG = "en"
WHEN = datetime.date(2024, 1, 31)


def test_constant():
    assert tag("one", LANG) == "en:one"


def test_built(tmp_path):
    stamp = WHEN.isoformat()
    assert tag(stamp, "fr")
    assert tag(str(tmp_path), "de")
"""


def test_uncarried_calls_are_counted_and_the_rest_carry_their_names(tmp_path: Path) -> None:
    root = project(tmp_path, {"src/pkg/tags.py": SOURCE, "tests/test_tags.py": TESTS})
    pool = pool_for(load_config(root), "pkg.tags.tag", old_root=None, new_root=root)
    tests = [c for c in pool if c.source == "tests"]
    assert ("one", "en") in [c.args for c in tests]  # the constant put in place
    built = [c.exprs for c in tests if c.exprs]
    assert built and built[0]["args"] == ["stamp", "'fr'"], built
    assert built[0]["setup"].splitlines()[-2:] == [
        "WHEN = datetime.date(2024, 1, 31)",
        "stamp = WHEN.isoformat()",
    ]
    assert pool.dropped == {"a name the test file binds no value to": 1}
