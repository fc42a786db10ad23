"""Fixtures shared with the other LLM-path tests live in tests/shopkit.py."""

from shopkit import shop, shop_config, worker

__all__ = ["shop", "shop_config", "worker"]
