"""One pull request that makes every kind of spec edit a review reports (#19).

``make_pull_request(root)`` copies examples/shop into ``root`` as a real git repository: a base
commit on ``main``, then a ``feature`` branch whose one commit edits the specs (and one
function) in each way the review of spec changes tells apart. Commit dates and identities are
pinned, so the commits' SHAs are the same on every run (the example comment in
docs/github-action.md is made from this pull request by tools/example_comment.py).
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

from gitkit import git

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "shop"
META = """\
codemode:
  version: 1
  functions:
    shop.pricing.split_bill: {mutants: 20, mutation_score: 0.9}

"""
LEGACY = """\
shop.customers.points_for:
  dataset:
    - case: {id: gold_doubles, inputs: [1000, gold], expected: 20}
"""
CUSTOMERS = """\
shop.customers.loyalty_tier:
  dataset:
    - case: {id: below_1000, input: 999, expected: bronze}
    - case: {id: below_5000, input: 4999, expected: gold}
"""
MONEY = """\
shop.pricing.with_vat:
  dataset:
    - case: {id: custom_rate, inputs: [50.0, 0.07], expected: 53.5}
"""

# What the pull request does to specs/pricing.yml, edit by edit: (old text, new text, why).
PRICING_EDITS = (
    # loosened: `expected` replaced by `type:`
    (
        "{id: basic, inputs: [100.0, 0.1], expected: 90.0}",
        "{id: basic, inputs: [100.0, 0.1], type: float}",
    ),
    # moved: the same case under a new id
    ("{id: zero_rate,", "{id: no_discount,"),
    # loosened twice: `raises: any`, and the `match` dropped
    ('raises: ValueError, match: "negative"}', "raises: any}"),
    # moved to another file (specs/money.yml, added whole)
    ("    - case: {id: custom_rate, inputs: [50.0, 0.07], expected: 53.5}\n", ""),
    # contradicted: the expectation edited, to_cents not, and the code says 1200
    ('{id: whole, input: "12", expected: 1200}', '{id: whole, input: "12", expected: 1201}'),
    # removed while it still passes: the spec got weaker
    ("    - case: {id: even, inputs: [900, 3], expected: [300, 300, 300]}\n", ""),
    # edited together with split_bill's code: fine
    ("expected: [334, 334, 333]}", "expected: [333, 334, 334]}"),
    # removed while it fails at head: the removal hides the behaviour change
    ("    - case: {id: remainder_two, inputs: [1002, 4], expected: [251, 251, 250, 250]}\n", ""),
    # the recorded mutation score drops
    ("mutation_score: 0.9}", "mutation_score: 0.6}"),
)


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def make_base(root: Path) -> None:
    """examples/shop with its deliberate drift fixed, a recorded mutation score, a case that the
    pull request's code change breaks, and a spec file the pull request deletes."""
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / ".gitignore").write_text("__pycache__/\ncodemode-report.json\n")
    pricing = root / "specs" / "pricing.yml"
    replace_in(
        pricing,
        '{id: rounding_half_up, input: "12.345", expected: 1234}',
        '{id: rounding_half_up, input: "12.345", expected: 1235}',
    )
    replace_in(
        pricing,
        "    - case: {id: no_people,",
        "    - case: {id: remainder_two, inputs: [1002, 4], expected: [251, 251, 250, 250]}\n"
        "    - case: {id: no_people,",
    )
    pricing.write_text(META + pricing.read_text(encoding="utf-8"), encoding="utf-8")
    (root / "specs" / "legacy.yml").write_text(LEGACY)


def make_pull_request(root: Path) -> tuple[str, str]:
    """The repository at ``root`` (created): the (base, head) SHAs of the pull request."""
    make_base(root)
    base = commit_base(root)
    edit_specs(root)
    return base, commit(root, "Review every kind of spec edit")


def commit_base(root: Path) -> str:
    """``root`` as a repository whose ``main`` holds it; a ``feature`` branch checked out."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-qb", "feature")
    return base


def edit_specs(root: Path) -> None:
    """Every kind of spec edit, and split_bill's change that one of them goes with."""
    for old, new in PRICING_EDITS:
        replace_in(root / "specs" / "pricing.yml", old, new)
    # split_bill's extra cents now go to the last people (its spec is edited with it)
    replace_in(
        root / "src" / "shop" / "pricing.py",
        "return [share + (1 if i < extra else 0) for i in range(people)]",
        "return [share + (1 if i >= people - extra else 0) for i in range(people)]",
    )
    (root / "specs" / "money.yml").write_text(MONEY)
    (root / "specs" / "customers.yml").write_text(CUSTOMERS)
    (root / "specs" / "legacy.yml").unlink()


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD").strip()


def review_report(root: Path) -> dict[str, Any]:
    """``codemode check --base main --format json`` of the pull request, as data."""
    from codemode.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check", "--root", str(root), "--base", "main", "--format", "json"])
    assert code == 1, out.getvalue()  # two drifted cases
    data: dict[str, Any] = json.loads(out.getvalue())
    return data
