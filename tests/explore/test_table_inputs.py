"""Inputs from table-driven tests, siblings, doctest files, test data and receivers (#18).

Each test writes a small real project in a temp dir and reads what the offline explorer
plans for a function (`plan`), or what `codemode regen` writes through the real CLI."""

from __future__ import annotations

from pathlib import Path

from projectkit import cases as _cases
from projectkit import project as _project
from projectkit import regen as _regen
from projectkit import spec as _spec

from codemode.config import load_config
from codemode.explore.offline.explorer import plan
from codemode.explore.offline.input_pool import pool_for
from codemode.explore.target import load_target

VERSIONS = '''
def compare(a: str, b: str) -> int:
    """-1, 0 or 1 as version ``a`` sorts before, with or after ``b``."""
    pa = tuple(int(x) for x in a.split("."))
    pb = tuple(int(x) for x in b.split("."))
    return (pa > pb) - (pa < pb)


def normalize(v: str) -> str:
    return ".".join(str(int(x)) for x in v.strip().split("."))


class Version:
    def __init__(self, text: str) -> None:
        self.parts = [int(x) for x in text.split(".")]

    def bump(self) -> str:
        return ".".join(map(str, [*self.parts[:-1], self.parts[-1] + 1]))
'''


def _planned(root: Path, fid: str) -> dict[tuple[object, ...], str]:
    found = plan(load_target(load_config(root), fid), root=root).candidates
    return {c.args: c.label for c in found if c.source in ("tests", "docstring")}


def test_rows_of_a_unittest_table_bind_the_calls_in_its_loop(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "src/pkg/versions.py": VERSIONS,
            "tests/test_versions.py": """
            import unittest
            from pkg.versions import compare

            PAIRS = {"1.0": "1.0.0"}

            class CompareTests(unittest.TestCase):
                versions = (("0.1.0", "0.1.1", -1), ("1.10.0", "1.9.0", 1))

                def setUp(self):
                    self.more = [("2.0", "10.0")]

                def test_table(self):
                    for a, b, expected in self.versions:
                        with self.subTest(a=a, b=b):
                            self.assertEqual(compare(a, b), expected)

                def test_set_up_rows_and_dicts(self):
                    for a, b in self.more:
                        compare(a, b)
                    for a, b in PAIRS.items():
                        compare(a, b)

                def test_zip_and_comprehension(self):
                    olds = ["3.0", "3.1"]
                    news = ["3.2", "3.3"]
                    for a, b in zip(olds, news):
                        compare(a, b)
                    assert all(compare(v, v) == 0 for v in ["4.4.4"])
            """,
        },
    )
    found = _planned(root, "pkg.versions.compare")
    for row in [("0.1.0", "0.1.1"), ("1.10.0", "1.9.0"), ("2.0", "10.0"), ("1.0", "1.0.0")]:
        assert found.get(row) == "from_test_table" or row in found, row
    assert ("3.0", "3.2") in found and ("3.1", "3.3") in found
    assert ("4.4.4", "4.4.4") in found
    # through the CLI: the spec written for compare holds a call from the table
    report = _regen(root, "pkg.versions.compare")
    assert report["functions"][0]["status"] == "ok"  # type: ignore[index]
    inputs = [c.get("inputs") for c in _cases(_spec(root, "pkg.versions"), "pkg.versions.compare")]
    assert any(tuple(i) in found for i in inputs if isinstance(i, list)), inputs


def test_literals_of_sibling_functions_doc_files_and_test_data(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "src/pkg/versions.py": VERSIONS,
            "src/pkg/conf.py": """
            def count_keys(text: str) -> int:
                return sum(1 for line in text.splitlines() if "=" in line)
            """,
            "README.md": "Use it:\n\n    >>> normalize(' 01.2 ')\n    '1.2'\n",
            "tests/test_versions.py": """
            from pkg.versions import compare

            def test_compare():
                assert compare("1.2.3", "1.2.4") == -1
            """,
            "tests/test_conf.py": """
            from pathlib import Path
            from pkg.conf import count_keys

            DATA = Path(__file__).parent / "data"

            def test_sample():
                assert count_keys((DATA / "sample.toml").read_text()) == 2
            """,
            "tests/data/sample.toml": "a = 1\nb = 2\n",
            "tests/data/unrelated.bin": "not named by any test\n",
        },
    )
    normalize = _planned(root, "pkg.versions.normalize")
    assert normalize[("1.2.3",)] == "like_compare"  # compare's argument, alone
    assert normalize[(" 01.2 ",)] == "doc_example"  # README's example
    count = _planned(root, "pkg.conf.count_keys")
    assert count[("a = 1\nb = 2\n",)] == "data_sample"
    assert ("not named by any test\n",) not in count


def test_receivers_for_a_method_are_built_from_the_rows_the_tests_use(tmp_path: Path) -> None:
    # the behaviour diff's pool: the instance is built as the test builds it, once per row
    # of its parametrize table and of the table its loop iterates
    root = _project(
        tmp_path,
        {
            "src/pkg/versions.py": VERSIONS,
            "tests/test_bump.py": """
            import pytest
            from pkg.versions import Version

            @pytest.mark.parametrize("text", ["1.2.3", "0.9"])
            def test_bump(text):
                assert Version(text).bump()

            def test_bump_table():
                for text in ("7.7", "8.8"):
                    v = Version(text)
                    assert v.bump()
            """,
        },
    )
    found = pool_for(load_config(root), "pkg.versions.Version.bump", old_root=None, new_root=root)
    built = {tuple(c.receiver["args"]) for c in found if c.receiver}
    assert built >= {("1.2.3",), ("0.9",), ("7.7",), ("8.8",)}
