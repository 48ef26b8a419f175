"""Days and day ranges as the order-history and transactions endpoints take them.

The provider reads `startDate` and `endDate` as days (YYYY-MM-DD), both
included. People type `2026-11-01`, `today`, `yesterday` or `7d` (seven days
ago); one parser serves the CLI and the TUI.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

_DAYS_AGO = re.compile(r"^(\d{1,4})d$")


class DateInvalid(ValueError):
    """A day or range a person typed that cannot be used; the message says what to type."""


def parse_day(text: str, *, today: date) -> date:
    value = text.strip().lower()
    if value == "today":
        return today
    if value == "yesterday":
        return today - timedelta(days=1)
    ago = _DAYS_AGO.match(value)
    if ago:
        return today - timedelta(days=int(ago.group(1)))
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise DateInvalid(f"{text!r} is not a day: use YYYY-MM-DD, today, yesterday or Nd (N days ago)") from None


@dataclass(frozen=True)
class DayRange:
    start: date
    end: date

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise DateInvalid(_reversed(self.start, self.end, None))

    @classmethod
    def parse(cls, start: str, end: str | None, *, today: date, names: tuple[str, str] | None = None) -> DayRange:
        """`names`: what the days were typed into, for the message (the CLI's `--from`, `--to`)."""
        first, last = parse_day(start, today=today), parse_day(end, today=today) if end else today
        if last < first:
            raise DateInvalid(_reversed(first, last, names))
        return cls(first, last)

    @classmethod
    def last_days(cls, days: int, *, today: date) -> DayRange:
        """The last `days` days, today included (1 = today only)."""
        return cls(today - timedelta(days=max(days, 1) - 1), today)

    def to_wire(self) -> dict[str, str]:
        return {"startDate": self.start.isoformat(), "endDate": self.end.isoformat()}

    def __contains__(self, day: object) -> bool:
        return isinstance(day, date) and self.start <= day <= self.end

    def __str__(self) -> str:
        return str(self.start) if self.start == self.end else f"{self.start} to {self.end}"


def _reversed(start: date, end: date, names: tuple[str, str] | None) -> str:
    swap = " and ".join(names) if names else "the two days"
    return f"the range ends ({end}) before it starts ({start}): swap {swap}"
