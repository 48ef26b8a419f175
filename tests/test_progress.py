"""tui.commands.progress: a bar on a terminal's stderr, nothing on a pipe."""

from __future__ import annotations

import io
import os
import pty

from tui.commands.progress import progress


def test_nothing_is_written_when_the_stream_is_not_a_terminal():
    stream = io.StringIO()
    with progress("fetching pages", 3, stream=stream) as advance:
        for _ in range(3):
            advance()
        advance(total=4)
    assert stream.getvalue() == ""


def test_a_terminal_gets_a_bar_with_the_description():
    leader, follower = pty.openpty()
    try:
        with os.fdopen(follower, "w", closefd=False) as stream:
            with progress("fetching pages", 2, stream=stream) as advance:
                advance()
                advance()
            stream.flush()
        written = os.read(leader, 65536).decode(errors="replace")
    finally:
        os.close(leader)
        os.close(follower)
    assert "fetching pages" in written
