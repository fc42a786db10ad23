"""Case ids say what the case is, and no case is filler (#35): a cut id never ends in half a
number or a join word, a repeated id is told apart by a counter no reader takes for a value
(`..._and_mode_2` was a case with mode 1), and a second text handed back unchanged is not
chosen to show a class of input."""

from __future__ import annotations

from codemode.explore.record import CallRecord
from codemode.explore.selection.by_mutation import Mutation, choose
from codemode.explore.selection.cases import MAX_ID, readable_id, unique_id


def test_a_cut_id_keeps_whole_numbers_and_no_dangling_join() -> None:
    # cut word by word before #35: `amount_padded_threshold_above_0`, another threshold
    cut = readable_id("amount_surrounding_whitespace_and_threshold_above_0_25")
    assert cut == "amount_padded_threshold" and len(cut) <= MAX_ID
    assert readable_id("rate_above_0_2") == "rate_above_0_2"  # short enough: kept whole


def test_a_repeated_id_gets_a_counter_not_a_value() -> None:
    taken = {"text_and_mode"}
    assert unique_id("text_and_mode", taken) == "text_and_mode_case2"
    assert unique_id("text_and_mode", taken) == "text_and_mode_case3"


def _rec(n: int, text: str, out: str) -> CallRecord:
    return CallRecord(n=n, args=(text,), kwargs={}, kind="returned", value=out, lines=(1,))


def test_one_text_returned_unchanged_is_enough() -> None:
    """Classes of input a formatter leaves alone: each would be a new class and a new output."""
    records = [
        _rec(1, "Hello World", "Hello World"),
        _rec(2, "HELLO WORLD", "HELLO WORLD"),
        _rec(3, "  Hello World  ", "  Hello World  "),
        _rec(4, "Héllo Wörld", "Héllo Wörld"),
        _rec(5, "a\tb", "a b"),
    ]
    family = {
        1: "types:plain",
        2: "types:upper",
        3: "types:padded",
        4: "types:accented",
        5: "types:tab",
    }
    picked = choose(records, Mutation(mutants=1), [], 8, family=family)
    assert sorted(r.n for r in picked) == [1, 5]


def test_a_long_exception_message_keeps_its_end() -> None:
    """Python's TypeErrors end with the argument they are about; a cut keeps it (#35)."""
    from codemode.report.witness import outcome_text

    message = "Calendar.from_julian_day_number() missing 1 required positional argument: 'day'"
    shown = outcome_text({"raised": "TypeError", "message": message * 2}, limit=80)
    assert shown.endswith("argument: 'day'") and len(shown) <= len("raises TypeError: ") + 80
