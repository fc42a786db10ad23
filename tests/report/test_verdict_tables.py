"""Every renderer's table keyed by verdict (or case status) has a row for each word: a verdict
added to codemode.verdicts without an icon, a colour or a rank would render as nothing (#34)."""

from __future__ import annotations

from codemode.report.markdown_sections import CASE_ICONS, ICONS
from codemode.report.model import CASE_STATUSES, STATUS_ORDER
from codemode.report.terminal import STATUS_COLOR
from codemode.verdicts import VERDICTS


def test_each_verdict_table_covers_every_verdict() -> None:
    assert sorted(ICONS) == sorted(VERDICTS)
    assert sorted(STATUS_ORDER) == sorted(VERDICTS)


def test_each_case_table_covers_every_case_status() -> None:
    assert sorted(CASE_ICONS) == sorted(CASE_STATUSES)


def test_the_terminal_colours_every_verdict_and_case_status() -> None:
    assert sorted(STATUS_COLOR) == sorted({*VERDICTS, *CASE_STATUSES})
