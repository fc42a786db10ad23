"""The values a change compares against, spliced into the arguments a method's instance is
built from (#32), through the CLI with real git and real workers on both sides. The changed
code reads only the instance's text: no argument of the method, no test call and no variant
of one shows the new behaviour; only a test's instance with the changed line's operand in its
constructor's argument does (explore/offline/receiver_splice.py). Each fails on the code
before it."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import witness_calls

RELEASE = """\
class Release:
    def __init__(self, text: str, label: str = "") -> None:
        self.text = text
        self.label = label

    def major(self) -> int:
        return int(_parts(self.text)[0])

    def title(self) -> str:
        return _parts(self.label)[0].capitalize()


def _parts(text: str) -> list[str]:
    return text.split(".")
"""
# an epoch before "!" is split off: "2!1.0" was int("2!1"), a ValueError, it is 1
RELEASE_NEW = RELEASE.replace(
    '    return text.split(".")\n',
    '    _, _, rest = text.rpartition("!")\n    return rest.split(".")\n',
)
RELEASE_TEST = """\
from demo.release import Release


def test_major():
    assert Release("3.1").major() == 3


def test_title():
    assert Release("1.0", label="beta.2").title() == "Beta"
"""
FILES = {"src/demo/release.py": RELEASE, "tests/test_release.py": RELEASE_TEST}


@pytest.mark.parametrize(
    ("fid", "call"),
    [
        # the operand in place of the positional argument's "." (a method of no argument)
        ("demo.release.Release.major", "Release('3!1').major()"),
        # and of a keyword argument's
        ("demo.release.Release.title", "Release('1.0', label='beta!2').title()"),
    ],
)
def test_an_operand_the_change_compares_against_is_spliced_into_a_constructor_argument(
    fid: str,
    call: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = witness_calls(
        tmp_path,
        FILES,
        {"src/demo/release.py": RELEASE_NEW},
        fid,
        capsys,
        monkeypatch,
    )
    assert call in calls, calls
