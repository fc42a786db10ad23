"""No line printed from data is a workflow command, however the writes split it (#11)."""

from __future__ import annotations

import io
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codemode.logsafe import LogSafeStream, emit_command, log_safe

HOSTILE = "ok\n::error::forged\r  ::add-mask::secret\n##[warning]old\x0c::stop-commands::x\n:"


def _commands(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.lstrip().startswith("::") or "##[" in ln]


def test_log_safe_leaves_no_command_and_keeps_the_text() -> None:
    assert _commands(HOSTILE) != []  # the check can fail
    safe = log_safe(HOSTILE)
    assert _commands(safe) == []
    assert safe.replace("\u200b", "") == HOSTILE


@given(st.lists(st.integers(min_value=0, max_value=len(HOSTILE)), max_size=12))
def test_a_stream_keeps_the_line_state_across_writes(cuts: list[int]) -> None:
    raw = io.StringIO()
    stream = LogSafeStream(raw)
    points = [0, *sorted(cuts), len(HOSTILE)]
    for a, b in itertools.pairwise(points):
        stream.write(HOSTILE[a:b])
    stream.flush()
    assert _commands(raw.getvalue()) == []
    assert raw.getvalue().replace("\u200b", "") == HOSTILE


@pytest.mark.parametrize("before", ["", "half a line", "  "])
def test_codemodes_own_commands_pass_on_a_line_of_their_own(before: str) -> None:
    raw = io.StringIO()
    stream = LogSafeStream(raw)
    stream.write(before)
    emit_command("::error file=a.yml,line=1::drifted\n", stream)
    stream.write("::error::forged\n")
    stream.flush()
    lines = raw.getvalue().splitlines()
    assert "::error file=a.yml,line=1::drifted" in lines
    assert _commands(raw.getvalue()) == ["::error file=a.yml,line=1::drifted"]
