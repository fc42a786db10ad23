"""Announced changes of the earlier held-out sets (benchmarks/upgrade_detection.py EARLIER),
written as in _announced_held_out.py. Only these pairs have theirs written so far; the
others are reported as "no announced change written for this pair yet", never scored."""

from __future__ import annotations

from _changelog import Announced

A = Announced

EARLIER_ANNOUNCED: dict[tuple[str, str, str], tuple[Announced, ...]] = {
    ("jsonpointer", "3.1.1", "3.2.0"): (
        A(
            "jsonpointer.resolve_pointer",
            "resolve_pointer({'foo': 'abc'}, '/foo/0')",
            "value:'a'",
            "raised:JsonPointerException",
            "3.2.0: its new tests (assertRaises(JsonPointerException, resolve_pointer, ...))",
        ),
        A(
            "jsonpointer.set_pointer",
            "set_pointer({'a': [1]}, '/a/5', 2)",
            "raised:IndexError",
            "raised:JsonPointerException",
            "3.2.0: its new tests (an invalid assignment target raises JsonPointerException)",
        ),
    ),
    ("bracex", "3.2", "3.2.1"): (
        A(
            "bracex.expand",
            "expand('{+1..3}')",
            "value:['{+1..3}']",
            "value:['1', '2', '3']",
            "3.2.1: a sequence with a leading + expands (the old notes' by-hand check)",
        ),
        A(
            "bracex.iexpand",
            "list(iexpand('{+1..3}'))",
            "value:['{+1..3}']",
            "value:['1', '2', '3']",
            "3.2.1: a sequence with a leading + expands (the old notes' by-hand check)",
        ),
    ),
}
