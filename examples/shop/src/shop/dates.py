"""Dates: delivery estimates over business days."""

from __future__ import annotations

import datetime as dt


def add_business_days(start: dt.date, days: int) -> dt.date:
    current = start
    step = 1 if days >= 0 else -1
    remaining = abs(days)
    while remaining:
        current += dt.timedelta(days=step)
        if current.weekday() < 5:
            remaining -= 1
    return current


def quarter(day: dt.date) -> str:
    return f"{day.year}-Q{(day.month - 1) // 3 + 1}"
