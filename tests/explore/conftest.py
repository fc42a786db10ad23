"""Fixtures shared with the other LLM-path tests live in tests/shopkit.py."""

from shopkit import Script, shop, shop_config, worker

__all__ = ["Script", "shop", "shop_config", "worker"]
