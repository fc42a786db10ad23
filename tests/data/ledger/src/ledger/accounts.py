"""Accounts kept in a real sqlite database, and a small in-memory Wallet class."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

LOG = Path("fixture_log.txt")  # relative to the project root (the worker's cwd)


def _log(event: str) -> None:
    with LOG.open("a", encoding="utf-8") as f:
        f.write(event + "\n")


def open_db() -> Iterator[sqlite3.Connection]:
    """Fixture: a database with three accounts; the teardown closes it and says so."""
    _log("db setup")
    conn = sqlite3.connect(":memory:")
    conn.execute("create table account (name text primary key, cents integer not null)")
    conn.executemany(
        "insert into account values (?, ?)", [("alice", 12000), ("bob", 0), ("carol", 350)]
    )
    yield conn
    conn.close()
    _log("db teardown")


def balance(name: str, *, db: sqlite3.Connection) -> int:
    row = db.execute("select cents from account where name = ?", (name,)).fetchone()
    if row is None:
        raise KeyError(name)
    return int(row[0])


def transfer(src: str, dst: str, cents: int, *, db: sqlite3.Connection) -> dict[str, int]:
    if cents <= 0:
        raise ValueError("transfer amount must be positive")
    if balance(src, db=db) < cents:
        raise ArithmeticError(f"insufficient funds in {src}")
    db.execute("update account set cents = cents - ? where name = ?", (cents, src))
    db.execute("update account set cents = cents + ? where name = ?", (cents, dst))
    return {src: balance(src, db=db), dst: balance(dst, db=db)}


def overdrawn(*, db: sqlite3.Connection) -> list[str]:
    return [r[0] for r in db.execute("select name from account where cents <= 0 order by name")]


@dataclass
class Entry:
    memo: str
    cents: int


class Wallet:
    """Used through a class fixture (`cls:`), and by `Wallet.method` ids."""

    def __init__(self, owner: str, cents: int = 0, *, currency: str = "EUR") -> None:
        self.owner = owner
        self.cents = cents
        self.currency = currency
        self.entries: list[Entry] = []

    def deposit(self, cents: int, memo: str = "") -> int:
        if cents <= 0:
            raise ValueError("deposit must be positive")
        self.cents += cents
        self.entries.append(Entry(memo, cents))
        return self.cents

    def statement(self) -> list[Entry]:
        return list(self.entries)

    def label(self) -> str:
        return f"{self.owner} ({self.currency})"

    def close(self) -> None:
        _log(f"wallet {self.owner} closed")

    @staticmethod
    def fee(cents: int) -> int:
        return max(25, cents // 100)

    @classmethod
    def empty(cls, owner: str) -> str:
        return cls(owner).label()


class Tally:
    """Counts its calls, and logs each setup: proves how often a fixture's setup ran."""

    def __init__(self, label: str = "") -> None:
        _log(f"tally init {label}".strip())
        self.calls = 0

    def bump(self) -> int:
        self.calls += 1
        return self.calls

    def bump_again(self) -> int:
        return self.bump()


def new_tally(label: str = "") -> Iterator[Tally]:
    tally = Tally(label)
    yield tally
    _log(f"tally teardown {label}".strip())


def tally_bump(*, tally: Tally) -> int:
    return tally.bump()


def tally_peek(*, tally: Tally) -> int:
    return tally.bump()


def close_wallet(wallet: Wallet) -> None:
    _log(f"closed by function {wallet.owner}")
