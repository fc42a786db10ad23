"""The worker's relay of a forked child's replies (worker/children.py, #20 and #21): the lines
that arrive together are checked one by one and passed on in one write, and a line that is not
the awaited reply still ends the child, whatever came with it. Real forks and pipes."""

from __future__ import annotations

import io
import json
import os
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codemode.worker import canonical, children, replies

REQ = {"op": "run", "cases": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}


def _relay(*writes: bytes, req: dict[str, Any] = REQ) -> tuple[bool | None, list[Any], bytes]:
    """Relay one block from a real forked child that writes ``writes`` (each in one write)
    after reading its request; what relay returned, the lines passed on, what stayed unread."""

    def child_main(requests: Any, replies: Any) -> None:
        requests.readline()
        for chunk in writes:
            os.write(replies.fileno(), chunk)

    proto_r, proto_w = os.pipe()  # the worker's protocol descriptor, closed in the child
    child = children.spawn(child_main, proto_w)
    out = io.BytesIO()
    try:
        stay = children.relay(child, req, json.dumps(req) + "\n", out)
        left = bytes(child.buf)
    finally:
        child.close(kill=True)
        os.close(proto_r)
        os.close(proto_w)
    return stay, [json.loads(ln) for ln in out.getvalue().splitlines()], left


def _case(cid: str) -> bytes:
    return canonical.dumps({"case": cid, "outcome": "returned", "value": 1}).encode() + b"\n"


def test_a_block_written_at_once_is_passed_on_whole() -> None:
    block = _case("a") + _case("b") + _case("c") + b'{"done":true}\n{"stay":true}\n'
    stay, lines, left = _relay(block)
    assert stay is True
    assert [ln.get("case", "done") for ln in lines] == ["a", "b", "c", "done"]
    assert left == b""


def test_replies_split_anywhere_are_joined_before_they_are_checked() -> None:
    block = _case("a") + _case("b") + _case("c") + b'{"done":true}\n{"stay":false}\n'
    stay, lines, _ = _relay(block[:7], block[7:40], block[40:])
    assert stay is False
    assert [ln.get("case", "done") for ln in lines] == ["a", "b", "c", "done"]


def test_a_forged_line_among_replies_that_came_together_ends_the_block() -> None:
    # "b" is answered twice: the second is no awaited reply, and neither is the done after it.
    block = _case("a") + _case("b") + _case("b") + b'{"done":true}\n{"stay":true}\n'
    stay, lines, _ = _relay(block)
    assert stay is None
    assert [(ln.get("case"), ln.get("outcome")) for ln in lines] == [
        ("a", "returned"),
        ("b", "returned"),
        ("c", "error"),
        (None, None),
    ]
    assert "reply channel" in lines[2]["message"]
    assert lines[3] == {"done": True}


def test_a_line_after_the_done_is_forged_and_never_passed_on() -> None:
    block = _case("a") + _case("b") + _case("c") + b'{"done":true}\n' + _case("a")
    stay, lines, _ = _relay(block)
    assert stay is None
    assert [ln.get("case", "done") for ln in lines] == ["a", "b", "c", "done"]


def test_a_fatal_ends_the_block_and_what_follows_the_stay_waits() -> None:
    block = b'{"fatal":"import","message":"no"}\n{"stay":true}\n' + _case("x")
    stay, lines, left = _relay(block)
    assert stay is True
    assert lines == [{"fatal": "import", "message": "no"}]
    assert left == _case("x")  # read with the next block, where it is no awaited reply


def test_a_child_gone_mid_block_passes_on_what_it_gave() -> None:
    stay, lines, _ = _relay(_case("a") + _case("b")[:5])
    assert stay is None
    assert [ln["case"] for ln in lines] == ["a"]


@given(st.one_of(st.text(), st.integers(), st.none()))
def test_the_awaited_prefix_is_json_of_the_id(case_id: Any) -> None:
    # The fast form for plain ids must be what the child's encoder writes, exactly.
    assert children._prefix(case_id) == b'{"case":' + json.dumps(case_id).encode() + b","
    line = canonical.dumps({"case": case_id, "outcome": "returned"}).encode()
    assert line.startswith(children._prefix(case_id))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(JSON)
def test_decoding_without_tags_is_decoding_with_them(value: Any) -> None:
    line = json.dumps(value)
    assert canonical.loads(line) == canonical._DECODER.decode(line)


@pytest.mark.parametrize(
    "duration",
    [float("nan"), float("inf"), "1", True, [1]],
    ids=["nan", "inf", "text", "bool", "list"],
)
def test_a_plain_returned_reply_still_has_its_duration_checked(duration: Any) -> None:
    # The short way through check_case_reply (a returned value and nothing more) checks the
    # one field it can hold wrongly: the duration.
    reply = {"case": "a", "outcome": "returned", "value": [1, {"x": None}], "duration_ms": duration}
    with pytest.raises(replies.BadReply, match="duration_ms"):
        replies.check_case_reply(reply, "a")


def test_a_plain_returned_reply_is_taken_only_for_its_own_case() -> None:
    reply = {"case": "a", "outcome": "returned", "value": 1, "duration_ms": 0.5}
    replies.check_case_reply(reply, "a")
    with pytest.raises(replies.BadReply, match="was awaited"):
        replies.check_case_reply(reply, "b")
    with pytest.raises(replies.BadReply, match="outcome"):
        replies.check_case_reply({**reply, "outcome": "passed"}, "a")


def test_a_dict_whose_keys_are_not_plain_text_travels_as_pairs() -> None:
    for value in ({1: "a", "b": 2}, {"\u0000t": "bytes", "v": "x"}, {"a": {(1, 2): [3]}}):
        assert canonical.loads(canonical.dumps({"v": value}))["v"] == value
