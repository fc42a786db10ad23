"""Budget caps for one run: model requests, estimated cost, seconds. Shared by all functions."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

# pydantic-ai's provider names where genai-prices spells them differently.
_PRICE_PROVIDERS = {"openai-chat": "openai", "openai-responses": "openai", "google-cloud": "google"}


def price_for(model: str, base_url: str | None = None) -> Callable[[int, int], float] | None:
    """USD for (input, output) tokens of ``model`` from genai-prices; None when it has no price.

    Behind a ``base_url`` the provider is whoever serves it: the model is looked up by name only.
    """
    provider, sep, name = model.partition(":")
    if not sep:
        provider, name = "", model
    try:
        from genai_prices import Usage, calc_price
    except ImportError:  # pragma: no cover - genai-prices comes with pydantic-ai
        return None
    provider_id = None if base_url else _PRICE_PROVIDERS.get(provider, provider) or None

    def usd(input_tokens: int, output_tokens: int) -> float:
        usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
        return float(calc_price(usage, name, provider_id=provider_id).total_price)

    try:
        usd(1000, 1000)
    except LookupError:
        return None
    return usd


class BudgetExceeded(Exception):
    pass


@dataclass
class ModelBudget:
    model: str
    max_requests: int | None = None
    max_cost: float | None = None
    max_seconds: float | None = None
    price: Callable[[int, int], float] | None = None  # USD for (input, output) tokens
    started: float = field(default_factory=time.monotonic)
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    _reserved: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def usd(self) -> float | None:
        if self.price is None:
            return None
        return self.price(self.input_tokens, self.output_tokens)

    def reserve(self, n: int = 1) -> None:
        """Claim ``n`` requests before making them; raises when a cap would be passed."""
        with self._lock:
            if self.max_seconds is not None and time.monotonic() - self.started > self.max_seconds:
                raise BudgetExceeded(f"--max-seconds {self.max_seconds:g} reached")
            if (
                self.max_requests is not None
                and self.requests + self._reserved + n > self.max_requests
            ):
                raise BudgetExceeded(f"--max-model-requests {self.max_requests} reached")
            usd = self.usd
            if self.max_cost is not None and usd is not None and usd >= self.max_cost:
                raise BudgetExceeded(f"--max-cost {self.max_cost:g} USD reached (spent {usd:.4f})")
            self._reserved += n

    def settle(self, reserved: int, requests: int, input_tokens: int, output_tokens: int) -> None:
        with self._lock:
            self._reserved -= reserved
            self.requests += requests
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens

    def seconds_left(self) -> float | None:
        """What is left of ``--max-seconds``: each request's client timeout (None: no cap)."""
        if self.max_seconds is None:
            return None
        return max(0.0, self.max_seconds - (time.monotonic() - self.started))
