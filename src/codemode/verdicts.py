"""The words a run is said in, each defined once: what the change did to a function, the
verdict on a function, and the spec review's call-outs.

A module of the core that imports only ``typing``: ``config`` parses ``fail_on`` with these
words and may not import ``report``; the change, check, report and behaviour stages all
compare statuses and verdicts. Each word is a ``Literal``, and each named set is a tuple here.
"""

from __future__ import annotations

from typing import Literal, get_args

# What the change did to a function. `impacted`: its code did not change, but it reaches
# (calls, builds, dispatches to) a function whose code did.
ChangeStatus = Literal["added", "modified", "removed", "renamed", "unchanged", "impacted"]
CHANGE_STATUSES: tuple[ChangeStatus, ...] = get_args(ChangeStatus)
# The function's own code changed (its fingerprint differs, or it is new or gone).
CODE_CHANGED: tuple[ChangeStatus, ...] = ("added", "modified", "removed")
# The function exists at head with new code: explored by regen, a spec expected by check.
EDITED: tuple[ChangeStatus, ...] = ("added", "modified", "renamed")
# The function exists on both sides and may behave differently: the behaviour diff runs it.
DIFFED: tuple[ChangeStatus, ...] = ("modified", "impacted", "renamed")

# The verdict on one function. `changed`: the behaviour diff found calls whose outcome the
# change altered, outside the spec's cases (its witnesses, #18); like a drifted case, someone
# must look before it merges, so it fails by default. `message_changed`: every such call
# raises the same exception type as before, with another message (#32: a bare `except:`
# narrowed blocked two commits for a message); shown everywhere, it fails only on request.
# `unstable`: every call that differs between the versions also differs between two runs of
# one version (randomness, the clock, hash order): the diff cannot show a change, and says so
# (#32: a shuffle helper blocked commits it had not changed), or a spec case differs from its
# record only in an order that moves with the hash seed (check/hash_order.py); it fails only
# on request.
# `skipped`: a budget stop left the function unexplored (#22); it fails nothing by default.
Verdict = Literal[
    "ok",
    "drifted",
    "stale",
    "missing",
    "orphaned",
    "error",
    "changed",
    "message_changed",
    "unstable",
    "skipped",
]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)

# The spec review's call-outs, words of fail_on too (#35): an edited expectation the code
# contradicts, a removed case (or block) that fails at head (the removal hides a behaviour
# change), a removed case that still passes, a check loosened.
ReviewVerdict = Literal["contradicted", "hides_change", "weakened", "loosened"]
REVIEW_VERDICTS: tuple[ReviewVerdict, ...] = get_args(ReviewVerdict)

FailOn = Literal[Verdict, ReviewVerdict]
FAIL_ON_WORDS: tuple[FailOn, ...] = (*VERDICTS, *REVIEW_VERDICTS)
# By default a run fails where someone must look: a drifted case, an error, a behaviour
# change, and the two review call-outs that hide one. `weakened` and `loosened` are shown,
# and fail only on request; so are `stale`, `missing`, `orphaned`, `skipped`, `message_changed`,
# `unstable`.
DEFAULT_FAIL_ON: tuple[FailOn, ...] = ("drifted", "error", "changed", "contradicted", "hides_change")
