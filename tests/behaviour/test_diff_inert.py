"""What the code under test produced is inert on the terminal, and an output too large to
compare is named, not silently witness-less (#33, acceptance 4): each through ``codemode
check`` in its terminal form, with the exit code the verdicts say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from diffkit import git, project, write

from codemode.cli.main import main

# An OSC window title, a clear screen, a colour, a lone CR, BEL, and a C1 CSI (U+009B).
HOSTILE = r"\x1b]0;pwned\x07\x1b[2J\x1b[31mred\rover\x9b31m"
LOUD = f"""\
def loud(n: int) -> int:
    raise ValueError("{HOSTILE}" + str(n + {{step}}))
"""
# 10 MB that differs on every input, and between the versions
BLOB = """\
def blob(n: int) -> str:
    return "{mark}" + str(n) * 10_000_000
"""


def _staged(
    tmp_path: Path, name: str, source: str, old: dict[str, str], new: dict[str, str]
) -> Path:
    repo = project(tmp_path, {f"src/demo/{name}.py": source.format(**old)})
    write(repo, {f"src/demo/{name}.py": source.format(**new)})
    git(repo, "add", "-A")
    return repo


def _terminal(repo: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    rc = main(["check", "--staged", "--root", str(repo), *args])
    return rc, capsys.readouterr().out


@pytest.mark.parametrize("color", ["never", "always"])
def test_escape_sequences_in_an_exception_are_shown_escaped(
    color: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _staged(tmp_path, "loud", LOUD, {"step": 0}, {"step": 1})
    rc, out = _terminal(repo, capsys, "--color", color)
    assert (
        "loud(3): raises ValueError: \\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred\\rover\\x9b31m" in out
    )
    # codemode's own colours are the only sequences left, and nothing else acts on a terminal
    painted = re.sub(r"\x1b\[\d+m", "", out)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", painted), repr(out)
    assert ("\x1b[" in out) == (color == "always")
    # only the message changed: `message_changed`, outside the default fail_on (#32)
    assert rc == 0 and "loud: message_changed:" in painted


def test_a_large_varying_output_is_named_not_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _staged(tmp_path, "blob", BLOB, {"mark": "a"}, {"mark": "b"})
    rc, out = _terminal(repo, capsys)
    # one line names it (the budget may have cut the search first: the line says so too)
    note = r"note: behaviour diff of demo\.blob\.blob: .*outputs over 2,000,000 bytes: not compared"
    assert re.search(note, out), out
    assert rc == 0  # no spec: `missing`, which fails nothing by default
