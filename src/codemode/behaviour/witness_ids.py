"""Which witnesses an accept writes, and the ids it gives them (#35).

An accept after a two-line fix wrote 131 cases over 7 functions: every witness the diff found.
A reviewer reads a few: the representative ones, one per kind of outcome first (a value that
changed, an exception that appeared or went, a message that changed), then the rest in the
order the diff found them (the spec's inputs, the tests', docstrings' before generated
values), up to ``MAX_ACCEPTED`` per function. One of them pinned by a passing case is enough
for the next run to read the change as accepted (``check_change.merge``).

An id says what the case calls and, for an exception, what it raises:
``parse_ratio_3``, ``from_julian_600_13_raises_valueerror``, ``slugify_symbols`` (an argument
of punctuation only), ``total_empty_list``; never ``_no_arguments`` for a call that has some.
"""

from __future__ import annotations

import re
from typing import Any

from codemode.report.model import Witness
from codemode.report.witness import representative as representative  # the comment's too

MAX_ACCEPTED = 5  # cases per function per accept; the JSON report keeps every witness
MAX_ID = 48
MAX_WORDS = 4  # words taken from one text argument


def case_id(function_id: str, w: Witness) -> str:
    """``loyalty_tier_4999``: the function's name, its arguments in words, and what it raises."""
    name = function_id.rsplit(".", 1)[-1].strip("_") or "call"
    words = [_words(a) for a in w.args]
    words += [f"{k}_{_words(v)}" for k, v in (w.kwargs or {}).items()]
    slug = "_".join(x for x in words if x) or "no_arguments"
    new = w.new if isinstance(w.new, dict) else {}
    raised = f"_raises_{_slug(str(new['raised']))}" if "raised" in new else ""
    head = f"{name}_{slug}"[: MAX_ID - len(raised)].rstrip("_")
    return head + raised


def _slug(text: str) -> str:
    return re.sub(r"\W+", "_", text).strip("_").lower()


def _words(value: Any) -> str:
    """One argument in a few words of an identifier."""
    if value is None or isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        text = repr(value)
        return ("minus_" + text[1:] if text.startswith("-") else text).replace(".", "_")
    if isinstance(value, str):
        if not value.strip():
            return "empty_text" if not value else "blank_text"
        slug = "_".join(_slug(value).split("_")[:MAX_WORDS])
        return slug or "symbols"
    if isinstance(value, (list, tuple)):
        return f"list_of_{len(value)}" if value else "empty_list"
    if isinstance(value, dict):
        return f"mapping_of_{len(value)}" if value else "empty_mapping"
    return _slug(type(value).__name__)
