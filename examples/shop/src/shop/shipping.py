"""Shipping: parcel sizes, rates, delivery windows and tracking codes."""

from __future__ import annotations

FREE_SHIPPING_CENTS = 5000
MAX_WEIGHT_G = 30000


def parcel_size(weight_g: int) -> str:
    """The parcel class for a weight in grams: S up to 1 kg, M up to 5 kg, L up to 30 kg."""
    if weight_g <= 0:
        raise ValueError("weight must be positive")
    if weight_g <= 1000:
        return "S"
    if weight_g <= 5000:
        return "M"
    if weight_g <= MAX_WEIGHT_G:
        return "L"
    raise ValueError(f"too heavy: {weight_g} g")


def shipping_cost(order_cents: int, weight_g: int, express: bool = False) -> int:
    """Shipping in cents: free above the threshold, doubled for express."""
    if order_cents >= FREE_SHIPPING_CENTS and not express:
        return 0
    base = {"S": 390, "M": 690, "L": 1290}[parcel_size(weight_g)]
    return base * 2 if express else base


def delivery_days(zone: int, express: bool = False) -> int:
    """Days to deliver to a zone (1 domestic .. 4 overseas)."""
    if not 1 <= zone <= 4:
        raise ValueError("zone must be 1..4")
    days = (1, 3, 5, 10)[zone - 1]
    if express:
        days = max(1, days // 2)
    return days


def tracking_checksum(code: str) -> int:
    """Mod-10 checksum of the digits of a tracking code (letters are ignored)."""
    digits = [int(c) for c in code if c.isdigit()]
    if not digits:
        raise ValueError("no digits")
    total = sum(d * (3 if i % 2 else 1) for i, d in enumerate(digits))
    return (10 - total % 10) % 10


def format_tracking(code: str) -> str:
    """Upper case, without spaces, grouped by four: 'ab12 34cd5' -> 'AB12-34CD-5'."""
    clean = "".join(code.split()).upper()
    return "-".join(clean[i : i + 4] for i in range(0, len(clean), 4))


def split_parcels(weights: list[int], limit: int = 5000) -> list[list[int]]:
    """Pack item weights into parcels of at most ``limit`` grams, in order (first fit)."""
    parcels: list[list[int]] = []
    for w in weights:
        if w > limit:
            raise ValueError(f"item of {w} g exceeds the parcel limit")
        for p in parcels:
            if sum(p) + w <= limit:
                p.append(w)
                break
        else:
            parcels.append([w])
    return parcels
