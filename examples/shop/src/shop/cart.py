"""A cart with methods, and grouping helpers over collections."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Line:
    sku: str
    qty: int
    unit_cents: int


@dataclass
class Cart:
    currency: str = "EUR"
    lines: list[Line] = field(default_factory=list)

    def add(self, sku: str, qty: int, unit_cents: int) -> int:
        if qty <= 0:
            raise ValueError("qty must be positive")
        self.lines.append(Line(sku, qty, unit_cents))
        return len(self.lines)

    def total_cents(self) -> int:
        return sum(line.qty * line.unit_cents for line in self.lines)


def group_by_sku(lines: list[dict]) -> dict[str, int]:
    totals: dict[str, int] = defaultdict(int)
    for line in lines:
        totals[line["sku"]] += line["qty"]
    return dict(sorted(totals.items()))


def top_skus(counts: dict[str, int], n: int = 2) -> list[str]:
    return [sku for sku, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]
