"""The one "did you mean" of every message that names something unknown: a key, a choice, a
scenario, a file."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(given: str, choices: Iterable[str]) -> str | None:
    """The choice ``given`` is most likely a misspelling of, if one is close enough."""
    found = difflib.get_close_matches(given, list(choices), n=1)
    return found[0] if found else None


def did_you_mean(given: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a misspelt ``given``, else nothing."""
    guess = closest(given, choices)
    return f" (did you mean '{guess}'?)" if guess is not None else ""
