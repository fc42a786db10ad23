"""Text for a CI job log in which no line is a GitHub workflow command, and for a terminal
in which no text from data is a control sequence (``inert``).

The Actions runner reads every line a step prints, on stdout and stderr, as a possible
workflow command: a line that starts with ``::`` after leading whitespace (``::error::``,
``::add-mask::``, ``::stop-commands::``...), or one that holds ``##[`` anywhere (the legacy
syntax). Report data (a function's output, an exception's message, a spec's text) can hold
either; it goes through ``log_safe`` before it is printed. No imports: the hook's error path
and terminal output use it (``typing`` and ``sys`` are loaded at startup already).
"""

from __future__ import annotations

import sys
from typing import Any

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


# What a terminal may act on instead of showing (#33): C0 controls but tab and newline (ESC
# starts clear-screen and window-title sequences, BEL rings, CR rewrites the line), DEL, the
# C1 controls (U+009B is a CSI to some terminals) and the bidirectional overrides (text shown
# in another order than it is). Each is shown as its escape, as repr() would.
_CONTROLS = {
    **{c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))},
    **{c: f"\\u{c:04x}" for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))},
    0x0D: "\\r",
}


def inert(text: str) -> str:
    """``text`` with every control character shown as its escape (``\\x1b``, ``\\r``), so
    that nothing the code under test wrote (an exception's message, an output) acts on the
    terminal; tab and newline are kept."""
    return text.translate(_CONTROLS)


def _complete(piece: str) -> bool:
    """``piece`` (one of ``splitlines(keepends=True)``) ends with a line break."""
    return len(piece.splitlines()[0]) < len(piece) if piece.strip("\n\r") else piece != ""


class LogSafeStream:
    """A text stream for the job log: what is written goes through ``log_safe``, with the line
    state kept across writes (``write(":")`` then ``write(":error::x")`` is one line too).

    ``main`` puts it over stdout and stderr under GitHub Actions, so that no print anywhere
    (a diff, a message, a traceback) can start a workflow command; codemode's own commands
    go around it through ``emit_command``.
    """

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.pending = ""  # the start of a line that may still become ``::``
        self.mid_line = False  # the current line has started with something else

    def write(self, text: str) -> int:
        out = []
        for piece in (self.pending + text).splitlines(keepends=True):
            self.pending = ""
            complete = _complete(piece)
            if not self.mid_line and not complete and piece.lstrip() in ("", ":"):
                self.pending = piece  # undecided until more of the line comes
                continue
            if not complete:  # a trailing "#" or "##" may become "##[" with the next write
                keep = min(len(piece) - len(piece.rstrip("#")), 2)
                if keep:
                    piece, self.pending = piece[:-keep], piece[-keep:]
            safe = piece.replace(LEGACY, f"#{ZWSP}#[") if self.mid_line else log_safe(piece)
            out.append(safe)
            self.mid_line = not complete
        self.raw.write("".join(out))
        return len(text)

    def settle(self) -> None:
        """Write a held line start or "#" (made inert: nothing written later can complete it)."""
        if self.pending:
            held, self.pending = self.pending, ""
            self.raw.write(held + ZWSP if held.endswith((":", "#")) else held)
            self.mid_line = True

    def flush(self) -> None:
        self.settle()
        self.raw.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, buffer...
        return getattr(self.raw, name)


def emit_command(text: str, stream: Any = None) -> None:
    """Write codemode's own workflow commands (each value already escaped with the toolkit's
    rules), around the ``LogSafeStream`` that would neutralise them."""
    stream = sys.stdout if stream is None else stream
    if isinstance(stream, LogSafeStream):
        stream.settle()
        if stream.mid_line:
            stream.raw.write("\n")
        stream.mid_line = False
        stream = stream.raw
    stream.write(text)
    stream.flush()
