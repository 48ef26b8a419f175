"""The session's watch service without Textual: the store, the scheduler and the client
together, against the simulator; an order event ends a watched order at once, also one that another
process's receiver settled in the file."""

from __future__ import annotations

import asyncio

from watch_support import CREDENTIAL, place

from tui.local.profiles import demo_profile
from tui.local.watchlist import WatchList
from tui.session import Session
from tui.watch_service import WatchService


async def test_an_order_event_settles_a_watched_order_and_it_is_kept(sim, tmp_path):
    session = Session(
        demo_profile("demo-sandbox", "sandbox", sim.base_url, CREDENTIAL.client_id, CREDENTIAL.client_secret)
    )
    heard: list[tuple[str, str | None, bool]] = []
    service = WatchService(
        session,
        store=WatchList(tmp_path / "w.sqlite3"),
        on_change=lambda item, went_final: heard.append((item.reference, item.status, went_final)),
    )
    slow = place(sim, "10.14")  # Pending for a few seconds: the callback comes first here
    service.add_order(slow)
    service.start()
    while not any(status == "Pending" for _, status, _ in heard):
        await asyncio.sleep(0.05)
    assert service.watched_orders() == [slow]
    assert service.settle_order(slow, "Succeeded", "settled by event msg_1") is True
    assert service.settle_order("not-watched", "Succeeded", "settled by event msg_2") is False
    assert heard[-1] == (slow, "Succeeded", True)
    assert service.counts() == (0, 0)
    await session.close()  # stops the service with the session

    [kept] = WatchList(tmp_path / "w.sqlite3").items("demo-sandbox")
    assert (kept.reference, kept.status, kept.final, kept.detail) == (slow, "Succeeded", True, "settled by event msg_1")


async def test_a_stopped_service_follows_nothing_and_its_closed_store_is_not_read(sim, tmp_path):
    # A redraw timer firing after the session ended asked the closed store, and the app stopped.
    session = Session(
        demo_profile("demo-sandbox", "sandbox", sim.base_url, CREDENTIAL.client_id, CREDENTIAL.client_secret)
    )
    service = WatchService(session, store=WatchList(tmp_path / "w.sqlite3"))
    service.add_order(place(sim, "10.14"))
    service.start()
    assert service.counts() == (1, 0) and len(service.items()) == 1
    await session.close()
    assert service.counts() == (0, 0) and service.items() == []
    [kept] = WatchList(tmp_path / "w.sqlite3").items("demo-sandbox")  # still on disk for the next start
    assert not kept.final


async def test_an_item_settled_in_the_file_by_another_process_ends_here_too(sim, tmp_path):
    session = Session(
        demo_profile("demo-sandbox", "sandbox", sim.base_url, CREDENTIAL.client_id, CREDENTIAL.client_secret)
    )
    service = WatchService(session, store=WatchList(tmp_path / "w.sqlite3"))
    slow = place(sim, "10.14")
    item = service.add_order(slow)
    service.start()
    other = WatchList(tmp_path / "w.sqlite3")  # `giftdesk listen`'s connection
    other.record(item.id, "Succeeded", True, "settled by event msg_9")
    service.pick_up_settled()
    [watched] = service.scheduler.items
    assert (watched.status, watched.final) == ("Succeeded", True)
    assert service.counts() == (0, 0)
    await session.close()
    other.close()


async def test_following_that_stops_for_good_is_said_not_swallowed(sim, tmp_path):
    """The store failing under the scheduler ended its task, and the list silently stopped moving."""
    session = Session(
        demo_profile("demo-sandbox", "sandbox", sim.base_url, CREDENTIAL.client_id, CREDENTIAL.client_secret)
    )
    store = WatchList(tmp_path / "w.sqlite3")
    stopped: list[BaseException] = []
    service = WatchService(session, store=store, on_stopped=stopped.append)
    service.add_order(place(sim, "10.14"))
    store.close()  # what is seen can no longer be recorded, as with a file gone bad
    service.start()
    for _ in range(200):
        if stopped:
            break
        await asyncio.sleep(0.05)
    assert stopped, "the failure was not said"
    await session.close()
