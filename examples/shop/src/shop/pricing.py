"""Money: prices, discounts, tax, splitting a bill."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

VAT_RATE = 0.2


def apply_discount(price: float, rate: float) -> float:
    """Price after a fractional discount; rates outside [0, 1] are rejected."""
    if price < 0:
        raise ValueError("negative price")
    if not 0 <= rate <= 1:
        raise ValueError(f"rate must be within [0, 1], got {rate}")
    return round(price * (1 - rate), 2)


def with_vat(net: float, rate: float = VAT_RATE) -> float:
    return round(net * (1 + rate), 2)


def to_cents(amount: str) -> int:
    """'12.345' -> 1235 (half up, as accountants round)."""
    d = Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return int(d * 100)


def split_bill(total_cents: int, people: int) -> list[int]:
    """Split a bill into near-equal shares that add up to the total; the first people pay the extra cents."""
    if people <= 0:
        raise ValueError("people must be positive")
    share, extra = divmod(total_cents, people)
    return [share + (1 if i < extra else 0) for i in range(people)]
