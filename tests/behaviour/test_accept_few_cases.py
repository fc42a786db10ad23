"""Accepting a behaviour change writes a few cases per function (#35): the representative
witnesses (one per kind of outcome first, at most ``MAX_ACCEPTED``), ids that describe the call,
a call with positional and keyword arguments written by name (not "needs an instance"), and a
drifted case accepted as a raise keeps a ``match`` as recorded witnesses do."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from diffkit import check, functions, git, project, write

from codemode.behaviour.witness_ids import MAX_ACCEPTED, case_id
from codemode.cli.main import main
from codemode.report.model import Witness

GRADE = '''\
def grade(score: int, scale: int = 100) -> str:
    """The letter a score earns."""
    if score < 0:
        raise ValueError("negative score")
    pct = score * 100 // scale
    if pct >= 90:
        return "A"
    if pct >= 80:
        return "B"
    return "C"
'''
# New: lower thresholds, a negative score is an F, a score above the scale is refused.
NEW_GRADE = (
    GRADE.replace(
        '        raise ValueError("negative score")\n',
        '        return "F"\n    if score > scale:\n        raise ValueError("score above scale")\n',
    )
    .replace("pct >= 90", "pct >= 85")
    .replace("pct >= 80", "pct >= 75")
)
TESTS = "from demo.grades import grade\n\n\n" + "".join(
    f"def test_{n}():\n    assert grade({score}, scale=100)\n\n\n"
    for n, score in enumerate((95, 88, 86, 78, 76, 50, -1, -5, 120, 150, 101, 87))
)
SPEC = """\
demo.grades.grade:
  dataset:
    - case: {id: high, inputs: [120], expected: A}
"""


def test_accept_writes_the_representative_witnesses_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(
        tmp_path,
        {"src/demo/grades.py": GRADE, "tests/test_grades.py": TESTS, "specs/grades.yml": SPEC},
    )
    write(repo, {"src/demo/grades.py": NEW_GRADE})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.grades.grade"]
    assert rc == 1 and len(f["witnesses"]) > MAX_ACCEPTED, f

    capsys.readouterr()
    assert main(["accept", "demo.grades.grade", "--staged"]) == 0
    out = capsys.readouterr().out
    assert "needs an instance" not in out and "not written" not in out, out
    spec = yaml.safe_load((repo / "specs/grades.yml").read_text())
    cases = {c["case"]["id"]: c["case"] for c in spec["demo.grades.grade"]["dataset"]}
    high = cases.pop("high")  # the drifted case, accepted as the raise it now is
    assert high == {
        "id": "high",
        "inputs": [120],
        "raises": "ValueError",
        "match": "^score above scale$",
    }
    assert 1 <= len(cases) <= MAX_ACCEPTED, cases
    # every kind of change is there: a letter for another, a raise for a letter, a letter
    # for a raise (the tests' calls come first, each written with its arguments by name)
    outcomes = {
        ("raises" in c, "expected" in c and c["inputs"]["score"] < 0) for c in cases.values()
    }
    assert outcomes == {(True, False), (False, False), (False, True)}, cases
    for cid, case in cases.items():
        assert case["inputs"].keys() == {"score", "scale"}, case
        assert cid.startswith(f"grade_{case['inputs']['score']}_scale_100".replace("-", "minus_"))
        if "raises" in case:
            assert cid.endswith("_raises_valueerror") and case["match"] == "^score above scale$"

    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 0, functions(report)["demo.grades.grade"]


@pytest.mark.parametrize(
    ("args", "kwargs", "new", "want"),
    [
        (("!!!",), None, {"returned": ""}, "slugify_symbols"),  # not `_no_arguments`
        ((), None, {"returned": 1}, "slugify_no_arguments"),
        (
            ("Hello, World again and again",),
            None,
            {"returned": ""},
            "slugify_hello_world_again_and",
        ),
        (([], -2.5), None, {"raised": "KeyError"}, "slugify_empty_list_minus_2_5_raises_keyerror"),
        # cut to 48 characters, the raise kept
        (
            ("a" * 60,),
            {"mode": 1},
            {"raised": "KeyError"},
            "slugify_" + "a" * 24 + "_raises_keyerror",
        ),
    ],
)
def test_an_id_says_what_the_case_calls(
    args: tuple[object, ...], kwargs: dict[str, object] | None, new: dict[str, object], want: str
) -> None:
    w = Witness("", {"returned": 0}, new, args=args, kwargs=kwargs)
    assert case_id("pkg.text.slugify", w) == want
