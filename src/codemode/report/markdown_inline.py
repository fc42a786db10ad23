"""The PR comment's inline pieces: code spans, fences, inert text, links, values and SHAs.

Everything from report data is hostile (a fork's code wrote its outputs; in a ``workflow_run``
job, its report): it is shown in code spans and fences that nothing can close, or as text in
which no @-mention, link, image, HTML tag or issue reference is live (``escape_text``).
Values are shown one way everywhere in the comment: as the Python literal that builds them
(``report.values``), never as JSON in one place and as Python in another (#35).
"""

from __future__ import annotations

import re

from codemode.logsafe import inert
from codemode.report.links import Links

# A full commit SHA in a table cell or a line of text pushes the table off screen; 7 hex digits
# name a commit to a reader (GitHub shows 7), 12 keep a pasted command unambiguous (#35).
_SHA = re.compile(r"\b([0-9a-f]{12})(?:[0-9a-f]{28}|[0-9a-f]{52})\b")
SHA_TEXT = 7


def short_shas(text: str, keep: int = SHA_TEXT) -> str:
    """``text`` with every full commit SHA cut to ``keep`` hex digits."""
    return _SHA.sub(lambda m: m.group(1)[:keep], text)


def clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def one_line(text: str) -> str:
    # control characters shown as their escapes, as the terminal shows them (#33)
    return inert(" ".join(text.split()))


def loc(file: str | None, line: int | None) -> str:
    return f"{file}:{line}" if file and line else (file or "")


def span(text: str, *, cell: bool = False) -> str:
    """A code span that survives any content: delimiters longer than any backtick run inside.

    In a table cell a pipe must be escaped even inside a code span (GFM splits cells first).
    """
    text = one_line(text)
    if cell:
        text = text.replace("|", "\\|")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    tick = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{tick}{pad}{text}{pad}{tick}" if text else ""


def where(file: str | None, line: int | None, links: Links | None, *, cell: bool = False) -> str:
    """``file:line`` as a code span, linked to that line of the head commit when ``links``
    says where that is (the link is codemode's own; the path is percent-encoded in it)."""
    text = span(loc(file, line), cell=cell)
    url = links.blob(file, line) if links and text else None
    return f"[{text}]({url})" if url else text


def message(text: str, *, cell: bool = False) -> str:
    """A message of codemode's own words in which `backticked` parts are commands or names:
    those become code spans, the rest inert text (``escape_text`` would show the backticks)."""
    parts = one_line(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code, only text
        return escape_text(text)
    # Text parts keep their edge spaces ("run `x` to"); only code parts become spans.
    return "".join(
        (span(part, cell=cell) if part else "") if i % 2 else _inert(part)
        for i, part in enumerate(parts)
    )


def html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# GitHub links these in any text outside code, after Markdown: @mentions (and e-mail
# addresses), bare URLs, www. hosts and #123 and GH-123 issue references (#21). A zero-width
# space after the trigger keeps them readable and dead (the way dependabot writes @-mentions
# it quotes).
_ZWSP = "\u200b"
_LIVE = re.compile(r"@|://|(?i:www)\.|#(?=\d)|(?<!\w)(?i:gh)-(?=\d)")
# What Markdown would read as links, images, emphasis, code or cells; HTML is entities.
_MD_ESCAPES = {c: "\\" + c for c in "\\`*_[]|~"}
_MD_ESCAPES.update({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def escape_text(text: str) -> str:
    """One line of report text as inert Markdown: no mention, link, image, HTML or code."""
    return _inert(one_line(text))


def _inert(text: str) -> str:
    text = "".join(_MD_ESCAPES.get(ch, ch) for ch in text)
    return _LIVE.sub(lambda m: m.group(0)[:1] + _ZWSP + m.group(0)[1:], text)


def plain(text: str) -> str:
    """``escape_text`` for text inside an HTML block, where backslashes would show."""
    return _LIVE.sub(lambda m: m.group(0)[:1] + _ZWSP + m.group(0)[1:], html(one_line(text)))


def count(value: object) -> str:
    # The report may come from a fork's artifact: a number is printed as one, anything else as text.
    return f"{value:,}" if isinstance(value, int) else escape_text(str(value))


def fenced(text: str, lang: str) -> str:
    """A fence longer than any backtick run in ``text``, so values cannot close it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 case``, ``104 cases``."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"
