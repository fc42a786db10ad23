"""What in a Markdown document would be live on GitHub: workflow commands, tags, links, mentions.

The document is rendered with cmarkgfm (GitHub's own fork of cmark, with its extensions: tables,
autolinks, raw HTML let through so that we see it), then walked: any tag we do not write
ourselves, any link or image, and any @-mention, URL or #123 / GH-123 reference in text outside code
(GitHub links those after Markdown) is reported.
"""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser

import pytest

# The tags render_markdown itself writes (headings, tables, lists, folds, code, emphasis).
OURS = {
    "p", "h2", "h3", "table", "thead", "tbody", "tr", "th", "td", "code", "pre", "details",
    "summary", "sub", "strong", "em", "ul", "li", "blockquote", "br", "hr",
}  # fmt: skip
MENTION = re.compile(r"(?<![\w`/])@[A-Za-z0-9]")
URL = re.compile(r"(?i)\b(?:[a-z][a-z0-9+.-]*://|www\.)")
ISSUE_REF = re.compile(r"(?<![\w&])#\d")
GH_REF = re.compile(r"(?i)(?<![\w&])gh-\d")  # GitHub links GH-123 like #123


def gfm_html(markdown: str) -> str:
    if os.environ.get("CI"):
        import cmarkgfm
    else:
        cmarkgfm = pytest.importorskip("cmarkgfm", reason="pip install -e '.[dev]' (cmarkgfm)")
    from cmarkgfm.cmark import Options

    html: str = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE
    )
    return html


class _Walker(HTMLParser):
    def __init__(self, allow: str | None = None) -> None:
        super().__init__(convert_charrefs=True)
        self.live: list[str] = []
        self.in_code = 0
        self.allow = allow

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        ours = tag == "a" and self.allow and [k for k, _ in attrs] == ["href"]
        if ours and not str(attrs[0][1]).startswith(self.allow or "\0"):
            ours = False
        if tag not in OURS and not ours:
            self.live.append(f"<{tag} {attrs}>")
        if tag in ("code", "pre"):
            self.in_code += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("code", "pre"):
            self.in_code -= 1

    def handle_data(self, data: str) -> None:
        if self.in_code:
            return
        for pattern in (MENTION, URL, ISSUE_REF, GH_REF):
            self.live.extend(f"{pattern.pattern}: {data!r}" for _ in pattern.finditer(data))


def live_parts(markdown: str, allow: str | None = None) -> list[str]:
    """Everything in ``markdown`` that GitHub (or the runner, for a log) would act on;
    ``allow``: the prefix of the links codemode writes itself (permalinks), not reported."""
    live = [
        f"workflow command: {line!r}"
        for line in markdown.splitlines()
        if line.lstrip().startswith("::") or "##[" in line
    ]
    walker = _Walker(allow)
    walker.feed(gfm_html(markdown))
    return live + walker.live
