"""The one user-facing exception.

Raised deep, with a message that says what to do next; the CLI turns it into one line
and exit code 2 in one place (pre-commit's ``FatalError`` habit).
"""

from __future__ import annotations


class FatalError(RuntimeError):
    """A problem the user must fix: bad arguments, bad config, no git repository, ..."""
