"""Orders built from YAML data by serializers: a dataclass, and (models.py) pydantic models."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Line:
    sku: str
    qty: int
    unit_cents: int


@dataclass
class Address:
    city: str
    country: str = "FR"


@dataclass
class Order:
    customer: str
    lines: list[dict[str, Any]] = field(default_factory=list)


def line_total(line: Line) -> int:
    if not isinstance(line, Line):
        raise TypeError(f"expected a Line, got {type(line).__name__}")
    return line.qty * line.unit_cents


def order_total(order: Order) -> int:
    return sum(int(x["qty"]) * int(x["unit_cents"]) for x in order.lines)


def shipping(*, order: Order, address: Address) -> str:
    n = sum(int(x["qty"]) for x in order.lines)
    return f"{n} items for {order.customer} to {address.city}, {address.country}"


def from_yaml(data: dict[str, Any]) -> tuple[Line, int]:
    """A serializer function (vowel's serial_fn): receives {'input': ...} or {'inputs': ...}."""
    raw = data.get("inputs", data.get("input"))
    line, discount = raw if isinstance(raw, list) else (raw, 0)
    return Line(**line), int(discount)


def discounted(line: Line, percent: int) -> int:
    return line_total(line) * (100 - percent) // 100
