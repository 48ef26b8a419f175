"""tui.commands.progress: a bar on a terminal's stderr, nothing on a pipe."""

from __future__ import annotations

import io
import os
import pty
import select

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
        written = _everything_written(leader).decode(errors="replace")
    finally:
        os.close(leader)
        os.close(follower)
    assert "fetching pages" in written


def _everything_written(leader: int) -> bytes:
    """All the bytes waiting on the pty: rich writes the bar in several writes, and one read may get only the first."""
    chunks = []
    while select.select([leader], [], [], 0.5)[0]:
        chunk = os.read(leader, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)
