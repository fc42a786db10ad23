"""Code that never returns, or takes the process down with it."""

from __future__ import annotations

import ctypes
import os
import sys


def spin(n: int) -> int:
    while True:
        n += 1


def bail(code: int) -> int:
    os._exit(code)


def segfault() -> int:
    ctypes.memmove(0, b"x", 1)  # a write through a null pointer
    return 0


def hog(gigabytes: int) -> int:
    table = [0] * (gigabytes << 27)  # 8 bytes per slot
    return len(table)


def chatter(lines: int) -> int:
    """Floods stdout from Python and from the file descriptor below it."""
    for i in range(lines):
        print("x" * 100, i)
    os.write(1, b"raw bytes on fd 1\n" * 1000)
    sys.stderr.write("e" * 100_000)
    return lines


def recurse(n: int) -> int:
    return recurse(n + 1) + 1


def token() -> str | None:
    return os.environ.get("GITHUB_TOKEN") or os.environ.get("OPENAI_API_KEY")


def secret_names() -> list[str]:
    return sorted(k for k in os.environ if "TOKEN" in k or "KEY" in k)
