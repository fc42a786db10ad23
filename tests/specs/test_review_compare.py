"""specs.changes.compare: two sides of touched spec files, case by case (#19). Pure: no git."""

from __future__ import annotations

from pathlib import Path

from codemode.specs.changes import FileSide, compare
from codemode.specs.load import parse_spec_text


def side(rel: str | None, text: str | None) -> FileSide:
    if rel is None or text is None:
        return FileSide(rel, None)
    return FileSide(rel, parse_spec_text(text, Path(rel), rel))


def kinds(text_old: str | None, text_new: str | None, **renames: str) -> list[tuple[str, str, str]]:
    [delta] = compare([(side("s.yml", text_old), side("s.yml", text_new))], dict(renames) or None)
    return [(c.kind, c.function, (c.new or c.old).id) for c in delta.cases]  # type: ignore[union-attr]


OLD = """\
m.f:
  dataset:
    - case: {id: a, input: 1, expected: 2}
    - case: {id: b, input: 2, raises: ValueError?, match: "x"}
"""


def test_an_unchanged_file_has_no_case_delta() -> None:
    assert kinds(OLD, OLD) == []


def test_a_block_renamed_with_its_function_is_no_removal() -> None:
    new = OLD.replace("m.f:", "m.g:")
    assert kinds(OLD, new, **{"m.f": "m.g"}) == []
    # without the rename in the code, the cases moved to another function: removed and added
    assert sorted(k for k, _, _ in kinds(OLD, new)) == ["added", "added", "removed", "removed"]


def test_a_renamed_case_is_moved_and_its_twin_stays_removed() -> None:
    twin = OLD + "    - case: {id: c, input: 1, expected: 2}\n"
    new = OLD.replace("id: a,", "id: a2,")
    assert kinds(twin, new) == [("removed", "m.f", "c"), ("moved", "m.f", "a2")]


def test_what_changed_and_what_was_loosened() -> None:
    new = OLD.replace('raises: ValueError?, match: "x"', "raises: ValueError").replace(
        "expected: 2}", "contains: 2}"
    )
    [delta] = compare([(side("s.yml", OLD), side("s.yml", new))])
    by_id = {c.new.id: c for c in delta.cases if c.new}
    assert by_id["a"].what == ("expected", "evaluator")
    assert by_id["a"].loosened == ("`expected` replaced by `contains:`",)
    assert by_id["b"].what == ("raises", "match")
    # no longer optional is firmer; the dropped match is looser
    assert by_id["b"].loosened == ("`match` removed",)


def test_a_deleted_file_drops_its_blocks() -> None:
    [delta] = compare([(side("s.yml", OLD), side("s.yml", None))])
    assert delta.status == "deleted"
    assert [b.function for b in delta.dropped_blocks] == ["m.f"]
    assert [c.kind for c in delta.cases] == ["removed", "removed"]


def test_an_invalid_side_reviews_what_it_can() -> None:
    [delta] = compare([(side("s.yml", "m.f: [unclosed"), side("s.yml", OLD))])
    assert [c.kind for c in delta.cases] == ["added", "added"]
    assert delta.old_spec is not None and delta.old_spec.problems
