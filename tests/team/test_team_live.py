"""LISTEN/NOTIFY on a real PostgreSQL: every store's change is heard by another connection, and a
link marked down by one failed call is marked up again while the listener's connection answers."""

from __future__ import annotations

import asyncio
import json
import time

from team_support import operator_database

from tui.team.mode import TeamMode
from tui.team.notes import TeamNotes
from tui.team.watchlist import TeamWatchList

CARD_CODE = "https://payout.example.test/redeem/Zm9vYmFyYmF6cXV4MTIzNDU2%3D"


async def eventually(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_changes_are_heard_with_what_changed(team_database, link):
    team = TeamMode(operator_database(team_database, "bo"), user="bo", host="desk-2")
    heard: list[dict] = []
    listener = team.listener(heard.append)
    task = asyncio.create_task(listener.run())
    try:
        await asyncio.wait_for(listener.listening.wait(), 10)
        item = TeamWatchList(link, "sandbox").add("prod", "order", "REQ-1")
        note = TeamNotes(link, "sandbox").add("prod", "REQ-1", "customer called")
        TeamWatchList(link, "sandbox").add("prod", "payout", CARD_CODE)
        await eventually(lambda: len(heard) == 3)
        watch, noted, payout = heard
        assert "Zm9vYmFy" not in json.dumps(payout)  # its weblink is never told
        # A hint of which row changed, nothing of what it holds: whoever hears it reads the row again.
        assert watch == {"what": "watch", "profile": "prod", "environment": "sandbox", "id": item.id}
        assert (noted["what"], noted["id"], noted["requestId"]) == ("note", note.id, "REQ-1")
        read_back = TeamWatchList(team.link, "sandbox").heard(watch)
        assert read_back == item and read_back.pinned_by == "ana"  # the login that pinned it, stamped by the database

        team.link.mark(False)  # as a pool timeout on a loaded machine would
        await eventually(lambda: team.link.reachable, timeout=5)
    finally:
        task.cancel()
        team.close()
