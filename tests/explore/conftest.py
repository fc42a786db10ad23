"""Fixtures shared with the other LLM-path tests live in tests/shopkit.py."""

import pydantic_ai.models
import pytest

from shopkit import shop, shop_config, worker

__all__ = ["allow_loopback", "shop", "shop_config", "worker"]


@pytest.fixture
def allow_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests may reach the loopback servers; no real provider key is in the environment."""
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CODEMODE_BASE_URL_KEY"):
        monkeypatch.delenv(key, raising=False)
