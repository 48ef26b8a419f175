"""Field terms in what a person types into the offline search: `cinema country:fr currency:eur`.

A term `country:XX` or `currency:XXX` (any case) narrows the search as the v2 filters do; the other
words are searched for. A bare `fr` stays a word (it is the start of "frozen" and "Fresh" too): only
the `country:` form says "a country" (docs/decisions.md). No Textual here.
"""

from __future__ import annotations

import re

_TERM = re.compile(r"(?i)\b(country|currency):([A-Za-z]+)\b")
_LENGTHS = {"country": 2, "currency": 3}


def split_terms(text: str) -> tuple[str, dict[str, str]]:
    """(the words left to search for, {"country": "FR", "currency": "EUR"} for the terms given)."""
    terms: dict[str, str] = {}

    def take(match: re.Match[str]) -> str:
        name, value = match.group(1).lower(), match.group(2)
        if len(value) != _LENGTHS[name]:
            return match.group(0)  # not a code: left as words
        terms[name] = value.upper()
        return " "

    return " ".join(_TERM.sub(take, text).split()), terms
