"""A returned callable, called (#32). Runs in the worker, inside the call's own wall.

A factory's behaviour is the function it returns (``natsort_keygen()`` returns a key; a
decorator a wrapper; ``make_formatter(...)`` a handler): its canonical form is a name or no
faithful form at all, the same on both sides whatever the key does. So the behaviour diff asks
(a case's ``then``) for the returned callable to be called, in the same forked child and under
the same wall and timeout as the call that made it, and the outcome of that call is the case's:
``{"args": [...]}`` calls it with those arguments, ``{"sort": [...]}`` sorts those items with it
as the key (``sorted(xs, key=f)``: a key's order, not only its values). The runner marks a
returned value worth following up (``callable``: a class is a constructor, not a behaviour of
its own, and is not marked).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs the worker's start
if TYPE_CHECKING:
    from typing import Any


class NotCallable(Exception):
    """The call returned no callable where the follow-up wanted one (the same on both sides
    when neither returns one: no difference)."""


def called(result: Any, then: dict[str, Any]) -> Any:
    """What the returned callable ``result`` does on ``then``'s arguments or items."""
    if not callable(result):
        raise NotCallable(f"returned {type(result).__name__}, not a callable")
    if "sort" in then:
        return sorted(list(then["sort"]), key=result)
    return result(*list(then.get("args") or ()))
