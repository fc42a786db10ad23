"""Leaving the process once the command is done, without the interpreter's teardown (#36).

After ``main`` returns, Python frees every object one by one and collects the cycles among
them before the process may end: ~20 ms of CPU after a 2,000-case check (its spec records,
outcomes and results), on the path of every hook run and CI check, for memory the system
takes back at once. ``leave`` does what an exit must (the output written, the ``atexit``
handlers run: the scratch folder removed, the workers' leftovers killed, the diff's fork
reaped), then ends the process. Where that is not safe (output that cannot be written, a
thread that is not a daemon, which the interpreter would wait for), it exits as usual.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # not `typing` itself: the resident client's run never imports it
    from typing import NoReturn


def _flushed() -> bool:
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # a closed pipe: the usual exit says so, and its code
        return False
    return True


def _threads_done() -> bool:
    threading = sys.modules.get("threading")
    if threading is None:
        return True
    main = threading.main_thread()
    return not any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())


def leave(code: int) -> NoReturn:
    """End the process with exit status ``code``."""
    if not (_flushed() and _threads_done()):
        raise SystemExit(code)
    import atexit

    atexit._run_exitfuncs()  # what the usual exit runs first
    if not _flushed():
        raise SystemExit(code)
    os._exit(code)
