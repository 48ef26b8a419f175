"""Events do work, from the inbox, against the simulator: order events settle watched orders (Get
order), product events make one coalesced mirror sync, a passing failure leaves the delivery to
be tried again; and end to end, the simulator's order event settles a watched order by itself."""

from __future__ import annotations

import asyncio
import time

import httpx
from watch_support import CREDENTIAL, place

from tui.api.client import RetryPolicy, ServiceClient
from tui.inbox_work import InboxWork, StoredWatch, mirror_syncer, request_ids_in
from tui.listener import Receiver
from tui.local.inbox import CALLBACK, Delivery, SqliteInbox
from tui.local.mirror import Mirror
from tui.local.watchlist import WatchList
from tui.simulator.webhooks import ORDER_COMPLETED, PRODUCT_UPDATED, initial_secret

WAIT_SECONDS = 30.0


def client_of(sim, base_url: str | None = None) -> ServiceClient:
    return ServiceClient(
        base_url or sim.base_url, CREDENTIAL.client_id, CREDENTIAL.client_secret, retry=RetryPolicy(attempts=1)
    )


def getter(client: ServiceClient):
    async def get() -> ServiceClient:
        return client

    return get


async def until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def final_now(sim, request_id: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while (
        httpx.get(f"{sim.base_url}/api/integration/v1.0/orders/{request_id}", auth=CREDENTIAL.auth).json()["status"]
        != "Succeeded"
    ):
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_request_ids_are_read_wherever_the_payload_has_them():
    payload = {
        "data": {"requestId": "A", "items": [{"RequestId": "B"}, {"clientReferenceNumber": "A"}]},
        "requestid": 5,
    }
    assert request_ids_in(payload) == ["A", "B"]
    assert request_ids_in({"data": {"productId": 1}}) == [] and request_ids_in(None) == []


async def test_an_order_event_settles_the_watched_order_it_names(sim, tmp_path):
    watched, other = place(sim), place(sim)
    final_now(sim, watched)
    store = WatchList(tmp_path / "w.sqlite3")
    store.add("acme", "order", watched)
    async with client_of(sim) as client:
        with SqliteInbox("acme", tmp_path / "inbox.sqlite3") as inbox:
            inbox.keep(Delivery.accepted_now("msg_1", ORDER_COMPLETED, {"data": {"requestId": watched}}, "x"))
            inbox.keep(Delivery.accepted_now(f"callback:{other}", CALLBACK, {"requestId": other, "status": "x"}, "x"))
            inbox.keep(Delivery.accepted_now("msg_2", ORDER_COMPLETED, {"data": {"requestId": "W-no-such-order"}}, "x"))
            work = InboxWork(inbox, getter(client), StoredWatch(store, "acme"), None)
            assert await work.process_pending() is True
            assert inbox.unprocessed() == []
            outcomes = {d.event_id: d.outcome for d in inbox.since()}
    [item] = store.items("acme")
    assert (item.status, item.final, item.detail) == ("Succeeded", True, "settled by event msg_1")
    assert outcomes["msg_1"] == f"order {watched} Succeeded; settled on the watch list"
    assert outcomes[f"callback:{other}"].startswith(f"order {other} ")  # looked up, not watched
    assert outcomes["msg_2"].startswith("order W-no-such-order: ")  # the service does not know it


async def test_an_order_event_without_ids_looks_at_every_watched_order_once(sim, tmp_path):
    first, second = place(sim), place(sim)
    final_now(sim, first)
    final_now(sim, second)
    store = WatchList(tmp_path / "w.sqlite3")
    for request_id in (first, second):
        store.add("acme", "order", request_id)
    async with client_of(sim) as client:
        with SqliteInbox("acme", tmp_path / "inbox.sqlite3") as inbox:
            inbox.keep(Delivery.accepted_now("msg_1", ORDER_COMPLETED, {"data": {}}, "x"))
            await InboxWork(inbox, getter(client), StoredWatch(store, "acme"), None).process_pending()
            [done] = inbox.since()
    assert [(i.status, i.detail) for i in store.items("acme")] == [("Succeeded", "settled by event msg_1")] * 2
    assert done.outcome.count("settled on the watch list") == 2


async def test_a_passing_failure_leaves_the_delivery_to_be_tried_again(sim, tmp_path):
    store = WatchList(tmp_path / "w.sqlite3")
    async with client_of(sim, "http://127.0.0.1:9") as unreachable:
        with SqliteInbox("acme", tmp_path / "inbox.sqlite3") as inbox:
            inbox.keep(Delivery.accepted_now("msg_1", ORDER_COMPLETED, {"data": {"requestId": "W-1"}}, "x"))
            assert (
                await InboxWork(inbox, getter(unreachable), StoredWatch(store, "acme"), None).process_pending() is False
            )
            assert [d.event_id for d in inbox.unprocessed()] == ["msg_1"]


async def test_many_product_events_make_one_coalesced_sync(sim_factory, tmp_path):
    sim = sim_factory(brands=20)
    async with client_of(sim) as client:
        with SqliteInbox("acme", tmp_path / "inbox.sqlite3") as inbox:
            for number in range(30):
                inbox.keep(
                    Delivery.accepted_now(f"msg_{number}", PRODUCT_UPDATED, {"data": {"productId": number}}, "x")
                )
            work = InboxWork(
                inbox,
                getter(client),
                StoredWatch(WatchList(tmp_path / "w.sqlite3"), "acme"),
                mirror_syncer("acme", "sandbox", getter(client)),
                sync_gather=0.3,
                sync_window=60.0,
            )
            running = asyncio.create_task(work.run())
            try:
                await until(lambda: not inbox.unprocessed(), "the burst's sync")
                outcomes = {d.outcome for d in inbox.since()}
                assert work._sync.syncs == 1 and outcomes == {"mirror synced (full): 0 change(s)"}
                inbox.keep(Delivery.accepted_now("msg_late", PRODUCT_UPDATED, {}, "x"))
                work.wake()
                await asyncio.sleep(1.0)
                assert work._sync.syncs == 1  # the next sync waits for the window: within the catalog's limits
                assert [d.event_id for d in inbox.unprocessed()] == ["msg_late"]
            finally:
                running.cancel()
    with Mirror.for_profile("acme", "sandbox") as mirror:
        assert mirror.last_sync().brands == 20


async def test_the_simulators_order_event_settles_a_watched_order_without_polling(sim_factory, tmp_path):
    sim = sim_factory(brands=20)
    store = WatchList(tmp_path / "w.sqlite3")
    request_id = place(sim)
    item = store.add("acme", "order", request_id)  # nobody polls it here: only the event can settle it
    async with client_of(sim) as client:
        with (
            SqliteInbox("acme", tmp_path / "inbox.sqlite3") as inbox,
            Receiver(
                lambda: SqliteInbox("acme", tmp_path / "inbox.sqlite3", check_same_thread=False),
                webhook_secrets=(initial_secret(sim.settings.seed, "acme-sandbox"),),
            ) as receiver,
        ):
            work = InboxWork(inbox, getter(client), StoredWatch(store, "acme"), None)
            loop = asyncio.get_running_loop()
            receiver.subscribe(lambda _delivery: loop.call_soon_threadsafe(work.wake))
            running = asyncio.create_task(work.run())
            sim.set_webhook_endpoint("acme-sandbox", receiver.webhook_url)
            # The order was placed before the endpoint was set: a second one brings the event.
            second = place(sim)
            store.add("acme", "order", second)
            try:
                await until(lambda: store.get(item.id + 1).final, "the order event")
            finally:
                running.cancel()
    settled = store.get(item.id + 1)
    assert (settled.reference, settled.status, settled.detail.startswith("settled by event msg_")) == (
        second,
        "Succeeded",
        True,
    )


async def test_an_inbox_that_fails_is_said_and_the_work_goes_on(tmp_path, caplog):
    from tui.core.polling import Backoff

    inbox = SqliteInbox("acme", tmp_path / "inbox.sqlite3")
    inbox.close()  # every read now fails, as a file gone bad would
    work = InboxWork(
        inbox,
        getter(None),
        StoredWatch(WatchList(tmp_path / "w.sqlite3"), "acme"),
        None,
        backoff=Backoff(first=0.05, cap=0.05),
    )
    running = asyncio.create_task(work.run())
    await asyncio.sleep(0.3)
    try:
        assert not running.done()  # still there, trying again
        assert caplog.text.count("the inbox could not be read or marked") >= 2
    finally:
        running.cancel()
