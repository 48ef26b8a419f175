"""The line above the keys of every screen: what its data cannot say itself (issue 35, DESIGN rule 12).

- Stale: the last refresh failed. The screen keeps its last good data; this line says how old it is (as of
  its last success, aging as the screen stays open) and why the refresh failed, until one succeeds.
- Progress: a retry, or a wait for the provider's turn: one line said in place, never a toast each (a
  stack of toasts covered half an 80x24 screen and the buttons of a dialog).
- Refreshing: a refresh over rows on screen is under way, said until it ends however long it takes (its
  timeouts and retries can take ~90 s); a retry or a wait is said over it while it lasts.

Hidden while there is nothing to say: a screen whose data is fresh looks as it always did.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual.widgets import Static

from tui.local.ages import as_of
from widgets.safe_text import safe

clock = time.time  # tests move it
REDRAW_SECONDS = 30.0  # "12 min ago" keeps up while the screen stays open
ERROR_CHARACTERS = 160  # the error's first line, cut: the whole of it was said when it happened


class StatusLine(Static):
    DEFAULT_CSS = """
    StatusLine {
        dock: bottom;
        margin-bottom: 1;  /* above the keys (docked to the bottom too): docked widgets of one edge overlap */
        height: auto;
        max-height: 3;
        width: 100%;
        padding: 0 1;
        display: none;
        background: $warning 30%;
        color: $text;
    }
    StatusLine.-stale {
        background: $error 35%;
    }
    """

    progress: str | None = None
    _progress_until = 0.0

    def __init__(self) -> None:
        super().__init__()
        # Per part of the screen's data (a worker group: the accounts, the ledger): its last success
        # (wall-clock seconds), and why its last refresh failed and when, while it has not succeeded since.
        self._as_of: dict[str, float] = {}
        self._failed: dict[str, tuple[str, float]] = {}
        self._refreshing: dict[str, float] = {}  # a part whose refresh is under way: since when

    def on_mount(self) -> None:
        self.set_interval(REDRAW_SECONDS, self._redraw)

    @property
    def stale(self) -> bool:
        return bool(self._failed)

    def succeeded(self, as_of: float | None = None, part: str = "") -> None:
        """A refresh of `part` came: it is fresh, as of `as_of` (its local copy's time; default now)."""
        self._as_of[part] = clock() if as_of is None else as_of
        self._failed.pop(part, None)
        self._refreshing.pop(part, None)
        self.progress = None
        self._redraw()

    def forget(self, part: str = "") -> None:
        """What `part` showed is gone (another range of days asked for): until it loads, nothing of it is."""
        self._as_of.pop(part, None)

    def failed(self, error: BaseException | str, part: str = "") -> None:
        """A refresh of `part` failed: what is shown stays, said stale with its age and why."""
        text = str(error).strip().splitlines()
        self._failed[part] = (text[0] if text else type(error).__name__, clock())
        self._refreshing.pop(part, None)
        self.progress = None
        self._redraw()

    def refresh_started(self, part: str = "") -> None:
        """A refresh of `part` is under way: said until it succeeds, fails, or is given up (`refresh_ended`)."""
        self._refreshing[part] = clock()
        self._redraw()

    def refresh_ended(self, part: str = "") -> None:
        """The refresh of `part` was given up without an answer (cancelled): what was said before stands."""
        if self._refreshing.pop(part, None) is not None:
            self._redraw()

    def say_progress(self, text: str, seconds: float) -> None:
        """A retry or a wait, said in place of the last one, for `seconds` (then the line says what it said before)."""
        self.progress, self._progress_until = text, clock() + seconds
        self._redraw()
        self.set_timer(seconds + 0.5, self._redraw)

    def words(self) -> Text:
        now = clock()
        if self.progress is not None and now < self._progress_until:
            return safe(f"⟳ {self.progress}")
        if self._refreshing:
            since = time.strftime("%H:%M:%S", time.localtime(min(self._refreshing.values())))
            return Text(f"⟳ Refreshing… (asked at {since})")
        if not self._failed:
            return Text("")
        part, (error, failed_at) = next(iter(self._failed.items()))
        failed = time.strftime("%H:%M", time.localtime(failed_at))
        error = error if len(error) <= ERROR_CHARACTERS else error[: ERROR_CHARACTERS - 1] + "…"
        last = self._as_of.get(part)
        if last is None:
            return safe(f"⚠ Nothing loaded: the load at {failed} failed: {error} · r: reload")
        return safe(f"⚠ Stale: last good data {as_of(last, now)}; the refresh at {failed} failed: {error} · r: reload")

    def _redraw(self) -> None:
        words = self.words()
        self.set_class(self.stale and self.progress is None, "-stale")
        self.display = bool(words.plain)
        self.update(words)
