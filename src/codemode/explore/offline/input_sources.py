"""Where an input comes from, defined once: the names, and the order they are tried in.

Both the offline explorer (the sources a spec's cases came from) and the behaviour diff's pool
(the calls run on both sides) rank by this order, so that a budget which cuts the search keeps
the likeliest calls: a maintainer's example beats a generated value.
"""

from __future__ import annotations

from typing import Literal, get_args

InputSource = Literal[
    "spec",  # the spec's own cases
    "tests",  # calls in the project's tests
    "docstring",  # doctest examples
    "receivers",  # a method called on instances built as the tests build them
    "callers",  # calls in the project's own code
    "splices",  # the maintainers' calls with the values the change compares against spliced in
    "variants",  # the above, one argument varied
    "constants",  # values the code's own constants imply
    "types",  # values of the annotated types
    "havoc",  # the diff's: the pool's calls mutated, in the time the pool left (havoc.py)
]
INPUT_SOURCES: tuple[InputSource, ...] = get_args(InputSource)
