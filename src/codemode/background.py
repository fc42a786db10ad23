"""A call in a thread, waited for later. A module of its own: a cached ``codemode diff``
starts one and should not pay for importing ``codemode.change.git`` (~1.4 ms) to do so."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T")


def in_background(fn: Callable[[], _T]) -> Callable[[], _T]:
    """Start ``fn`` in a thread (a git subprocess, typically); call the result to wait for
    its value, or its exception, re-raised in the caller's thread."""
    box: list[_T | BaseException] = []

    def target() -> None:
        try:
            box.append(fn())
        except BaseException as exc:  # re-raised in the caller's thread
            box.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()

    def wait() -> _T:
        thread.join()
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]

    return wait
