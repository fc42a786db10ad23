"""upgrade_detection re-runs each flag's witness on both releases before it counts. A method's
instance must be the one codemode ran it on: built by the recipe's own maker (a factory, a
classmethod) and prepared by the recipe's calls, or by the test's lines (``built["self"]``).
Before, the re-check built ``Class(*args)`` and dropped the rest, so a real witness on a
factory-built instance re-ran as "same" and was scored "flagged without a correct witness";
a witness that is a state the call left (``after``) re-ran on its None and read as the same."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from _witness import recheck, witness_call

MODULE = '''\
class Parser:
    def __init__(self, strict=False):
        self.strict = strict
        self.rules = []

    def add_rule(self, rule):
        self.rules.append(rule)

    def parse(self, text):
        words = [w for w in text.split() if w in self.rules]
        return {words} if self.strict else []

    def clear(self):
        self.rules = {cleared}


def make_parser(strict):
    return Parser(strict=strict)
'''


def _release(root: Path, words: str, cleared: str) -> Path:
    (root / "prs").mkdir(parents=True)
    (root / "prs" / "__init__.py").write_text(MODULE.format(words=words, cleared=cleared))
    return root


def test_a_witness_reruns_on_the_instance_its_recipe_builds_and_prepares(tmp_path: Path) -> None:
    # only a strict parser with the rule 'x' tells the releases apart
    old = _release(tmp_path / "old", "words", "[]")
    new = _release(tmp_path / "new", "words[::-1] + ['!']", "[]")
    json_witness = {
        "call": "Parser.parse('x y x')",
        "args": ["x y x"],
        "kwargs": None,
        "receiver": {"cls": "prs.make_parser", "args": [True], "calls": [["add_rule", ["x"], {}]]},
        "old": {"returned": ["x", "x"]},
        "new": {"returned": ["x", "x", "!"]},
    }
    w = witness_call("prs.Parser.parse", json_witness, 1)
    built = witness_call(
        "prs.Parser.parse",
        {
            "call": "p = make_parser(True); p.add_rule('x'); p.parse('x y x')",
            "built": {
                "args": ["'x y x'"],
                "kwargs": {},
                "setup": "from prs import make_parser\np = make_parser(True)\np.add_rule('x')",
                "self": "p",
            },
            "old": {"returned": ["x", "x"]},
            "new": {"returned": ["x", "x", "!"]},
        },
        2,
    )
    assert recheck(old, new, [w, built]) == {w: "real", built: "real"}


def test_a_witness_of_the_state_a_call_left_reruns_as_a_change(tmp_path: Path) -> None:
    old = _release(tmp_path / "old", "words", "[]")
    new = _release(tmp_path / "new", "words", "['default']")
    state = {
        "call": "Parser.clear()",
        "args": [],
        "kwargs": None,
        "receiver": {"cls": "prs.Parser", "args": [], "kwargs": {}},
        "old": {"returned": None, "after": {"self": {"strict": False, "rules": []}}},
        "new": {"returned": None, "after": {"self": {"strict": False, "rules": ["default"]}}},
    }
    w = witness_call("prs.Parser.clear", state, 1)
    plain = witness_call("prs.Parser.clear", {**state, "old": None, "new": None}, 2)
    assert recheck(old, new, [w, plain]) == {w: "real", plain: "same"}


SPAN = '''\
import datetime


def months(start, stop):
    out, d = [], start
    while d {cmp} stop:
        out.append(d)
        d = datetime.date(d.year + d.month // 12, d.month % 12 + 1, 1)
    return out
'''


def test_a_witness_of_dates_reruns_as_codemode_wrote_it(tmp_path: Path) -> None:
    # repr() writes a date as ``datetime.date(...)``: re-run as that date, not as its text
    # (before, the JSON's arguments, the reprs as strings, raised one TypeError on both)
    old, new = tmp_path / "old", tmp_path / "new"
    for root, cmp in ((old, "<"), (new, "<=")):
        (root / "span").mkdir(parents=True)
        (root / "span" / "__init__.py").write_text(SPAN.format(cmp=cmp))
    w = witness_call(
        "span.months",
        {
            "call": "months(datetime.date(2024, 1, 1), datetime.date(2024, 3, 1))",
            "args": ["datetime.date(2024, 1, 1)", "datetime.date(2024, 3, 1)"],
            "kwargs": None,
            "old": {"returned": ["2024-01-01", "2024-02-01"]},
            "new": {"returned": ["2024-01-01", "2024-02-01", "2024-03-01"]},
        },
        1,
    )
    assert recheck(old, new, [w]) == {w: "real"}


FAILURE = """\
class Failure(Exception):
    def __init__(self, *args, **kwargs):
        self.__reserved = kwargs.pop("reserved", {default})
        super().__init__(*args)

    @property
    def reserved(self):
        return self.__reserved
"""


def test_a_property_reruns_read_not_called(tmp_path: Path) -> None:
    """A spec case of a property (pathvalidate 3.0's ValidationError.reserved_name: None, then
    ""): calling the value it read raised a TypeError on both releases, and the real change
    was scored a false alarm (#32)."""
    for side, default in (("old", "None"), ("new", '""')):
        (tmp_path / side / "prs").mkdir(parents=True)
        (tmp_path / side / "prs" / "__init__.py").write_text(FAILURE.format(default=default))
    case = witness_call("prs.Failure.reserved", {"id": "typical", "inputs": [], "expected": None}, 1)
    assert recheck(tmp_path / "old", tmp_path / "new", [case]) == {case: "real"}
