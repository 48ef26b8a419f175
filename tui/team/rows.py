"""Reading the team's rows one by one: a malformed row (anyone may have written it) is skipped and logged,
and hides nothing else (DESIGN rule 13). No Textual."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

log = logging.getLogger("giftdesk.team")

T = TypeVar("T")


def readable(rows: Iterable[Any], convert: Callable[[Any], T], what: str) -> list[T]:
    """Each row converted; a row that does not convert is left out, and said in the log (its first column)."""
    kept: list[T] = []
    for row in rows:
        try:
            kept.append(convert(row))
        except (TypeError, ValueError, KeyError) as error:
            log.warning("team %s: skipped an unreadable row (%s): %s", what, row[0] if row else "?", error)
    return kept
