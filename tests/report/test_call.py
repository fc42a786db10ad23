"""The one call formatter drifted cases and behaviour-diff witnesses share (#19)."""

from __future__ import annotations

import base64

from codemode.report.call import format_call, literal, short_name


def test_a_call_reads_as_python_with_the_short_name() -> None:
    assert format_call("shop.customers.loyalty_tier", [4999]) == "loyalty_tier(4999)"
    assert format_call("shop.pricing.fmt", ["a", None, True]) == "fmt('a', None, True)"
    assert format_call("m.f", {"price": 1.5, "rate": 0.1}) == "f(price=1.5, rate=0.1)"
    assert format_call("m.f", [1], {"k": [1, {"a": 2}]}) == "f(1, k=[1, {'a': 2}])"
    assert format_call("m.f") == "f()"


def test_methods_keep_their_class() -> None:
    assert short_name("shop.cart.Cart.total") == "Cart.total"
    assert short_name("shop.cart.Cart.Inner.total") == "Cart.Inner.total"
    assert short_name("total") == "total"


def test_canonical_tags_become_python_values() -> None:
    tag = base64.b64encode(b"\x00ab").decode()
    assert literal({"$bytes": tag}) == repr(b"\x00ab")
    assert literal(float("nan")) == "float('nan')"
    assert literal(float("-inf")) == "float('-inf')"
    assert literal({"$unrepresentable": "socket"}) == "<no faithful form: socket>"
    assert literal((1,)) == "(1,)"


def test_a_long_argument_is_cut_like_a_long_value_and_no_line_break_survives() -> None:
    call = format_call("m.f", ["x" * 500, "two\nlines"])
    first = call.split(", ")[0]
    assert first.endswith("…") and len(first) == len("f(") + 80
    assert "\n" not in call and "'two\\nlines'" in call


def test_keys_no_keyword_can_spell_go_through_a_mapping() -> None:
    assert format_call("m.f", {"a-b": 1, "ok": 2}) == "f(ok=2, **{'a-b': 1})"


def test_many_arguments_are_counted_past_a_few() -> None:
    call = format_call("m.f", list(range(12)))
    assert call == "f(0, 1, 2, 3, 4, 5, 6, 7, … 4 more)"
