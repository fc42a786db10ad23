"""Text helpers: slugs, initials, wrapping, e-mail extraction."""

from __future__ import annotations

import re
import unicodedata


def slugify(title: str) -> str:
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def initials(name: str) -> str:
    return "".join(part[0].upper() for part in name.split() if part)


def shout(text: str) -> str:
    print("shouting", text)  # a print must not reach the protocol
    return text.upper() + "!"


def emails(text: str) -> list[str]:
    return re.findall(r"[\w.+-]+@[\w-]+\.[\w.]+", text)


def wrap(text: str, width: int) -> list[str]:
    if width <= 0:
        raise ValueError("width must be positive")
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    return lines


def greeting(name: str, *, polite: bool = False) -> str:
    return f"Good day, {name}." if polite else f"hi {name}"


def title_case(text: str) -> str:
    small = {"and", "the", "of", "a"}
    words = text.split()
    return " ".join(w if i and w in small else w[:1].upper() + w[1:] for i, w in enumerate(words))


def word_count(text: str) -> int:
    return len(text.split())
