"""How fresh a screen's data is (issue 27): "as of 12:04 (3 min ago)", from the local copy or the service,
and when a refresh the provider's limits refused will be possible."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from tui.local.report_copies import as_of

if TYPE_CHECKING:
    from tui.local.report_copies import Answer

clock = time.time  # tests fix it
REDRAW_SECONDS = 30.0  # "3 min ago" keeps up while the screen stays open


def text_for(answer: Answer[Any]) -> str:
    """The freshness of an answer, said in a few words."""
    text = as_of(answer.fetched, clock())
    if answer.refused is not None and answer.refused.retry_after is not None:
        moment = time.strftime("%H:%M", time.localtime(clock() + answer.refused.retry_after))
        text += f"; the provider's limit allows a refresh at {moment}"
    return text


class FreshnessMixin:
    """A screen that says how fresh its data is in a line of its own choosing (`draw_freshness`)."""

    freshness: Answer[Any] | None = None

    def show_freshness(self, answer: Answer[Any]) -> None:
        if self.freshness is None:
            self.set_interval(REDRAW_SECONDS, self._redraw_freshness)  # type: ignore[attr-defined]
        self.freshness = answer
        self._redraw_freshness()

    def freshness_text(self) -> str:
        return text_for(self.freshness) if self.freshness is not None else ""

    def _redraw_freshness(self) -> None:
        self.draw_freshness(self.freshness_text())

    def draw_freshness(self, text: str) -> None:
        raise NotImplementedError
