"""The session's watch service without Textual: the store, the scheduler and the client
together, against the simulator; a listener's callback ends a watched order at once."""

from __future__ import annotations

import asyncio

from watch_support import CREDENTIAL, place

from tui.api.models import CallbackPayload
from tui.listener import CallbackAccepted
from tui.local.config import demo_profile
from tui.local.watchlist import WatchList
from tui.session import Session
from tui.watch_service import WatchService


async def test_a_callback_settles_a_watched_order_and_it_is_kept(sim, tmp_path):
    session = Session(demo_profile("demo-sandbox", "sandbox", sim.base_url, CREDENTIAL.client_id, CREDENTIAL.client_secret))
    heard: list[tuple[str, str | None, bool]] = []
    service = WatchService(session, store=WatchList(tmp_path / "w.sqlite3"),
                           on_change=lambda item, went_final: heard.append((item.reference, item.status, went_final)))
    slow = place(sim, "10.14")  # Pending for a few seconds: the callback comes first here
    service.add_order(slow)
    service.start()
    while not any(status == "Pending" for _, status, _ in heard):
        await asyncio.sleep(0.05)
    order_id = 1  # the callback's orderId is not used to settle: its requestId is
    service.settle_callback(CallbackAccepted(1, CallbackPayload.model_validate(
        {"orderId": order_id, "status": "succeeded", "requestId": slow, "secretKey": "s"})))
    assert heard[-1] == (slow, "Succeeded", True)
    assert service.counts() == (0, 0)
    await session.close()  # stops the service with the session

    [kept] = WatchList(tmp_path / "w.sqlite3").items("demo-sandbox")
    assert (kept.reference, kept.status, kept.final, kept.detail) == (slow, "Succeeded", True, "from the callback")


async def test_a_stopped_service_follows_nothing_and_its_closed_store_is_not_read(sim, tmp_path):
    # A redraw timer firing after the session ended asked the closed store, and the app stopped.
    session = Session(demo_profile("demo-sandbox", "sandbox", sim.base_url, CREDENTIAL.client_id, CREDENTIAL.client_secret))
    service = WatchService(session, store=WatchList(tmp_path / "w.sqlite3"))
    service.add_order(place(sim, "10.14"))
    service.start()
    assert service.counts() == (1, 0) and len(service.items()) == 1
    await session.close()
    assert service.counts() == (0, 0) and service.items() == []
    [kept] = WatchList(tmp_path / "w.sqlite3").items("demo-sandbox")  # still on disk for the next start
    assert not kept.final
