"""A scripted model that writes what a capable model writes, for the 14 functions (13 kinds)
of ``realistic_src/accounts.py``; served by the loopback OpenAI and Anthropic servers.

Round 1 tries typical inputs and makes honest mistakes (a dict where an object is wanted, a
string where a Decimal is, a name it forgot to import); round 2 aims at the lines the tool
said were not reached; then it chooses every call it was shown (up to 12), junk included, as
an eager model does. Methods are called in sequence on one instance; the random pick is
called with two names; the clock reader with today's date.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from loopback import Reply, Seen

SRC = Path(__file__).parent / "realistic_src" / "accounts.py"
MODULE = "billing.accounts"
NAMES = [
    "Currency",
    "BillingError",
    "InsufficientFunds",
    "Line",
    "Charge",
    "Wallet",
    "with_vat",
    "due_date",
    "symbol",
    "checksum",
    "order_total",
    "is_overdue",
    "pick_reviewer",
    "require_positive",
    "charge_total",
    "fetch_rate",
    "instalments",
    "parse_amount",
]


def _imports(code: str) -> str:
    """What a model writes first: the standard modules and the project names it uses."""
    used = [n for n in NAMES if re.search(rf"\b{n}\b", code)]
    return "import datetime\nfrom decimal import Decimal\nfrom billing.accounts import " + (
        ", ".join(used) + "\n"
    )


R1: dict[str, list[str]] = {
    "with_vat": [
        "for a in ['10.00', '0', '99.99']:\n    print(a, with_vat(Decimal(a)))\n"
        "print(with_vat(Decimal('100'), rate=Decimal('0.07')))",
        "with_vat('10')",  # a mistake: text, not a Decimal
    ],
    "due_date": [
        "d = due_date(datetime.date(2024, 1, 31))\nprint(d, d.weekday())\n"
        "print(due_date(datetime.date(2024, 2, 28), days=1))",
    ],
    "symbol": ["print(symbol(Currency.EUR))"],
    "checksum": ["for data in [b'abc', b'\\xff\\x01']:\n    print(checksum(data))"],
    "order_total": [
        "lines = [Line(sku='A', price=Decimal('2.50'), qty=2), Line(sku='B', price=Decimal('1.25'))]\n"
        "print(order_total(lines), order_total(lines, Decimal('0.1')))",
        "order_total([{'sku': 'A', 'price': '2.5'}])",  # a mistake: dicts, not Lines
    ],
    "Wallet.deposit": [
        "w = Wallet('ada', Decimal('10'))\nprint(w.deposit(Decimal('5')), w.deposit(Decimal('0.5')))",
    ],
    "Wallet.withdraw": [
        "w = Wallet('ada', Decimal('100'))\nw.deposit(Decimal('50'))\n"
        "print(w.withdraw(Decimal('30')))\nprint(w.withdraw(Decimal('70')), w.balance)",
    ],
    "is_overdue": [
        "print(is_overdue(datetime.date(2000, 1, 1)), is_overdue(datetime.date(2999, 1, 1)))\n"
        "print(is_overdue(datetime.date.today()))",
    ],
    "pick_reviewer": ["print(pick_reviewer(['ada', 'bob']), pick_reviewer(['cy']))"],
    "require_positive": [
        "print(require_positive(Decimal('5')))\nrequire_positve(Decimal('1'))",  # a typo
    ],
    "charge_total": [
        "print(charge_total(Charge(Decimal('10'), Currency.EUR)))\n"
        "print(charge_total(Charge(amount=Decimal('10'), currency=Currency.EUR, fee=Decimal('0.5'))))",
    ],
    "fetch_rate": ["print(fetch_rate(Currency.EUR))"],
    "instalments": [
        "parts = list(instalments(Decimal('10'), 3))\nprint(parts, sum(parts))\n"
        "print(list(instalments(Decimal('5'), 1)))",
    ],
    "parse_amount": [
        "for t in ['12.50', ' 1,234.56 ', '(3.20)']:\n    print(repr(t), parse_amount(t))",
    ],
}

R2: dict[str, list[str]] = {
    "with_vat": ["try:\n    with_vat(Decimal('-1'))\nexcept ValueError as e:\n    print(e)"],
    "due_date": [
        "try:\n    due_date(datetime.date(2024, 1, 1), -1)\nexcept ValueError as e:\n    print(e)"
    ],
    "symbol": ["print(symbol(Currency.USD))"],
    "checksum": ["print(checksum(b''))"],
    "order_total": ["try:\n    order_total([])\nexcept ValueError as e:\n    print(e)"],
    "Wallet.deposit": [
        "w = Wallet('bo')\ntry:\n    w.deposit(Decimal('0'))\nexcept ValueError as e:\n    print(e)"
    ],
    "Wallet.withdraw": [
        "w = Wallet('ada', Decimal('5'))\n"
        "try:\n    w.withdraw(Decimal('6'))\nexcept InsufficientFunds as e:\n    print('refused', e)"
    ],
    "is_overdue": ["print(is_overdue(datetime.date(1999, 12, 31)))"],
    "pick_reviewer": ["try:\n    pick_reviewer([])\nexcept BillingError as e:\n    print(e)"],
    "require_positive": [
        "try:\n    require_positive(Decimal('0'))\nexcept BillingError as e:\n    print(e)"
    ],
    "charge_total": [
        "print(charge_total(Charge(Decimal('20'), Currency.USD, Decimal('1.50'))))",
    ],
    "fetch_rate": ["print(fetch_rate(Currency.USD))"],
    "instalments": [
        "try:\n    list(instalments(Decimal('1'), 0))\nexcept ValueError as e:\n    print(e)"
    ],
    "parse_amount": [
        "for bad in ['', '  ']:\n    try:\n        parse_amount(bad)\n    except ValueError as e:\n        print(e)"
    ],
}

FUNCTIONS = [f"{MODULE}.{name}" for name in R1]


def project(tmp_path: Path) -> Path:
    """The billing project in a fresh git repository, its module under src/billing/."""
    root = tmp_path / "billing-project"
    pkg = root / "src" / "billing"
    pkg.mkdir(parents=True)
    (root / "specs").mkdir()
    (pkg / "__init__.py").write_text("")
    shutil.copy(SRC, pkg / "accounts.py")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "billing"\nversion = "0"\n[tool.codemode]\nsource_roots = ["src"]\n'
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _function(text: str) -> str:
    m = re.search(r"`billing\.accounts\.([\w.]+)`", text)
    return m.group(1) if m else ""


def answer(seen: Seen) -> tuple[str, dict[str, Any]]:
    """The tool call the model makes for what it has seen so far."""
    name = _function(seen.text)
    done = max((int(n) for n in re.findall(r"# round (\d)", seen.text)), default=0)
    if seen.can_run and name in R1 and done < 2:
        rounds = (R1, R2)
        if done == 1 and "Every line of the function has run." in seen.text:
            return _choose(seen)  # every line ran already: a model answers
        tagged = [f"# round {done + 1}\n{_imports(code)}{code}" for code in rounds[done][name]]
        return "run_snippets", {"snippets": tagged}
    return _choose(seen)


def _choose(seen: Seen) -> tuple[str, dict[str, Any]]:
    numbers = list(dict.fromkeys(int(n) for n in re.findall(r"#(\d+) ", seen.text)))[:12]
    cases = [{"call": n, "id": f"call {n}", "reason": "shows a behaviour"} for n in numbers]
    return seen.output_tool, {"cases": cases}


def script(seen: Seen) -> Reply:
    return 200, answer(seen)
