"""A busy pull request, for the PR comment a reviewer must read in 10 seconds (#35).

``make_busy_pull_request(root)`` is tests/reviewkit.py's pull request (every kind of spec edit)
with three more things a real one brings, all in one real git repository:

- a behaviour change with 100+ witnesses: ``slugify`` keeps the title's case and refuses a title
  with nothing to slug, and six catalog functions that call it change with it (their inputs
  come from the tests' calls, padded, upper-cased, ... by the diff's variants);
- a refactor: ``initials`` rewritten, the same behaviour;
- a missing dependency: ``shop.feeds`` now imports ``feedkit``, which the job did not install,
  so each of its spec's 104 cases fails with one import error, among them one whose expectation
  the pull request edits (``31`` to ``32``) and one it adds: cases with no outcome to show.

``busy_report(root)`` is ``codemode check --base main --format json`` on it, run by the real
command in a subprocess, as data. tools/example_comment.py records its comment in
docs/github-action.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from reviewkit import commit, commit_base, edit_specs, make_base, replace_in

CHECK = (sys.executable, "-m", "codemode", "check", "--base", "main", "--format", "json")
MISSING = "feedkit"  # the dependency the pull request adds and the job does not install
# No f-strings: the impact analysis does not see a call inside one (yet).
CATALOG = '''\
"""Catalog pages: every path and name comes from a product's title."""

from shop.text import slugify


def product_url(title: str) -> str:
    return "/products/" + slugify(title)


def anchor(title: str) -> str:
    return "#" + slugify(title)


def sku(title: str, n: int = 1) -> str:
    if n < 1:
        raise ValueError("n must be positive")
    return "%s-%04d" % (slugify(title)[:12], n)


def image_name(title: str, ext: str = "png") -> str:
    return slugify(title) + "." + ext


def breadcrumb(category: str, title: str) -> str:
    return slugify(category) + "/" + slugify(title)


def same_product(a: str, b: str) -> bool:
    return slugify(a) == slugify(b)
'''
TITLES = (
    "Green tea", "Black coffee", "Oat milk", "Dark chocolate", "Olive oil", "Sea salt",
    "Rye bread", "Goat cheese", "Red wine", "Apple juice", "Maple syrup", "Brown rice",
    "Wild honey", "Soy sauce", "Fresh basil", "Fig jam", "Mint tea", "Pale ale", "!!!", "",
)  # fmt: skip
CATALOG_TESTS = f"""\
import pytest

from shop.catalog import anchor, breadcrumb, image_name, product_url, same_product, sku

TITLES = {list(TITLES)!r}


@pytest.mark.parametrize("title", TITLES)
def test_pages(title):
    assert product_url(title).startswith("/products/")
    assert anchor(title).startswith("#")
    assert sku(title, 3).endswith("-0003")
    assert image_name(title, "jpg").endswith(".jpg")
    assert breadcrumb("Drinks", title).startswith("drinks/")
    assert same_product(title, title.upper())
"""
FEEDS = '''\
"""Feed entries."""


def word_count(text: str) -> int:
    return len(text.split())


def entry_title(entry: dict) -> str:
    return str(entry.get("title", "")).strip() or "(untitled)"
'''
FEEDS_HEAD = f'''\
"""Feed entries."""

import {MISSING}


def word_count(text: str) -> int:
    return {MISSING}.count_words(text)


def entry_title(entry: dict) -> str:
    return {MISSING}.clean(str(entry.get("title", ""))) or "(untitled)"
'''
SLUGIFY_OLD = """\
    text = re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-").lower()
    return text or "item"
"""
SLUGIFY_NEW = """\
    text = re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-")
    if not text:
        raise ValueError(f"nothing to make a slug of in {title!r}")
    return text
"""
INITIALS_OLD = '    return "".join(part[0].upper() for part in name.split() if part)\n'
INITIALS_NEW = '    return "".join(word[:1] for word in name.split()).upper()\n'


TABS_CASE = '    - case: {id: tabs, input: "a\\tb", expected: 2}\n'


def _feeds_spec() -> str:
    """103 cases (104 once the pull request adds one): a spec that passed while ``shop.feeds``
    imported."""
    words = [" ".join(["word"] * n) for n in range(51)]
    lines = ["shop.feeds.word_count:", "  dataset:"]
    lines += [
        f"    - case: {{id: words_{n}, input: {text!r}, expected: {n}}}"
        for n, text in enumerate(words)
    ]
    lines += ["", "shop.feeds.entry_title:", "  dataset:"]
    lines += [
        f"    - case: {{id: title_{n}, input: {{title: 'Post {n}'}}, expected: 'Post {n}'}}"
        for n in range(52)
    ]
    return "\n".join(lines) + "\n"


def make_busy_pull_request(root: Path) -> tuple[str, str]:
    """The repository at ``root`` (created): the (base, head) SHAs of the busy pull request."""
    make_base(root)
    # The search stops at its count of calls, never at its seconds: the same witnesses on a
    # busy machine as on a quiet one (the example comment is recorded from this repository).
    with (root / "pyproject.toml").open("a", encoding="utf-8") as fh:
        fh.write("diff_budget = {seconds = 120, calls = 300}\n")
    shop = root / "src" / "shop"
    (shop / "catalog.py").write_text(CATALOG)
    (shop / "feeds.py").write_text(FEEDS)
    (root / "specs" / "feeds.yml").write_text(_feeds_spec())
    (root / "tests").mkdir()
    (root / "tests" / "test_catalog.py").write_text(CATALOG_TESTS)
    base = commit_base(root)
    edit_specs(root)
    replace_in(shop / "text.py", SLUGIFY_OLD, SLUGIFY_NEW)
    replace_in(shop / "text.py", INITIALS_OLD, INITIALS_NEW)
    (shop / "feeds.py").write_text(FEEDS_HEAD)
    feeds = root / "specs" / "feeds.yml"
    replace_in(feeds, "expected: 31}", "expected: 32}")
    replace_in(feeds, "\nshop.feeds.entry_title:", TABS_CASE + "\nshop.feeds.entry_title:")
    return base, commit(root, "Slugs keep their case; feeds through feedkit; review spec edits")


def busy_report(root: Path) -> dict[str, Any]:
    """``codemode check --base main --format json`` on the busy pull request, by the real
    command in a subprocess with this interpreter as the project's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEMODE_")}
    proc = subprocess.run(
        [*CHECK, "--root", str(root), "--python", sys.executable],
        cwd=root,
        capture_output=True,
        text=True,
        env={**env, "CODEMODE_WARM": "0"},
    )
    assert proc.returncode == 1, proc.stderr  # drifted, changed and error verdicts
    data: dict[str, Any] = json.loads(proc.stdout)
    return data
