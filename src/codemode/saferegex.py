"""Regexes from spec files (``match:``, ``pattern:``), run with a time limit (#11).

Anyone who opens a pull request writes these patterns, and ``re`` backtracks without bound:
``^(a+)+$`` against forty characters runs for minutes, and ``re`` holds the GIL, so no thread
can stop it. The ``regex`` package takes Python's syntax unchanged (its VERSION0 is ``re``'s
dialect, lookarounds and backreferences included, so vowel specs keep their meaning) and
stops a search at a deadline. It is imported on first use: the hook's no-op path never pays
its ~15 ms.
"""

from __future__ import annotations

from typing import Any

TIMEOUT_SECONDS = 1.0


class RegexError(Exception):
    """The pattern does not compile, or its search ran past the time limit."""


# re's metacharacters: a pattern with none of them matches itself and nothing else.
_SPECIAL = frozenset("\\.^$*+?{}[]|()")


def _literal(pattern: str, text: str, ignore_case: bool) -> bool | None:
    """The search's answer without a regex engine, when ``pattern`` is plain text (most
    ``match:`` patterns are an exception message's words): a substring test, which cannot
    backtrack, and spares the ~15 ms import of ``regex``. None: a real pattern. Ignoring case,
    only for ASCII on both sides, where lower() is the engine's case folding (it also folds the
    Kelvin sign to k, and ß differently)."""
    if not _SPECIAL.isdisjoint(pattern):
        return None
    if not ignore_case:
        return pattern in text
    if pattern.isascii() and text.isascii():
        return pattern.lower() in text.lower()
    return None


def _engine() -> Any:
    import regex

    return regex


def search(
    pattern: str, text: str, *, ignore_case: bool = False, timeout: float = TIMEOUT_SECONDS
) -> bool:
    """Whether ``pattern`` is found in ``text``; RegexError when it cannot say in ``timeout`` s."""
    plain = _literal(pattern, text, ignore_case)
    if plain is not None:
        return plain
    engine = _engine()
    try:
        flags = engine.IGNORECASE if ignore_case else 0
        return engine.search(pattern, text, flags, timeout=timeout) is not None
    except TimeoutError:
        raise RegexError(
            f"it ran past {timeout:g} s on a {len(text):,}-character text (catastrophic "
            "backtracking, e.g. nested repetition such as (a+)+ or (a|aa)+); rewrite it "
            "without nested repetition"
        ) from None
    except engine.error as exc:
        raise RegexError(str(exc)) from None
