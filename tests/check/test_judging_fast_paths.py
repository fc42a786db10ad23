"""The judging path's shortcuts (#36) give what the general code gives, on values Hypothesis
makes up: a flat list's canonical form, two values of one exact type compared with ``==``, a
reply line decoded without the decoder's whitespace matches, a plain reply read as an Outcome
in one step. Each falls back to the general code when it is unsure; these check the answers it
gives itself. No worker, no process."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from codemode.compare import general_equal, values_equal
from codemode.worker import canonical as canon
from codemode.worker import replies
from codemode.worker.tags import UNREPRESENTABLE_TAG

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**13001, -(2**13001)]),  # past the size JSON can write
    st.floats(),  # NaN and the infinities included
    st.text(max_size=6),
)
value = st.recursive(
    scalar,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=3), inner, max_size=3)
        | st.tuples(inner, inner)
    ),
    max_leaves=10,
)


def _same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down (True is not 1, 1.0 is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


@SETTINGS
@given(value)
@example([1, 2.5, "a", None, True])
@example([2**13001])
def test_a_flat_list_has_the_canonical_form_of_any_other_sequence(v: Any) -> None:
    # A tuple takes the general path; a list of plain scalars the shortcut. Same form.
    got = canon.canonical(v)
    if isinstance(v, list):
        assert _same(got, canon.canonical(tuple(v)))
        assert got is not v  # a copy, as the general path makes
    assert _same(got, canon.canonical(got))


def test_a_list_nested_too_deep_is_said_so_whatever_it_holds() -> None:
    deep: Any = [1, 2]
    for _ in range(70):
        deep = [deep]
    found = canon.canonical(deep)
    for _ in range(70):
        if not isinstance(found, list):
            break
        found = found[0]
    assert found == {UNREPRESENTABLE_TAG: "nested too deep"}


pair = st.one_of(
    st.tuples(value, value),
    value.map(lambda v: (v, v)),
    value.map(lambda v: (canon.canonical(v), canon.canonical(v))),
)


@SETTINGS
@given(pair)
@example((1, True))
@example((1.0, 1.0 + 1e-12))
@example((True, 1))
@example((1, 1.0))
@example((10**17 + 1, 1e17))
@example(([1, True], [1, 1]))
@example(({"a": 1}, {"a": True}))
def test_values_equal_gives_what_the_general_comparison_gives(ab: tuple[Any, Any]) -> None:
    a, b = canon.canonical(ab[0]), canon.canonical(ab[1])
    assert values_equal(a, b) == general_equal(a, b)
    assert values_equal(b, a) == general_equal(b, a)


line = st.one_of(
    value.map(lambda v: canon.dumps(v) + "\n"),
    value.map(lambda v: json.dumps(canon.canonical(v))),
    st.text(alphabet=' \t\r\n{}[]",:0123456789.-eEtrufalsn', max_size=20),
)


@SETTINGS
@given(line)
@example(" 1\n")
@example("1 \n")
@example("1\n\n")
@example('{"a": 1} {"b": 2}\n')
@example("[1]x\n")
@example("\n")
def test_a_reply_line_decodes_as_the_decoder_decodes_it(text: str) -> None:
    if "\\u0000" in text:
        return  # tagged values: the tag decoder's, no shortcut
    try:
        want: Any = ("ok", json.JSONDecoder().decode(text))
    except ValueError as exc:
        want = ("error", type(exc))
    try:
        got: Any = ("ok", canon.loads(text))
    except ValueError as exc:
        got = ("error", type(exc))
    assert got[0] == want[0]
    assert _same(got[1], want[1]) if got[0] == "ok" else got == want


case_id = st.one_of(st.just("c1"), st.just("c2"), st.integers(0, 2))
reply = st.fixed_dictionaries(
    {},
    optional={
        "case": case_id,
        "outcome": st.sampled_from(["returned", "raised", "error", "other"]),
        "value": value,
        "duration_ms": st.one_of(st.none(), st.floats(), st.booleans(), st.text(max_size=2)),
        "types": st.one_of(
            st.lists(st.one_of(st.none(), st.text(max_size=3)), max_size=3), st.text(max_size=2)
        ),
        "message": st.text(max_size=3),
        "lines": st.lists(st.integers(0, 9), max_size=2),
        "fatal": st.text(max_size=3),
    },
)


@SETTINGS
@given(reply, case_id)
@example({"case": "c1", "outcome": "returned", "value": 3, "duration_ms": 0.1}, "c1")
@example(
    {"case": "c1", "outcome": "returned", "value": 3, "duration_ms": 0.1, "types": [None]}, "c1"
)
@example({"case": "c1", "outcome": "returned", "value": 3, "duration_ms": True}, "c1")
@example({"case": "c1", "outcome": "returned", "value": 3, "duration_ms": math.inf}, "c1")
def test_a_plain_reply_reads_as_the_general_path_reads_it(r: dict[str, Any], cid: Any) -> None:
    fast = replies.plain_outcome(r, cid)
    if fast is None:
        return  # the general path reads it
    assert replies.bad_reply(r, cid) is None
    assert fast == replies.outcome(r, cid)
