"""The one user-facing exception.

Raised deep, with a message that says what to do next; the CLI turns it into one line
and exit code 2 in one place (pre-commit's ``FatalError`` habit).
"""

from __future__ import annotations

# The exit codes of every command: 0 clean, 1 a verdict the run fails on (``--fail-on``),
# 2 the user's mistake (a FatalError: bad arguments, config, an unwritable output file),
# 3 an internal error (a bug: the traceback is printed).
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class FatalError(RuntimeError):
    """A problem the user must fix: bad arguments, bad config, no git repository, ..."""
