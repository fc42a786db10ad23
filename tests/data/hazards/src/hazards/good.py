from __future__ import annotations


def add(a: int, b: int) -> int:
    return a + b
