"""Offline inputs from where behaviour lives, judged, and chosen by mutation (#12).

Each test writes a small real project in a temp dir, runs `codemode regen` on it (the real
worker, no mocks), and reads the spec it wrote.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from projectkit import cases as _cases
from projectkit import meta as _meta
from projectkit import project as _project
from projectkit import regen as _regen
from projectkit import spec as _spec

from codemode.cli.main import main
from codemode.config import load_config
from codemode.explore.offline.explorer import plan
from codemode.explore.target import load_target

PYENV = Path.home() / ".pyenv" / "versions"


SLUG = """
    import re

    def slug(text: str) -> str:
        return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
"""


def test_mutation_selection_keeps_a_case_that_kills_dropping_lower(tmp_path: Path) -> None:
    root = _project(tmp_path, {"src/pkg/text.py": SLUG})
    report = _regen(root, "pkg.text.slug")
    [func] = report["functions"]  # type: ignore[index]
    assert func["status"] == "ok" and func["mutation_score"] >= 0.8, func
    assert "mutants killed" in func["message"]
    spec = _spec(root, "pkg.text")
    meta = _meta(spec, "pkg.text.slug")
    assert meta["mutants"] >= 5 and meta["mutation_score"] == func["mutation_score"]
    assert "types" in meta["sources"]  # type: ignore[operator]
    # The behaviour change the issue names: `.lower()` dropped. The spec must catch it.
    path = root / "src" / "pkg" / "text.py"
    path.write_text(path.read_text().replace("text.lower()", "text"), encoding="utf-8")
    assert main(["check", "--root", str(root), str(root / "specs" / "pkg.text.yml")]) == 1


def test_no_case_records_a_wrong_type_accident(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "src/pkg/words.py": """
            def shout(text: str) -> str:
                return text.upper() + "!"

            def trim(value):
                return value.strip()

            def checked(text: str) -> str:
                if text.startswith("#"):
                    raise TypeError("comments are not words")
                return text.title()
            """
        },
    )
    _regen(root, "pkg.words.shout", "pkg.words.trim", "pkg.words.checked")
    spec = _spec(root, "pkg.words")
    for fid in ("pkg.words.shout", "pkg.words.trim"):
        cases = _cases(spec, fid)
        assert cases and not [c for c in cases if "raises" in c], cases
        assert all(isinstance(c["inputs"][0], str) for c in cases)  # type: ignore[index]
    # a deliberate TypeError of the project's own is behaviour: kept, with its message
    raised = [c for c in _cases(spec, "pkg.words.checked") if "raises" in c]
    assert raised and raised[0]["raises"] == "TypeError"
    assert raised[0]["match"] == "^comments are not words$"
    assert str(raised[0]["id"]).endswith("_raises")


def test_a_parameter_no_yaml_can_build_needs_a_fixture(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "src/pkg/store.py": """
            import sqlite3

            def count_rows(conn: sqlite3.Connection, table: str) -> int:
                return conn.execute(f"select count(*) from {table}").fetchone()[0]

            def fetch(db, key):
                return db.execute("select 1").fetchone()
            """
        },
    )
    report = _regen(root, "pkg.store.count_rows", "pkg.store.fetch")
    messages = {f["id"]: f for f in report["functions"]}  # type: ignore[attr-defined]
    assert messages["pkg.store.count_rows"]["status"] == "error"
    assert messages["pkg.store.count_rows"]["message"].startswith("needs a fixture: conn")
    assert messages["pkg.store.fetch"]["message"].startswith("needs a fixture: db")
    assert not (root / "specs" / "pkg.store.yml").exists()  # no cases at all


def test_a_type_alias_is_read_as_what_it_stands_for(tmp_path: Path) -> None:
    """``value: NumberOrString`` with the alias a string under TYPE_CHECKING (humanize)."""
    root = _project(
        tmp_path,
        {
            "src/pkg/num.py": """
            from __future__ import annotations
            from typing import TYPE_CHECKING

            if TYPE_CHECKING:
                from typing import TypeAlias

                NumberOrString: TypeAlias = "float | str"

            def doubled(value: NumberOrString) -> str:
                return str(float(value) * 2)
            """
        },
    )
    report = _regen(root, "pkg.num.doubled")
    assert report["functions"][0]["status"] == "ok"  # type: ignore[index]
    inputs = [c["inputs"][0] for c in _cases(_spec(root, "pkg.num"), "pkg.num.doubled")]  # type: ignore[index]
    assert {type(v) for v in inputs} >= {float, str}


def test_each_input_source_is_used_and_named(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "src/pkg/billing.py": '''
            import datetime as dt
            import re
            from datetime import date

            CODE = re.compile(r"^[A-Z]{2}#\\d+$")

            def days_overdue(due: dt.date, today: dt.date) -> int:
                """Days past due, never negative.

                >>> days_overdue(date(2024, 1, 31), date(2024, 2, 3))
                3
                """
                return max(0, (today - due).days)

            def valid_code(code: str) -> bool:
                return bool(CODE.match(code))

            def fee(amount: float, rate: float) -> float:
                if rate < 0:
                    raise ValueError("negative rate")
                return round(amount * rate, 2)
            ''',
            "src/pkg/app.py": """
            from pkg.billing import fee

            def checkout(total):
                return total + fee(total, 0.035)
            """,
            "tests/test_billing.py": """
            import pytest
            from pkg.billing import fee, valid_code

            @pytest.mark.parametrize("amount, rate", [(250.0, 0.2), (80.0, 0.125)])
            def test_fee(amount, rate):
                assert fee(amount, rate) > 0

            def test_code():
                assert valid_code("AB#12")
            """,
            # the package's re-export, and a table kept apart from the test
            "src/pkg/__init__.py": "from pkg.billing import fee\n",
            "tests/test_package.py": """
            import pytest
            import pkg

            TABLE = [(10.0, 0.5), (4.0, 0.25)]

            @pytest.mark.parametrize("amount, rate", TABLE)
            def test_table(amount, rate):
                assert pkg.fee(amount, rate) > 0
            """,
        },
    )
    config = load_config(root)
    fee_plan = plan(load_target(config, "pkg.billing.fee"), root=root).candidates
    calls = {(c.source, c.args) for c in fee_plan}
    assert ("tests", (250.0, 0.2)) in calls and ("tests", (80.0, 0.125)) in calls
    assert ("tests", (10.0, 0.5)) in calls and ("tests", (4.0, 0.25)) in calls
    assert ("callers", ()) in {(c.source, c.args) for c in fee_plan if c.exprs}  # fee(total, ...)
    code_plan = plan(load_target(config, "pkg.billing.valid_code"), root=root).candidates
    texts = {c.args[0] for c in code_plan if c.args}
    assert "AB#12" in texts  # from the tests
    assert any("#" in t and c.source == "constants" for c in code_plan for t in c.args)
    report = _regen(root, "pkg.billing.days_overdue", "pkg.billing.fee", "pkg.billing.valid_code")
    assert {f["status"] for f in report["functions"]} == {"ok"}  # type: ignore[attr-defined]
    spec = _spec(root, "pkg.billing")
    overdue = _cases(spec, "pkg.billing.days_overdue")
    example = [c for c in overdue if c["id"] == "docstring_example"]
    assert example and example[0]["expected"] == 3  # a non-literal docstring example
    assert "docstring" in _meta(spec, "pkg.billing.days_overdue")["sources"]  # type: ignore[operator]
    assert "tests" in _meta(spec, "pkg.billing.fee")["sources"]  # type: ignore[operator]
    raised = [c for c in _cases(spec, "pkg.billing.fee") if "raises" in c]
    assert raised and raised[0]["id"] == "negative_rate_raises"
    assert raised[0]["match"] == "^negative rate$"


def _python(minor: str) -> str | None:
    found = sorted(PYENV.glob(f"{minor}.*/bin/python"))
    return str(found[-1]) if found else None


def test_match_pins_only_the_projects_messages_so_specs_port_across_pythons(
    tmp_path: Path,
) -> None:
    new, old = _python("3.13"), _python("3.10")
    if new is None or old is None:
        pytest.skip(f"needs Python 3.10 and 3.13 under {PYENV}")
    root = _project(
        tmp_path,
        {
            "src/pkg/parse.py": """
            import re

            def first_number(text: str) -> int:
                found = re.search(r"-?\\d+", text)
                if found is None:
                    raise LookupError("no number in text")
                return int(found.group()) // (len(text) - len(found.group()))
            """
        },
    )
    report = _regen(root, "pkg.parse.first_number", python=new)
    assert report["functions"][0]["status"] == "ok"  # type: ignore[index]
    cases = _cases(_spec(root, "pkg.parse"), "pkg.parse.first_number")
    raised = {str(c["raises"]): c for c in cases if "raises" in c}
    assert raised["LookupError"]["match"] == "^no number in text$"
    assert "ZeroDivisionError" in raised and "match" not in raised["ZeroDivisionError"]
    spec = str(root / "specs" / "pkg.parse.yml")
    for python in (new, old):
        assert main(["check", "--root", str(root), "--python", python, spec]) == 0
