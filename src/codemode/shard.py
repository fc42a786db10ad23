"""``--shard K/N``: a stable split of functions across the jobs of a CI matrix."""

from __future__ import annotations

import zlib


def in_shard(function_id: str, shard: tuple[int, int] | None) -> bool:
    """True when ``function_id`` belongs to share K of N (crc32, not hash(): that is salted)."""
    if shard is None:
        return True
    k, n = shard
    return zlib.crc32(function_id.encode()) % n == k - 1
