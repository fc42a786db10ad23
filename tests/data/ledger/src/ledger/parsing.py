"""Parsing small text formats: key=value configs, CSV rows, versions, tags."""

from __future__ import annotations

import re


def parse_kv(text: str) -> dict[str, str]:
    """'a=1; b = two' -> {'a': '1', 'b': 'two'}."""
    out: dict[str, str] = {}
    for part in text.split(";"):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"expected key=value, got {part.strip()!r}")
        out[key.strip()] = value.strip()
    return out


def parse_version(text: str) -> tuple[int, int, int]:
    m = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.(\d+))?", text.strip())
    if not m:
        raise ValueError(f"invalid version {text!r}")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def parse_row(line: str, sep: str = ",") -> tuple[str, ...]:
    return tuple(cell.strip() for cell in line.split(sep))


def tags(text: str) -> set[str]:
    return {t.lower() for t in re.findall(r"#(\w+)", text)}


def lookup(table: dict[str, int], key: str) -> int:
    return table[key]


def maybe_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def parse_bytes(text: str) -> bytes:
    return text.encode("utf-8")


def compile_rule(rule: str) -> re.Pattern[str]:
    return re.compile(rule)


def make_parser() -> object:
    """An object with no faithful form (its repr holds a memory address)."""

    class _Parser:
        __slots__ = ()

    return _Parser()
