"""Text for a CI job log in which no line is a GitHub workflow command.

The Actions runner reads every line a step prints, on stdout and stderr, as a possible
workflow command: a line that starts with ``::`` after leading whitespace (``::error::``,
``::add-mask::``, ``::stop-commands::``...), or one that holds ``##[`` anywhere (the legacy
syntax). Report data (a function's output, an exception's message, a spec's text) can hold
either; it goes through ``log_safe`` before it is printed. No imports: the hook's error path
and terminal output use it.
"""

from __future__ import annotations

ZWSP = "\u200b"  # not whitespace to the runner's TrimStart, invisible to a reader
LEGACY = "##["


def log_safe(text: str) -> str:
    """``text`` with a zero-width space after the first ``:`` of a line that starts with ``::``,
    and inside every ``##[``. Lines are split as widely as ``str.splitlines`` does (a lone CR,
    a form feed...), which covers every break the runner's line reader knows."""
    if "::" not in text and LEGACY not in text:
        return text
    out = []
    for line in text.splitlines(keepends=True):
        body = line.lstrip()
        if body.startswith("::"):
            start = len(line) - len(body)
            line = f"{line[:start]}:{ZWSP}{line[start + 1 :]}"
        out.append(line)
    return "".join(out).replace(LEGACY, f"#{ZWSP}#[")
