"""Inventory: reorder points, stock value, ABC classes, batch codes."""

from __future__ import annotations


def reorder_point(daily_demand: float, lead_days: int, safety: float = 0.2) -> int:
    """Units on hand at which to reorder: demand over the lead time plus a safety share."""
    if daily_demand < 0 or lead_days < 0:
        raise ValueError("demand and lead time must not be negative")
    return round(daily_demand * lead_days * (1 + safety))


def needs_reorder(on_hand: int, point: int) -> bool:
    return on_hand <= point


def stock_value(items: dict[str, int], prices: dict[str, int]) -> int:
    """Total value in cents of the stock; an item without a price counts as zero."""
    return sum(qty * prices.get(sku, 0) for sku, qty in items.items() if qty > 0)


def abc_class(share: float) -> str:
    """ABC analysis: A for the top 80% of value, B for the next 15%, C for the rest."""
    if share < 0 or share > 1:
        raise ValueError("share must be within [0, 1]")
    if share <= 0.8:
        return "A"
    if share <= 0.95:
        return "B"
    return "C"


def batch_code(year: int, week: int, line: int = 1) -> str:
    """'24W07-L1': year, ISO week and production line."""
    if not 1 <= week <= 53:
        raise ValueError("week must be 1..53")
    if line < 1:
        raise ValueError("line must be positive")
    return f"{year % 100:02d}W{week:02d}-L{line}"


def parse_batch_code(code: str) -> tuple[int, int, int]:
    """'24W07-L1' -> (2024, 7, 1)."""
    head, _, tail = code.partition("-L")
    if len(head) != 5 or head[2] != "W" or not tail.isdigit():
        raise ValueError(f"not a batch code: {code!r}")
    return 2000 + int(head[:2]), int(head[3:]), int(tail)


def turnover(sold_units: int, average_stock: float) -> float:
    """Stock turns in the period, to two decimals."""
    if average_stock <= 0:
        raise ZeroDivisionError("average stock must be positive")
    return round(sold_units / average_stock, 2)


def restock_plan(levels: dict[str, int], target: int = 10) -> dict[str, int]:
    """Units to order per SKU to bring each below-target level up to ``target``."""
    return {sku: target - qty for sku, qty in sorted(levels.items()) if qty < target}
