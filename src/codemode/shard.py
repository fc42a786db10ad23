"""``--shard K/N``: a stable split of functions across the jobs of a CI matrix."""

from __future__ import annotations

import re
import zlib

from codemode.errors import FatalError


def in_shard(function_id: str, shard: tuple[int, int] | None) -> bool:
    """True when ``function_id`` belongs to share K of N (crc32, not hash(): that is salted)."""
    if shard is None:
        return True
    k, n = shard
    return zlib.crc32(function_id.encode()) % n == k - 1


def parse_shard(value: str | None) -> tuple[int, int] | None:
    if not value:
        return None
    m = re.fullmatch(r"(\d+)/(\d+)", value.strip())
    if not m or not (1 <= int(m.group(1)) <= int(m.group(2))):
        raise FatalError(f"--shard {value!r}: write K/N with 1 <= K <= N, e.g. --shard 2/4")
    return int(m.group(1)), int(m.group(2))
