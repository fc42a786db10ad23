"""Stock kept in a sqlite database; the spec's fixture builds a real one."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator


def make_db() -> Iterator[sqlite3.Connection]:
    """Fixture: an in-memory database with a few products; closed at teardown."""
    conn = sqlite3.connect(":memory:")
    conn.execute("create table stock (sku text primary key, qty integer not null)")
    conn.executemany("insert into stock values (?, ?)", [("tea", 12), ("mug", 0), ("pot", 3)])
    yield conn
    conn.close()


def in_stock(sku: str, *, db: sqlite3.Connection) -> bool:
    row = db.execute("select qty from stock where sku = ?", (sku,)).fetchone()
    if row is None:
        raise KeyError(sku)
    return bool(row[0] > 0)


def low_stock(threshold: int, *, db: sqlite3.Connection) -> list[str]:
    rows = db.execute("select sku from stock where qty < ? order by sku", (threshold,))
    return [r[0] for r in rows]
