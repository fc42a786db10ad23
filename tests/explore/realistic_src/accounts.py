"""Thirteen kinds of function a real project has: what the model's calls must turn into cases.

Decimal arithmetic, dates, an Enum, bytes, a list of pydantic models with Decimal fields, a
stateful wallet (methods called in sequence), a clock reader, a random pick, a project
exception, a frozen dataclass with Decimal and Enum fields, an async function, a generator,
and text parsing.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

from pydantic import BaseModel


class Currency(Enum):
    EUR = "EUR"
    USD = "USD"


class BillingError(Exception):
    """The project's own error."""


class InsufficientFunds(BillingError):
    pass


class Line(BaseModel):
    sku: str
    price: Decimal
    qty: int = 1


@dataclass(frozen=True)
class Charge:
    amount: Decimal
    currency: Currency
    fee: Decimal = Decimal("0")


def with_vat(amount: Decimal, rate: Decimal = Decimal("0.2")) -> Decimal:
    if amount < 0:
        raise ValueError("negative amount")
    return (amount * (1 + rate)).quantize(Decimal("0.01"))


def due_date(issued: dt.date, days: int = 30) -> dt.date:
    if days < 0:
        raise ValueError("days must not be negative")
    return issued + dt.timedelta(days=days)


def symbol(currency: Currency) -> str:
    if currency is Currency.EUR:
        return "€"
    return "$"


def checksum(data: bytes) -> int:
    if not data:
        return 0
    return sum(data) % 256


def order_total(lines: list[Line], discount: Decimal = Decimal("0")) -> Decimal:
    if not lines:
        raise ValueError("an order needs at least one line")
    total = sum((line.price * line.qty for line in lines), Decimal("0"))
    return (total * (1 - discount)).quantize(Decimal("0.01"))


class Wallet:
    def __init__(self, owner: str, balance: Decimal = Decimal("0")) -> None:
        self.owner = owner
        self.balance = balance

    def deposit(self, amount: Decimal) -> Decimal:
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self.balance += amount
        return self.balance

    def withdraw(self, amount: Decimal) -> Decimal:
        if amount > self.balance:
            raise InsufficientFunds(f"balance {self.balance} < {amount}")
        self.balance -= amount
        return self.balance


def is_overdue(due: dt.date) -> bool:
    return dt.date.today() > due


def pick_reviewer(names: list[str]) -> str:
    if not names:
        raise BillingError("nobody to review")
    return random.choice(names)


def require_positive(amount: Decimal) -> Decimal:
    if amount <= 0:
        raise BillingError(f"amount must be positive, got {amount}")
    return amount


def charge_total(charge: Charge) -> Decimal:
    if charge.currency is Currency.USD:
        return (charge.amount * Decimal("0.9") + charge.fee).quantize(Decimal("0.01"))
    return charge.amount + charge.fee


async def fetch_rate(currency: Currency) -> Decimal:
    await asyncio.sleep(0)
    if currency is Currency.EUR:
        return Decimal("1")
    return Decimal("0.9")


def instalments(total: Decimal, parts: int) -> Iterator[Decimal]:
    if parts < 1:
        raise ValueError("parts must be at least 1")
    share = (total / parts).quantize(Decimal("0.01"))
    for _ in range(parts - 1):
        yield share
    yield total - share * (parts - 1)


def parse_amount(text: str) -> Decimal:
    cleaned = text.strip().replace(",", "")
    if not cleaned:
        raise ValueError("empty amount")
    if cleaned.startswith("(") and cleaned.endswith(")"):
        return -Decimal(cleaned[1:-1])
    return Decimal(cleaned)
