"""Text helpers: slugs, parsing quantities, formatting."""

from __future__ import annotations

import re
import unicodedata

_QTY = re.compile(r"^\s*(\d+)\s*x\s*(.+?)\s*$", re.IGNORECASE)


def slugify(title: str) -> str:
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-").lower()
    return text or "item"


def parse_line(line: str) -> tuple[int, str]:
    """'3 x Green tea' -> (3, 'Green tea'); a line without a count means one."""
    m = _QTY.match(line)
    if m:
        return int(m.group(1)), m.group(2)
    if not line.strip():
        raise ValueError("empty line")
    return 1, line.strip()


def initials(name: str) -> str:
    return "".join(part[0].upper() for part in name.split() if part)
