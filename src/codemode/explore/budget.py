"""Budget caps for one run: model requests, estimated cost, seconds. Shared by all functions."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

# USD per million (input, output) tokens, for the cost estimate; unknown models cost None.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4.1-nano": (0.1, 0.4),
    "gpt-4o": (2.5, 10.0),
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-5": (1.25, 10.0),
    "gpt-5-mini": (0.25, 2.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
}


def price_for(model: str) -> tuple[float, float] | None:
    name = model.split(":", 1)[-1]
    return PRICES.get(name)


class BudgetExceeded(Exception):
    pass


@dataclass
class Budget:
    model: str
    max_requests: int | None = None
    max_cost: float | None = None
    max_seconds: float | None = None
    started: float = field(default_factory=time.monotonic)
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    _reserved: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def usd(self) -> float | None:
        price = price_for(self.model)
        if price is None:
            return None
        return (self.input_tokens * price[0] + self.output_tokens * price[1]) / 1e6

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

    def remaining_requests(self) -> int | None:
        if self.max_requests is None:
            return None
        return max(0, self.max_requests - self.requests - self._reserved)
