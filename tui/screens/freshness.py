"""How fresh a screen's data is (issue 27): "as of 12:04 (3 min ago)", from the local copy or the service,
when a refresh the provider's limits refused will be possible, and when the screen refreshes by itself.

An open screen whose data can still change (today's ledger and board, the rates) looks again when its
local copy falls due (`Answer.renew_at`: the limit's spacing, or the rates' keeping time), never sooner:
the copy and the limiter decide when the service is asked, the screen only looks. A range of days that
have all ended is never asked again.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tui.local.ages import as_of

if TYPE_CHECKING:
    from textual.timer import Timer

    from tui.local.report_copies import Answer

clock = time.time  # tests fix it
REDRAW_SECONDS = 30.0  # "3 min ago" keeps up while the screen stays open
RETRY_SECONDS = 60.0  # a refresh by itself that failed (reported) is tried again after this, if none came since
SHORTEST_RENEWAL = 5.0  # seconds: a screen never refreshes by itself more often (nobody reads faster)


def text_for(answer: Answer[Any], renews_at: float | None = None) -> str:
    """The freshness of an answer, said in a few words; `renews_at`: when the screen next looks by itself."""
    text = as_of(answer.fetched, clock())
    if answer.allowed_at is not None and answer.allowed_at > clock():  # set by a refusal that said when
        text += f"; the provider's limit allows a refresh at {_moment(answer.allowed_at)}"
        if renews_at is not None:
            text += ", done by itself then"
    elif renews_at is not None:
        text += f" · refreshes by itself at {_moment(renews_at)}"
    return text


def _moment(at: float) -> str:
    return time.strftime("%H:%M", time.localtime(at))


class FreshnessMixin:
    """A screen that says how fresh its data is in a line of its own choosing (`draw_freshness`), and,
    when it REFRESHES_BY_ITSELF, looks again (`renew`, taking the copy) when its copy falls due."""

    REFRESHES_BY_ITSELF = False  # the catalog's v1 list does not: its 2/hour are kept for `r`
    LOAD_GROUP = ""  # the worker group of the screen's loads (`r`, a new range), which a refresh never cancels
    freshness: Answer[Any] | None = None
    _renewal: Timer | None = None
    _renews_at: float | None = None  # when the timer looks again (time.time), as the line says it

    def show_freshness(self, answer: Answer[Any]) -> None:
        if not self.REFRESHES_BY_ITSELF:
            answer = replace(answer, renew_at=None)
        if self.freshness is None:
            self.set_interval(REDRAW_SECONDS, self._redraw_freshness)  # type: ignore[attr-defined]
        self.freshness = answer
        seconds = answer.renew_in(clock())
        self._renew_after(None if seconds is None else max(seconds, SHORTEST_RENEWAL))

    def data_as_of(self, group: str) -> float | None:
        """The status line's "last good data as of" for the screen's loads: the answer's own time (a local
        copy may be older); another group's data came now."""
        return self.freshness.fetched if group == self.LOAD_GROUP and self.freshness is not None else None

    def freshness_text(self) -> str:
        return text_for(self.freshness, self._renews_at) if self.freshness is not None else ""

    def _redraw_freshness(self) -> None:
        self.draw_freshness(self.freshness_text())

    def _renew_after(self, seconds: float | None) -> None:
        """The next refresh by itself, replacing any other (None: nothing shown can change any more)."""
        if self._renewal is not None:
            self._renewal.stop()
        self._renewal = None if seconds is None else self.set_timer(seconds, self._renew)  # type: ignore[attr-defined]
        self._renews_at = None if seconds is None else clock() + seconds
        self._redraw_freshness()  # a refresh that failed leaves the answer, not the time it said

    def _renew(self) -> None:
        self._renew_after(RETRY_SECONDS)  # replaced by the answer's own when it comes
        if not self.working(self.LOAD_GROUP):  # type: ignore[attr-defined]  # else the load under way answers
            self.renew()

    def draw_freshness(self, text: str) -> None:
        raise NotImplementedError

    def renew(self) -> None:
        """Look again as the screen is (its range, its base), taking the local copy."""
        raise NotImplementedError
