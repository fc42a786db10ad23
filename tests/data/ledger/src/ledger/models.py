"""Pydantic models (needs pydantic in the project's interpreter)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Customer(BaseModel):
    name: str
    vip: bool = False
    tags: list[str] = Field(default_factory=list)


def discount_rate(customer: Customer) -> float:
    if not isinstance(customer, Customer):
        raise TypeError("expected a Customer")
    return 0.15 if customer.vip else 0.0


def promote(customer: Customer) -> Customer:
    return customer.model_copy(update={"vip": True, "tags": [*customer.tags, "promoted"]})
