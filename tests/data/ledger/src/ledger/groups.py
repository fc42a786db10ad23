"""Collections: grouping, counting, chunking, first match."""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any


def group_by(rows: list[dict[str, Any]], key: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        out.setdefault(str(row[key]), []).append(row)
    return out


def frequencies(words: list[str]) -> Counter[str]:
    return Counter(words)


def chunk(items: list[Any], size: int) -> list[tuple[Any, ...]]:
    if size < 1:
        raise ValueError("size must be at least 1")
    return [tuple(items[i : i + size]) for i in range(0, len(items), size)]


def unique_sorted(items: list[int]) -> frozenset[int]:
    return frozenset(items)


def first_over(values: list[float], limit: float) -> float | None:
    return next((v for v in values if v > limit), None)


def lru_order(keys: list[str]) -> OrderedDict[str, int]:
    return OrderedDict((k, i) for i, k in enumerate(keys))


def index_by_pair(pairs: list[list[int]]) -> dict[tuple[int, int], int]:
    return {(a, b): a * b for a, b in pairs}
