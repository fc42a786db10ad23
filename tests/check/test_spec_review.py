"""The review of the spec files a change touched, from the change itself, on real git (#19).

One pull request (tests/reviewkit.py) makes every kind of spec edit; ``check --base main`` must
report each in the JSON ``reviews`` with its ids, statuses and call-outs, render it in the
terminal; tests/github/test_review_comment.py renders it in the comment. The same review comes out of
``--staged`` and ``--worktree``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codemode.cli.main import main
from reviewkit import git, make_pull_request, review_report


@pytest.fixture(scope="module")
def pull_request(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp("review") / "shop"
    base, head = make_pull_request(root)
    return root, base, head


def _check(root: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["check", "--root", str(root), *args])
    return code, capsys.readouterr().out


@pytest.fixture(scope="module")
def report(pull_request: tuple[Path, str, str]) -> dict[str, Any]:
    return review_report(pull_request[0])


def _reviews(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["file"]: r for r in report["reviews"]}


def _cases(review: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f"{c['function']}[{c['id']}]": c for c in review["cases"]}


def _callouts(review: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    return [(k["kind"], k["function"], k["case"]) for k in review["callouts"]]


def test_each_touched_spec_file_is_reviewed_with_its_status(report: dict[str, Any]) -> None:
    reviews = _reviews(report)
    assert {f: r["status"] for f, r in reviews.items()} == {
        "specs/pricing.yml": "modified",
        "specs/money.yml": "added",
        "specs/customers.yml": "added",
        "specs/legacy.yml": "deleted",
    }


def test_added_changed_removed_and_moved_cases_by_id(report: dict[str, Any]) -> None:
    pricing = _reviews(report)["specs/pricing.yml"]
    assert set(pricing["changed"]) == {
        "shop.pricing.apply_discount[basic]",
        "shop.pricing.apply_discount[negative_price_raises]",
        "shop.pricing.to_cents[whole]",
        "shop.pricing.split_bill[extra_cents_first]",
    }
    assert set(pricing["removed"]) == {
        "shop.pricing.split_bill[even]",
        "shop.pricing.split_bill[remainder_two]",
    }
    # a case under a new id, and one moved to a new file: moves, never removal plus addition
    assert pricing["moved"] == ["shop.pricing.apply_discount[no_discount]"]
    assert pricing["added"] == []
    cases = _cases(pricing)
    assert cases["shop.pricing.apply_discount[no_discount]"]["old_id"] == "zero_rate"
    money = _reviews(report)["specs/money.yml"]
    assert money["moved"] == ["shop.pricing.with_vat[custom_rate]"] and money["removed"] == []
    assert _cases(money)["shop.pricing.with_vat[custom_rate]"]["old_file"] == "specs/pricing.yml"
    assert "shop.pricing.with_vat[custom_rate]" not in pricing["removed"]
    # what changed in each changed case
    assert cases["shop.pricing.to_cents[whole]"]["what"] == ["expected"]
    assert cases["shop.pricing.apply_discount[basic]"]["what"] == ["expected", "evaluator"]
    assert cases["shop.pricing.apply_discount[negative_price_raises]"]["what"] == [
        "raises",
        "match",
    ]


def test_added_and_changed_cases_are_verified_at_head(report: dict[str, Any]) -> None:
    customers = _cases(_reviews(report)["specs/customers.yml"])
    assert customers["shop.customers.loyalty_tier[below_1000]"]["status"] == "passed"
    drifted = customers["shop.customers.loyalty_tier[below_5000]"]
    assert drifted["status"] == "drifted"
    assert drifted["call"] == "loyalty_tier(4999)"
    assert (drifted["expected"], drifted["observed"]) == ("'gold'", "'silver'")
    pricing = _cases(_reviews(report)["specs/pricing.yml"])
    assert pricing["shop.pricing.to_cents[whole]"]["status"] == "drifted"
    assert pricing["shop.pricing.split_bill[extra_cents_first]"]["status"] == "passed"
    # removed cases ran at head too
    assert pricing["shop.pricing.split_bill[even]"]["status"] == "passed"
    assert pricing["shop.pricing.split_bill[remainder_two]"]["status"] == "drifted"


def test_the_call_outs_a_reviewer_must_not_miss(report: dict[str, Any]) -> None:
    pricing = _reviews(report)["specs/pricing.yml"]
    found = _callouts(pricing)
    assert found[0] == ("contradicted", "shop.pricing.to_cents", "whole")  # most important first
    assert ("hides_change", "shop.pricing.split_bill", "remainder_two") in found
    assert ("weakened", "shop.pricing.split_bill", "even") in found
    assert ("loosened", "shop.pricing.apply_discount", "basic") in found
    assert found.count(("loosened", "shop.pricing.apply_discount", "negative_price_raises")) == 2
    assert ("mutation_score", "shop.pricing.split_bill", None) in found
    quiet = [k for k in pricing["callouts"] if k["kind"] == "with_code"]
    assert [(k["case"], k["level"]) for k in quiet] == [("extra_cents_first", "info")]
    messages = {k["message"] for k in pricing["callouts"]}
    assert "mutation score 90% → 60%" in messages
    assert "check loosened: `raises: ValueError` became `raises: any`" in messages
    legacy = _reviews(report)["specs/legacy.yml"]
    assert _callouts(legacy) == [("block_removed", "shop.customers.points_for", None)]
    # nothing to say about a case that moved, or a file that only received one
    assert _callouts(_reviews(report)["specs/money.yml"]) == []


def test_every_failing_case_names_its_call(report: dict[str, Any]) -> None:
    calls = {
        f"{f['id']}[{c['id']}]": c["call"]
        for f in report["functions"]
        for c in f["cases"]
        if c["status"] != "passed"
    }
    assert calls == {
        "shop.customers.loyalty_tier[below_5000]": "loyalty_tier(4999)",
        "shop.pricing.to_cents[whole]": "to_cents('12')",
    }


def test_terminal_shows_the_spec_changes_block(
    pull_request: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _, _ = pull_request
    code, out = _check(root, "--base", "main", "--color", "never", capsys=capsys)
    assert code == 1
    block = out[out.index("spec changes:") :]
    assert "  specs/pricing.yml: 4 changed, 2 removed, 1 moved\n" in block
    assert "  specs/legacy.yml (deleted): 1 removed\n" in block
    assert (
        "    ! specs/pricing.yml:27: shop.pricing.to_cents[whole] [contradicted]: expectation "
        "edited with no change to the function, and the code contradicts it: to_cents('12'): "
        "1201 → 1200\n"
    ) in block
    assert "    call: loyalty_tier(4999)\n" in out
    # the summary counts the review's verdicts; the accept hint says what accepting would undo
    assert "; spec review: 1 contradicted, 1 hides_change, 2 weakened, 3 loosened" in out, out
    assert (
        "but accepting shop.pricing.to_cents[whole] reverts the expectation this change edited"
    ) in out


@pytest.mark.parametrize("scope", ["--staged", "--worktree"])
def test_staged_and_work_tree_scopes_review_the_same_edits(
    tmp_path: Path, scope: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "shop"
    make_pull_request(root)
    git(root, "reset", "-q", "--soft", "main")  # the pull request's edits, staged
    if scope == "--worktree":
        git(root, "reset", "-q")  # unstaged (the new files stay untracked: git diff omits them)
    code, out = _check(root, scope, "--format", "json", capsys=capsys)
    assert code == 1
    reviews = _reviews(json.loads(out))
    pricing = reviews["specs/pricing.yml"]
    assert ("contradicted", "shop.pricing.to_cents", "whole") in _callouts(pricing)
    assert ("weakened", "shop.pricing.split_bill", "even") in _callouts(pricing)
    assert reviews["specs/legacy.yml"]["status"] == "deleted"
    if scope == "--staged":
        assert reviews["specs/money.yml"]["moved"] == ["shop.pricing.with_vat[custom_rate]"]


def test_a_change_that_touches_no_spec_has_no_review(
    pull_request: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _, _ = pull_request
    code, out = _check(root, "--base", "HEAD", "--format", "json", capsys=capsys)
    assert code == 0 and json.loads(out)["reviews"] == []


def test_sharded_jobs_merge_into_the_same_review(
    pull_request: tuple[Path, str, str], report: dict[str, Any], tmp_path: Path
) -> None:
    from codemode.report.model import Report, merge_reports

    root, _, _ = pull_request
    shards = []
    for k in (1, 2):
        out = tmp_path / f"shard{k}.json"
        args = ["--base", "main", "--shard", f"{k}/2", "--report-out", str(out), "-q"]
        main(["check", "--root", str(root), *args])
        shards.append(Report.from_json(out.read_text()))
    merged = merge_reports(shards)
    whole = Report.from_dict(report)
    for got, want in zip(merged.reviews, whole.reviews, strict=True):
        assert got.cases == want.cases
        assert sorted(got.callouts) == sorted(want.callouts)
