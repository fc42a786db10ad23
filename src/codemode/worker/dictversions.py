"""Whether any of many dicts changed, in one compare: their version tags (#20). Stdlib only: runs
in the worker.

CPython gives every dict a 64-bit version that each insertion, deletion and replaced value
moves to a new, never reused number (PEP 509's ``ma_version_tag``, kept from 3.6 to 3.13). The
leak check (leaks.py) compares the dicts a block could leave changed, every module's globals
and the classes' and objects' attributes they reach, after every block: item by item, that
was ~0.45 ms a block in a 100-module project (9,400 keys and values), most of a 25,000-case
run's time in its children. Their tags say whether any changed in one ``b"".join`` of 8-byte
views and one compare of bytes.

Nothing in Python reads the field: a ctypes view maps the 8 bytes after ``ma_used``. Whether
this interpreter keeps them so is tested once per process, on dicts of its own changed each
way a block could change one (item assignment, deletion, ``update``, ``pop``, ``clear``, a
module global set by ``STORE_GLOBAL``, an instance attribute and a class attribute set by
the interpreter's specialized ``STORE_ATTR`` paths); where any change leaves the tag as it was
(3.14 replaced the field; a free-threaded build lays objects out otherwise), ``watch`` gives
None and the leak check compares items, as it always did.

The views read the memory of live dicts only: a ``Tags`` holds every dict it watches.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SSIZE = (sys.maxsize.bit_length() + 1) // 8  # bytes of a Py_ssize_t (ma_used)
_OFFSET = object.__basicsize__ + _SSIZE  # PyObject_HEAD, ma_used, then ma_version_tag
# The self-test's answers (dicts, instances' dicts), once per process: a fork inherits them.
_works: tuple[bool, bool] | None = None


class Tags:
    """The version tags of ``dicts``, read together: ``read()`` is one bytes object, equal to an
    earlier one exactly when none of the dicts changed in between."""

    def __init__(self, dicts: list[dict[Any, Any]]) -> None:
        import ctypes

        self.dicts = dicts  # held: a view must never outlive the dict it reads
        self.views = [(ctypes.c_char * 8).from_address(id(d) + _OFFSET) for d in dicts]

    def read(self) -> bytes:
        return b"".join(self.views)


def watch(dicts: list[dict[Any, Any]]) -> Tags | None:
    """``Tags`` over ``dicts``, or None where this interpreter's dicts carry no usable tag."""
    return Tags(dicts) if _test()[0] else None


def instances_tagged() -> bool:
    """Whether an object's attributes set through the object move its ``__dict__``'s tag. Not on
    3.13: a ``__dict__`` read from an object shares the object's inline values, which its
    attribute stores write without the dict knowing."""
    return _test()[1]


def _test() -> tuple[bool, bool]:
    global _works
    if _works is None:
        try:
            _works = _self_test()
        except Exception:  # no ctypes, an unexpected layout: compare items instead
            _works = (False, False)
    return _works


class _Thing:
    pass


def _self_test() -> tuple[bool, bool]:
    """Every way a block changes a dict moves its tag, and reading one that did not change
    does not; ``ma_used`` sits where this module expects it. Then, apart: whether an
    instance's ``__dict__`` moves when the instance's attributes are set."""
    import ctypes
    import gc

    if sys.implementation.name != "cpython":
        return False, False
    probe = {"a": 1, "b": 2, "c": 3}
    if ctypes.c_ssize_t.from_address(id(probe) + object.__basicsize__).value != len(probe):
        return False, False
    changes: list[Any] = [
        lambda d: d.__setitem__("a", object()),
        lambda d: d.__delitem__("a"),
        lambda d: d.update(z=[]),
        lambda d: d.pop("b"),
        lambda d: d.setdefault("y", ()),
        lambda d: d.clear(),
    ]
    if not all(_moves(probe, change) for change in changes):
        return False, False
    space: dict[str, Any] = {"N": 0}
    exec(
        "def set_global(v):\n    global N\n    N = v\n"
        "def set_attr(o, v):\n    o.n = v\n"
        "def set_class(k, v):\n    k.n = v\n",
        space,
    )
    klass = type("_Probe", (), {"n": 0})
    thing = _Thing()
    thing.n = -1  # type: ignore[attr-defined]
    instance = thing.__dict__  # a dict of its own now, read and written by the stores
    plain = _stores_move(space, lambda v: space["set_global"](v)) and _stores_move(
        gc.get_referents(klass.__dict__)[0], lambda v: space["set_class"](klass, v)
    )
    return plain, plain and _stores_move(instance, lambda v: space["set_attr"](thing, v))


def _moves(d: dict[Any, Any], change: Any) -> bool:
    tags = Tags([d])
    before = tags.read()
    if tags.read() != before:
        return False
    change(d)
    return tags.read() != before


def _stores_move(target: Any, store: Any) -> bool:
    """A store the interpreter specializes after a few runs (``STORE_ATTR`` with a hint,
    ``STORE_GLOBAL``) moves ``target``'s tag every time: run past the specializer's warm-up,
    with the tag checked after every run."""
    if type(target) is not dict:
        return False
    tags = Tags([target])
    for _ in range(64):
        before = tags.read()
        store(object())  # a new value each run (the same one stored again is no change)
        if tags.read() == before:
            return False
    return True
