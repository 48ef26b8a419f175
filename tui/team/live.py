"""Hearing the team's changes as they happen: LISTEN on the `giftdesk` channel (psycopg 3, async).

Every store announces its changes with NOTIFY in the transaction that makes
them (tui.team.database.CHANNEL), so a listener hears each one once it is
committed, without polling the database. `TeamListener.run` listens until
cancelled: when the connection goes (the server stopped, the network), it
says so (`on_reachable(False)`) and tries again every second; when it is back
it says so (`on_reachable(True)`), and the caller reads again what it shows,
since changes made meanwhile were not heard. No Textual.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

import psycopg

from tui.team.database import CHANNEL, TeamDatabase, TeamUnreachable

log = logging.getLogger("giftdesk.team")

RETRY_SECONDS = 1.0
# While listening, this often the listener says the database answers: a store's call that failed meanwhile
# (a pool timeout on a loaded machine) marked the link down, and the link does not probe by itself.
ALIVE_SECONDS = 1.0

Change = Mapping[str, Any]  # {"what": "watch" | "note" | "inbox", "profile": ..., and the changed thing's id}


class TeamListener:
    def __init__(
        self, database: TeamDatabase, on_change: Callable[[Change], None], on_reachable: Callable[[bool], None]
    ) -> None:
        self.database = database
        self.on_change = on_change
        self.on_reachable = on_reachable
        self.listening = asyncio.Event()  # set while LISTEN is in place (tests wait for it)

    async def run(self) -> None:
        while True:
            try:
                await self._listen()
            except (TeamUnreachable, psycopg.OperationalError) as error:
                log.debug("team listener: %s", error)
            self.listening.clear()
            self.on_reachable(False)
            await asyncio.sleep(RETRY_SECONDS)

    async def _listen(self) -> None:
        connection = await self.database.connect_async()
        try:
            await connection.execute(f"LISTEN {CHANNEL}")
            self.listening.set()
            while True:
                self.on_reachable(True)  # a change of state only: said once
                async for notice in connection.notifies(timeout=ALIVE_SECONDS):
                    change = _change(notice.payload)
                    if change is not None:
                        self.on_change(change)
        finally:
            await connection.close()


def _change(payload: str) -> Change | None:
    try:
        change = json.loads(payload)
    except ValueError:
        return None
    return change if isinstance(change, dict) and isinstance(change.get("what"), str) else None
