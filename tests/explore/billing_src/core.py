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
