"""Customers: loyalty tiers, points, e-mail checks, display names."""

from __future__ import annotations

import re

_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$")


def loyalty_tier(points: int) -> str:
    """bronze below 1000 points, silver below 5000, gold from 5000."""
    if points < 0:
        raise ValueError("points cannot be negative")
    if points < 1000:
        return "bronze"
    if points < 5000:
        return "silver"
    return "gold"


def points_for(order_cents: int, tier: str = "bronze") -> int:
    """One point per euro, times 1.5 for silver and 2 for gold."""
    factor = {"bronze": 1.0, "silver": 1.5, "gold": 2.0}.get(tier)
    if factor is None:
        raise KeyError(tier)
    return int(order_cents // 100 * factor)


def is_valid_email(address: str) -> bool:
    return bool(_EMAIL.match(address.strip()))


def display_name(first: str, last: str, max_len: int = 20) -> str:
    """'Ada Lovelace', shortened to 'Ada L.' when longer than ``max_len``."""
    full = f"{first.strip()} {last.strip()}".strip()
    if len(full) <= max_len:
        return full
    short = f"{first.strip()} {last.strip()[:1]}.".strip()
    return short if len(short) <= max_len else short[: max_len - 1] + "…"


def mask_email(address: str) -> str:
    """'ada@example.com' -> 'a**@example.com'."""
    user, sep, domain = address.partition("@")
    if not sep or not user:
        raise ValueError("not an e-mail address")
    return user[0] + "*" * (len(user) - 1) + "@" + domain


def churn_risk(days_since_order: int, orders: int) -> str:
    """high when a one-time buyer is silent for 90+ days, medium after 180 days, else low."""
    if orders <= 1 and days_since_order >= 90:
        return "high"
    if days_since_order >= 180:
        return "medium"
    return "low"
