"""Money: amounts in cents, currencies, splitting bills, exchange rates."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import NamedTuple


class Currency(enum.Enum):
    EUR = "EUR"
    USD = "USD"
    GBP = "GBP"


@dataclass(frozen=True)
class Money:
    cents: int
    currency: Currency


class Share(NamedTuple):
    person: str
    cents: int


def to_cents(text: str) -> int:
    """'12.345' -> 1235 (half up); raises ValueError on garbage."""
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"not an amount: {text!r}") from None
    return int((value * 100).quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def parse_money(text: str) -> Money:
    """'12.50 EUR' -> Money(1250, Currency.EUR)."""
    amount, _, code = text.strip().rpartition(" ")
    if not amount:
        raise ValueError(f"missing currency in {text!r}")
    try:
        currency = Currency(code.upper())
    except ValueError:
        raise KeyError(code) from None
    return Money(to_cents(amount), currency)


def split_bill(total_cents: int, people: list[str]) -> list[Share]:
    """Split fairly; the first people pay the odd cents."""
    if not people:
        raise ValueError("nobody to split the bill with")
    base, extra = divmod(total_cents, len(people))
    return [Share(p, base + (1 if i < extra else 0)) for i, p in enumerate(people)]


def convert(amount: float, rate: float) -> float:
    if rate <= 0:
        raise ValueError(f"rate must be positive, got {rate}")
    return amount * rate


def with_vat(net: float, rate: float = 0.2) -> float:
    return net * (1 + rate)


def average_price(prices: list[float]) -> float:
    """NaN for an empty list (the mean of nothing), like statistics would refuse."""
    if not prices:
        return float("nan")
    return sum(prices) / len(prices)


def is_refund(cents: int) -> bool:
    return cents < 0


def cents_or_flag(cents: int) -> int:
    """Returns 1 for positive amounts: an int, never True."""
    return 1 if cents > 0 else 0


def total(amounts: dict[str, int]) -> Decimal:
    return Decimal(sum(amounts.values())) / 100
