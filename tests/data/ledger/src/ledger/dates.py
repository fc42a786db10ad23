"""Business dates: next working day, periods, quarters."""

from __future__ import annotations

import datetime as dt


def next_business_day(day: dt.date) -> dt.date:
    day += dt.timedelta(days=1)
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day


def days_between(start: dt.date, end: dt.date) -> int:
    if end < start:
        raise ValueError(f"end {end} is before start {start}")
    return (end - start).days


def quarter(day: dt.date) -> str:
    return f"{day.year}-Q{(day.month - 1) // 3 + 1}"


def parse_timestamp(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def grace_period(days: int) -> dt.timedelta:
    return dt.timedelta(days=days)


def month_ends(year: int) -> list[dt.date]:
    out = []
    for m in range(1, 13):
        first_next = dt.date(year + (m == 12), m % 12 + 1, 1)
        out.append(first_next - dt.timedelta(days=1))
    return out
