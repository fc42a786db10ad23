"""A small billing module with rich types: what exploration must pass across the sandbox."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

from pydantic import BaseModel


class Status(Enum):
    OPEN = "open"
    PAID = "paid"


class BillingError(Exception):
    pass


class InsufficientFunds(BillingError):
    pass


@dataclass(frozen=True)
class Item:
    sku: str
    price: Decimal
    qty: int = 1


class Customer(BaseModel):
    name: str
    vip: bool = False


def with_vat(amount: Decimal, rate: Decimal = Decimal("0.2")) -> Decimal:
    if amount < 0:
        raise ValueError("negative amount")
    return (amount * (1 + rate)).quantize(Decimal("0.01"))


def due_date(issued: dt.date, days: int = 30) -> dt.date:
    if days < 0:
        raise ValueError("days must not be negative")
    return issued + dt.timedelta(days=days)


def line_total(item: Item) -> Decimal:
    if item.qty <= 0:
        raise ValueError("quantity must be positive")
    return item.price * item.qty


def status_label(status: Status) -> str:
    if status is Status.PAID:
        return "paid in full"
    return "awaiting payment"


def greeting(customer: Customer) -> str:
    if customer.vip:
        return f"Dear {customer.name}"
    return f"Hello {customer.name}"


def split(amount: Decimal, parts: int) -> tuple[Decimal, ...]:
    if parts < 1:
        raise ValueError("parts must be at least 1")
    share = (amount / parts).quantize(Decimal("0.01"))
    return tuple([share] * (parts - 1) + [amount - share * (parts - 1)])


class Ledger:
    def __init__(self, opening: Decimal = Decimal("0")) -> None:
        self.balance = opening

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


def invoice_total(items: list[Item], discount: Decimal = Decimal("0")) -> Decimal:
    if not items:
        raise ValueError("an invoice needs at least one item")
    total = sum((i.price * i.qty for i in items), Decimal("0"))
    return (total * (1 - discount)).quantize(Decimal("0.01"))


def overdue_days(due: dt.date, today: dt.date) -> int:
    if today <= due:
        return 0
    return (today - due).days


def parse_amount(text: str) -> Decimal:
    cleaned = text.strip().replace(",", "")
    if not cleaned:
        raise ValueError("empty amount")
    if cleaned.startswith("(") and cleaned.endswith(")"):
        return -Decimal(cleaned[1:-1])
    return Decimal(cleaned)


def next_status(status: Status) -> Status:
    if status is Status.OPEN:
        return Status.PAID
    raise ValueError(f"{status.value} is final")


def credit_limit(customer: Customer) -> Decimal:
    if customer.vip:
        return Decimal("5000")
    if customer.name.endswith("Ltd"):
        return Decimal("2000")
    return Decimal("500")


def period(start: dt.datetime, end: dt.datetime) -> dt.timedelta:
    if end < start:
        raise ValueError("end before start")
    return end - start


def checksum(data: bytes) -> int:
    if not data:
        return 0
    return sum(data) % 256


def bounds(values: tuple[int, ...]) -> tuple[int, int]:
    if not values:
        raise ValueError("no values")
    return min(values), max(values)
