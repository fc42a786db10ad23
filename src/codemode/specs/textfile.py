"""A spec file's text and the form it came in: a byte order mark, CRLF line endings.

The editors work on text with ``\\n`` line endings; what they write goes back in the form the
file had, so an edit of a Windows-made spec diffs as the lines it changed, not as every line
of the file (#21: a CRLF file became LF throughout).
"""

from __future__ import annotations

from typing import NamedTuple

BOM = b"\xef\xbb\xbf"


class Form(NamedTuple):
    bom: bool = False
    crlf: bool = False


def decode(raw: bytes) -> tuple[str, Form]:
    """``raw`` as text with ``\\n`` line endings, and its form (CRLF when every line ending
    of the file is one). Raises UnicodeDecodeError for a file that is not UTF-8."""
    text = raw.decode("utf-8-sig")
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    return (text.replace("\r\n", "\n") if crlf else text), Form(raw.startswith(BOM), crlf)


def encode(text: str, form: Form) -> bytes:
    if form.crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return (BOM if form.bom else b"") + text.encode("utf-8")
