"""The Watch screen, its paste dialog, `w` on the Order and Payout screens, the header's
counts, and the watch list resuming after a restart: Pilot against the real simulator."""

from __future__ import annotations

import dataclasses
import sqlite3
import time
import uuid

import pytest
from apps import app_on, demo_profiles, notifications, rendered, settle, until
from textual.widgets import DataTable, TextArea
from watch_support import payout_code, place

from tui.api.client import RetryPolicy
from tui.app import AppSettings, build_app
from tui.local.config import SecretSource
from tui.local.fileio import data_dir
from tui.local.watchlist import FILE_NAME, WatchList
from tui.screens.watch import WatchScreen
from tui.screens.watch_paste import PasteDialog
from tui.simulator.settings import TIMING_PRESETS

SIZE = (100, 30)


def table_rows(screen) -> list[list[str]]:
    table = screen.query_one("#watch-table", DataTable)
    return [[getattr(cell, "plain", str(cell)) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def counting_bell(app) -> list[int]:
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # Textual's bell writes to the terminal; count it instead
    return rings


async def open_watch(app, pilot) -> WatchScreen:
    await pilot.press("9")
    await settle(pilot)
    assert isinstance(app.screen, WatchScreen)
    return app.screen


async def test_pasted_lines_are_classified_watched_and_announced_when_final(sim):
    good, bad = place(sim, "10.00"), place(sim, "10.13")
    code = payout_code(sim, "ann@example.com")  # PayPal: Completed at once
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        rings = counting_bell(app)
        screen = await open_watch(app, pilot)
        assert "Nothing watched yet" in rendered(screen, "#watch-summary")
        await pilot.press("a")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PasteDialog)
        dialog.query_one(TextArea).load_text(f"{good}\n{bad}\n\n{code}\n{good}\n")
        await pilot.pause()
        preview = rendered(dialog, "#paste-preview")
        assert preview.startswith("2 orders, 1 payout")
        assert code.rsplit("/", 1)[1][:8] not in preview  # the weblink is masked as soon as it is classified
        await pilot.press("ctrl+s")
        await until(
            pilot,
            lambda: all(row[3].startswith("final") for row in table_rows(screen)) and len(table_rows(screen)) == 3,
        )

        rows = {row[1]: row for row in table_rows(screen)}
        assert rows[good][2:4] == ["Succeeded", "final"]
        assert rows[bad][2:4] == ["Failed", "final ⚠"]
        payout = next(row for label, row in rows.items() if label not in (good, bad))
        assert payout[0] == "payout" and payout[2] == "Completed" and "****" in payout[1]
        # Items ending within moments of each other are told together: one bell per toast, each item once.
        await until(pilot, lambda: all(rid in "\n".join(notifications(app)) for rid in (good, bad)), timeout=5)
        told = [n for n in notifications(app) if " ended " in n]
        assert len(rings) == len(told) <= 3
        said = "\n".join(told)
        assert said.count(bad) == said.count(good) == 1
        assert f"Order {bad} ended Failed. It needs attention." in said
        assert f"Order {good} ended Succeeded." in said
        assert any(n.severity == "error" and bad in n.message for n in app._notifications)
        assert "watching 0 · 1 need attention" in rendered(screen, "ContextBar")

        await pilot.press("x")  # the first row: the good order
        await pilot.pause()
        assert good not in {row[1] for row in table_rows(screen)}


async def test_the_list_resumes_after_a_restart(sim):
    slow = place(sim, "10.14")  # a Paused card keeps it Pending a few seconds
    first = app_on(sim)
    async with first.run_test(size=SIZE) as pilot:
        await first.navigate("order", slow)
        await settle(pilot)
        await pilot.press("w")
        await pilot.pause()
        assert any("Watching order" in n for n in notifications(first))
        assert [i.reference for i in first.watch_list.items()] == [slow]

    again = app_on(sim)
    async with again.run_test(size=SIZE) as pilot:
        screen = await open_watch(again, pilot)
        assert [row[1] for row in table_rows(screen)] == [slow]
        await until(pilot, lambda: table_rows(screen)[0][3] == "final", timeout=30)
        assert table_rows(screen)[0][2] == "Succeeded"


async def test_the_watch_list_starts_after_the_first_rows_and_the_header_counts_it(sim):
    slow = place(sim, "10.14")
    store = WatchList()
    store.add("demo-sandbox", "order", slow)
    store.close()
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await until(pilot, lambda: "watching 1" in rendered(screen, "ContextBar"))  # put off, then started by itself
        assert screen.query_one("#brands").row_count > 0  # the catalog's first rows came first
        assert [item.reference for item in app.watch_list.items()] == [slow]


async def test_w_on_the_payout_screen_pins_the_payout_masked(sim):
    code = payout_code(sim, "stuck@example.com")
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("payout", code)
        await until(pilot, lambda: app.screen.panel_token is not None)  # it looks the status up, then keeps watching
        await pilot.press("w")
        await pilot.pause()
        [item] = app.watch_list.items()
        assert item.kind == "payout" and item.label.startswith("****") and code.rsplit("/", 1)[1][:8] not in item.label
        screen = await open_watch(app, pilot)
        await until(pilot, lambda: table_rows(screen) and table_rows(screen)[0][2] == "Pending")
        assert "watching 1 · 0 need attention" in rendered(screen, "ContextBar")


async def test_items_of_another_profile_wait_for_it(sim):
    request_id = place(sim)
    store = WatchList()
    store.add("demo-production", "order", request_id)
    store.close()
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_watch(app, pilot)
        assert table_rows(screen) == []  # not this profile's
        await pilot.pause(0.5)
    [item] = WatchList().items("demo-production")
    assert item.status is None  # never asked for while its profile was not active


async def test_at_80_columns_no_column_is_cut_and_the_detail_is_said_whole_under_the_table(sim):
    # Issue 26's walk: a RequestId takes 36 cells, and the Detail column showed as "De" at the edge.
    request_id = place(sim, "10.00")
    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        app.watch_list.add_order(request_id)
        screen = await open_watch(app, pilot)
        await until(pilot, lambda: screen.query_one(DataTable).row_count == 1 and app.watch_list.items()[0].detail)
        await settle(pilot)
        lines = [strip.text for strip in screen._compositor.render_strips()]
        header = next(line for line in lines if line.lstrip().startswith("Kind"))
        assert header.split()[-2:] == ["Last", "change"]  # the last column whole, nothing cut after it
        line = screen.query_one("#watch-detail").content_region
        said = " ".join(" ".join(text[line.x : line.right] for text in lines[line.y : line.bottom]).split())
        assert said == f"{request_id} · {app.watch_list.items()[0].detail} · enter opens it"
        await pilot.resize_terminal(160, 48)
        await settle(pilot)
        assert "Detail" in screen.columns and not screen.query_one("#watch-detail").display


async def test_an_empty_list_shows_no_detail_line_and_x_says_there_is_nothing_to_remove(sim):
    app = app_on(sim)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_watch(app, pilot)
        assert not screen.query_one("#watch-detail").display  # no empty rule and line at the bottom
        await pilot.press("x")
        assert "Nothing to remove: the watch list is empty." in notifications(app)


# --- snapshots -----------------------------------------------------------------------------


@pytest.fixture
def fixed_list(monkeypatch):
    """Three final items with fixed times, so the screen draws the same every time."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    store = WatchList()
    rows = [
        ("order", "REQ-2026-0001", "Succeeded", "3 of 3 cards sold"),
        ("order", "REQ-2026-0002", "PartialFailed", "2 of 3 cards sold, 1 failed"),
        ("payout", "https://pay.example.test/payout/c25hcHNob3QtdG9rZW4tMDE%3D", "Returned", "TX-77"),
    ]
    for kind, reference, status, detail in rows:
        item = store.add("demo-sandbox", kind, reference)
        store.record(item.id, status, True, detail)
    store.close()
    with sqlite3.connect(data_dir() / FILE_NAME) as db:
        db.execute("UPDATE items SET changed_at = '2026-01-02T13:45:07+00:00', added_at = '2026-01-02T13:40:00+00:00'")
    yield
    monkeypatch.delenv("TZ")
    time.tzset()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot_watch_screen(sim, snap_compare, fixed_list, size):
    app = app_on(sim)

    async def run_before(pilot) -> None:
        await open_watch(app, pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_snapshot_paste_dialog(sim, snap_compare):
    app = app_on(sim)

    async def run_before(pilot) -> None:
        await open_watch(app, pilot)
        await pilot.press("a")
        await pilot.pause()
        app.screen.query_one(TextArea).load_text(
            "REQ-2026-0001\nREQ-2026-0002\nhttps://pay.example.test/payout/c25hcHNob3QtdG9rZW4tMDE%3D\n"
        )
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


async def test_a_refused_credential_is_one_toast_not_one_per_item(sim):
    store = WatchList()
    for _ in range(3):
        store.add("broken", "order", str(uuid.uuid4()))
    store.close()
    profiles = demo_profiles(sim.base_url)
    profiles["broken"] = dataclasses.replace(
        profiles["demo-sandbox"], name="broken", secret=SecretSource.inline_demo("wrong-secret")
    )
    app = build_app(
        AppSettings(profiles=profiles, profile_name="broken", client_options={"retry": RetryPolicy(attempts=1)})
    )
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: any("401" in n for n in notifications(app)))
        await pilot.pause(2.0)  # every item (and the catalog) has been refused meanwhile, some twice
        assert sum("Authentication failed (401)" in n for n in notifications(app)) == 1
        assert app.watch_list.counts() == (3, 0)  # still followed: fixing the profile resumes them


async def test_an_item_settled_by_an_event_says_so(sim):
    slow = place(sim, "10.14")  # Pending a few seconds: the event settles it before any look could
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_watch(app, pilot)
        app.watch_list.add_order(slow)
        assert app.watch_list.settle_order(
            slow, "Succeeded", "settled by event msg_0f3a"
        )  # what the receiver's work does
        await until(pilot, lambda: table_rows(screen) and table_rows(screen)[0][3] == "final")
        [row] = table_rows(screen)
        assert (row[1], row[2]) == (slow, "Succeeded")
        assert "settled by event msg_0f3a" in rendered(screen, "#watch-detail")  # below 120 columns, under the table


async def test_a_burst_of_settled_orders_is_one_bell_and_one_toast(sim_factory):
    # A receiver settling 20 orders a second: a toast (and a bell) per order laid the screen out 20 times
    # a second in every giftdesk of the team (bench/team.py's figure 19); they are told together.
    sim = sim_factory(timing=TIMING_PRESETS["fast"].replace(pause_seconds=3600.0))
    orders = [place(sim, "10.14") for _ in range(12)]  # Pending until their event settles them
    failed = orders[0]
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        rings = counting_bell(app)
        for request_id in orders:
            app.watch_list.add_order(request_id)
        await pilot.pause()
        for request_id in orders:
            assert app.watch_list.settle_order(
                request_id, "Failed" if request_id == failed else "Succeeded", "settled by event"
            )
        await until(pilot, lambda: "watching 0 · 1 need attention" in rendered(app.screen, "ContextBar"))
        await until(pilot, lambda: any(" ended " in n for n in notifications(app)))
        await pilot.pause(0.3)
        [told] = [n for n in app._notifications if " ended " in n.message]
        assert len(rings) == 1
        assert told.severity == "error"  # one of them needs attention
        assert f"Order {failed} ended Failed. It needs attention." in told.message
        assert "And 7 more ended: the Watch screen lists them." in told.message


async def test_a_watch_list_that_stops_following_says_so(sim):
    """Its store failing ended the following silently: the list stopped moving, and nobody knew."""
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await open_watch(app, pilot)
        app.watch_list.add_order(place(sim, "10.14"))
        app.watch_list.store.close()  # what is seen can no longer be recorded, as with a file gone bad
        await until(pilot, lambda: any("stopped following its items" in said for said in notifications(app)))


async def test_pinning_an_order_already_final_is_one_toast_that_says_so(sim):
    done = place(sim, "10.00")
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("order", done)
        await until(pilot, lambda: app.screen.order is not None and app.screen.order.status == "Succeeded", timeout=10)
        await settle(pilot)
        app.clear_notifications()  # "is final" when it ended while shown: not the pin's to say
        await pilot.press("w")
        await settle(pilot)
        await pilot.pause(1.2)  # past the moment an ended item would be told
        told = [n for n in notifications(app) if done in n]
        assert told == [f"Order {done} is already final (Succeeded): nothing to watch."]
        assert app.watch_list.items() == []


async def test_a_payout_watched_before_its_redeem_says_issued_not_redeemed_then_moves_on(sim):
    """Issue 35, break 3: the natural move right after selling a payout card; never "Refused, final"."""
    import httpx
    from watch_support import CREDENTIAL

    from tui.core.watching import NOT_REDEEMED

    request_id = place(sim, "10.00")
    with httpx.Client(base_url=sim.base_url, auth=CREDENTIAL.auth) as http:
        await_sold = time.monotonic() + 10
        while not (cards := http.get(f"/api/integration/v1.0/orders/{request_id}").json()["items"][0]["cards"]) or (
            cards[0]["status"] != "Sold"
        ):
            assert time.monotonic() < await_sold
            time.sleep(0.05)
        code = cards[0]["cardCode"]
        app = app_on(sim)
        async with app.run_test(size=SIZE) as pilot:
            app.watch_list.add_payout(code)
            screen = await open_watch(app, pilot)
            await until(pilot, lambda: table_rows(screen) and table_rows(screen)[0][2] == NOT_REDEEMED)
            assert table_rows(screen)[0][3] == "watching"  # not final: looked at again, slowly
            redeemed = http.post(
                f"/api/Integration/v2/payout/redeem/{code.rsplit('/', 1)[1]}",
                json={"wallet": "PayPal", "recipientEmail": "ann@example.com"},
            )
            assert redeemed.status_code in (200, 202)
            await until(pilot, lambda: table_rows(screen)[0][2] not in (NOT_REDEEMED, "Refused"), timeout=20)
