"""Two fixtures under one name in one spec file (#31, #32).

vowel injects a fixture by its name, so the name regen gives a generated fixture is the
parameter's (`path`). Two functions of one module may need different fixtures under that name:
``rmtree(path)`` a fresh folder, ``write_text_file(path, text)`` a file inside one. The spec
file holds one ``fixtures: path:``; writing the second function's cases under the first's
fixture gave a spec that failed on the code it was written from (IsADirectoryError, a false
drift). Such an update is refused with the reason, and its function stays without cases.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# The keys that decide what a fixture builds; `scope` and a hand-written teardown do not
# change the value a case receives from codemode's own fixtures.
_BUILDS = ("setup", "cls", "args", "kwargs")


class FixtureClash(ValueError):
    """A new block's fixture whose name the spec file gives another fixture already."""

    def __init__(self, function: str, reason: str) -> None:
        super().__init__(f"{function}: {reason}")
        self.function = function  # whose update is refused
        self.reason = reason  # why, without the function's id


def _builds(body: Any) -> dict[str, Any]:
    if not isinstance(body, Mapping):
        return {"setup": body}
    return {k: body[k] for k in _BUILDS if body.get(k) not in (None, [], {})}


def check(have: Mapping[str, Any], wanted: Iterable[tuple[str, str, Mapping[str, Any]]]) -> None:
    """Raise ``FixtureClash`` for the first (function, name, fixture) whose name ``have`` (the
    file's fixtures, then earlier entries of ``wanted``) binds to a fixture building another
    value."""
    seen = dict(have)
    for function, name, body in wanted:
        if name in seen and _builds(seen[name]) != _builds(body):
            raise FixtureClash(
                function,
                f"its parameter `{name}` needs the fixture {_builds(body)}, but the "
                f"spec file's fixture `{name}` is {_builds(seen[name])}; its cases were not "
                f"written (move one of the functions' blocks to a spec file of its own, or "
                f"write its case by hand)",
            )
        seen.setdefault(name, body)
