"""The Orders screen (the triage board): today's order lines, counts, stuck ones, filter, sort, enter.

Behaviour against a simulator with a seeded past, over loopback; the
snapshots against MockTransport answering the documented shape with fixed
dates, so that they do not move with the clock.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from datetime import UTC, date, datetime, timedelta

import httpx
import pytest
from apps import app_on, demo_profiles, export_shown, notifications, rendered, settle, until
from textual.geometry import Region

from tui.app import AppSettings, build_app
from tui.core.dates import DayRange
from tui.core.triage import DEFAULT_STUCK_MINUTES
from tui.local.watchlist import WatchList
from tui.screens.order import OrderScreen
from tui.screens.orders import COLUMNS, STUCK_MARK, OrdersScreen
from tui.simulator import SimulatorServer, SimulatorSettings
from widgets.filter_bar import RowFilter
from widgets.row_table import RowTable

SIZE = (80, 24)
WIDE = (160, 48)
HISTORY = "/api/integration/v1.0/orders"


@pytest.fixture(scope="module")
def seeded():
    with SimulatorServer(
        SimulatorSettings(seed=11, history=120, limits=None)
    ) as server:  # shared by the module: no limits (conftest, sim)
        yield server


def recent_range() -> DayRange:
    """The board's "24 h" (`d`): yesterday and today. The seeded past is placed back from now, so this
    range holds its most recent orders at any time of day; today alone is empty just after midnight."""
    return DayRange.last_days(2, today=date.today())


def recent_lines(sim, demo_credentials) -> list[dict]:
    params = recent_range().to_wire()
    return httpx.get(sim.base_url + HISTORY, params=params, auth=demo_credentials["acme-sandbox"].auth).json()


async def open_board(pilot) -> OrdersScreen:
    await pilot.press("8")
    await until(pilot, lambda: isinstance(pilot.app.screen, OrdersScreen) and not pilot.app.screen.table.loading)
    await settle(pilot)
    return pilot.app.screen


async def open_recent_board(pilot) -> OrdersScreen:
    """The board (which opens on the last 24 hours), then `d` for the recent range."""
    screen = await open_board(pilot)
    await pilot.press("d")
    await until(pilot, lambda: screen.day_range == recent_range() and not screen.table.loading)
    await settle(pilot)
    return screen


def column(screen: OrdersScreen, index: int) -> list[str]:
    table = screen.table
    return [
        str(getattr(table.get_row_at(row)[index], "plain", table.get_row_at(row)[index]))
        for row in range(table.row_count)
    ]


def created_date(sim, demo_credentials, line: dict) -> datetime:
    order = httpx.get(
        f"{sim.base_url}{HISTORY}/{line['clientReferenceNumber']}", auth=demo_credentials["acme-sandbox"].auth
    )
    return datetime.fromisoformat(order.json()["createdDate"])


def summary(screen: OrdersScreen) -> str:
    return str(screen.query_one("#orders-summary").render())


async def test_the_board_opens_on_the_last_24_hours_with_counts_and_stuck_orders(seeded, demo_credentials):
    lines = recent_lines(seeded, demo_credentials)
    assert lines, "the seeded past has recent orders"
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_board(pilot)
        assert screen.day_range == DayRange.last_days(2, today=date.today())  # an incident at 00:10 is on screen
        screen = await open_recent_board(pilot)
        assert screen.table.row_count == len(lines)
        assert set(column(screen, 7)) == {line["clientReferenceNumber"] for line in lines}
        orders = {line["orderNumber"]: line["status"] for line in lines}
        for status, count in Counter(orders.values()).items():
            assert f"{count} {status}" in summary(screen)
        # The report dates orders; the board asks Get order for the time of the not-final ones it needs.
        await until(pilot, lambda: not any(row.time_unknown for row in screen.rows))
        await settle(pilot)
        now = datetime.now(UTC).replace(tzinfo=None)
        stuck = {
            line["clientReferenceNumber"]
            for line in lines
            if line["status"] == "Pending"
            and now - created_date(seeded, demo_credentials, line) > timedelta(minutes=DEFAULT_STUCK_MINUTES)
        }
        flagged = {row.request_id for row in screen.rows if row.stuck}
        assert flagged == stuck and stuck
        assert all(cell.endswith(STUCK_MARK.strip()) for cell in column(screen, 1) if "Pending" in cell)
        assert f"{len({o for o, s in orders.items() if s == 'Pending'})} stuck > 15 min" in summary(screen)


async def test_the_profiles_threshold_decides_what_is_stuck(seeded):
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        app.session.profile = dataclasses.replace(app.session.profile, stuck_after_minutes=60 * 24 * 40)
        screen = await open_recent_board(pilot)
        assert not any(row.stuck for row in screen.rows)
        assert "stuck" not in summary(screen)


async def test_slash_filters_by_text_and_by_status(seeded, demo_credentials):
    lines = recent_lines(seeded, demo_credentials)
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_recent_board(pilot)
        target = lines[0]
        await pilot.press("slash", *target["clientReferenceNumber"][:13])
        assert set(column(screen, 7)) == {target["clientReferenceNumber"]}
        await pilot.press("escape")
        assert screen.table.row_count == len(lines)
        await pilot.press("slash", *"status:succeeded")
        assert set(column(screen, 1)) == {"Succeeded"}
        assert screen.table.row_count == sum(line["status"] == "Succeeded" for line in lines)
        await pilot.press("enter")  # keeps the filter, back to the table
        assert isinstance(app.focused, RowTable) and screen.query_one(RowFilter).value == "status:succeeded"


async def test_f_steps_through_the_statuses_then_stuck(seeded, demo_credentials):
    lines = recent_lines(seeded, demo_credentials)
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_recent_board(pilot)
        seen = []
        for _ in range(len({line["status"] for line in lines}) + 2):
            await pilot.press("f")
            seen.append(screen.status_filter)
        assert seen[-2:] == ["stuck", None]
        assert set(seen[:-2]) == {line["status"] for line in lines}


async def test_s_sorts_by_each_column_and_S_reverses(seeded):
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_recent_board(pilot)
        times = column(screen, 0)
        assert times == sorted(times, reverse=True)  # newest first
        await pilot.press("s")  # status
        statuses = column(screen, 1)
        stuck_first = [STUCK_MARK.strip() in cell for cell in statuses]
        assert stuck_first == sorted(stuck_first, reverse=True)
        await pilot.press("s", "s")  # order, total
        assert screen.sort_column == "total"
        await pilot.press("S")
        totals = [row.line.sub_total for row in screen.shown]
        assert totals == sorted(totals, reverse=True)
        assert "by Total ↓" in summary(screen)


async def test_e_exports_every_line_the_filter_keeps(seeded, tmp_path):
    app = app_on(seeded)
    async with app.run_test(size=SIZE) as pilot:  # 80 columns: far fewer rows drawn than exported
        screen = await open_recent_board(pilot)
        await pilot.press("k")
        await until(pilot, lambda: not screen.table.loading and screen.day_range.start != screen.day_range.end)
        await settle(pilot)
        await pilot.press("slash", *"status:succeeded", "enter")
        path = await export_shown(pilot, "json", tmp_path / "data")
        records = json.loads(path.read_text())
        assert len(records) == len(screen.shown) > screen.table.size.height
        assert {record["Status"] for record in records} == {"Succeeded"}
        assert [record["RequestId"] for record in records] == [row.request_id for row in screen.shown]


async def test_a_click_on_a_header_sorts_by_it(seeded):
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_recent_board(pilot)
        product = [column.key for column in COLUMNS].index("product")
        x = sum(width + 2 for width in screen.table.widths[:product]) + 2  # inside "Product", as wide as it grew
        await pilot.click("#orders-table", offset=(x, 0))
        assert screen.sort_column == "product" and not screen.descending
        products = [(row.line.product_name or "").lower() for row in screen.shown]
        assert products == sorted(products)
        await pilot.click("#orders-table", offset=(x, 0))
        assert screen.descending


async def test_enter_opens_the_order_inspector_on_its_request_id(seeded):
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_recent_board(pilot)
        await pilot.press("down", "down")
        request_id = screen.highlighted_request_id()
        assert request_id == screen.shown[2].request_id
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, OrderScreen) and app.screen.request_id == request_id)


async def test_w_pins_the_highlighted_order_to_the_watch_list(seeded):
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_recent_board(pilot)
        await pilot.press("down")
        request_id = screen.highlighted_request_id()
        await pilot.press("w")
        await pilot.pause()
        assert [item.reference for item in WatchList().items("demo-sandbox")] == [request_id]
        assert any(f"Watching order {request_id}" in str(note) for note in notifications(app))


def drawn(table: RowTable) -> list:
    return table.render_lines(Region(0, 0, *table.size))


async def test_the_lines_drawn_follow_each_keystroke_and_the_cursor(seeded):
    """Only the lines that change are drawn again: what is on screen is still what a whole redraw gives."""
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_recent_board(pilot)
        await pilot.press("k")
        await until(pilot, lambda: not screen.table.loading and screen.day_range.start != screen.day_range.end)
        await settle(pilot)
        table = screen.table
        word = (screen.rows[3].line.product_name or "").split()[0]
        steps = [
            ("slash", *word),
            *[("backspace",)] * len(word),
            ("escape", "down", "down", "up"),
            ("pagedown", "down"),
            ("slash", "o"),
            ("backspace",),
            ("escape", "s"),
            ("S", "end", "home"),
        ]
        for keys in steps:
            await pilot.press(*keys)
            await pilot.pause()
            lines = drawn(table)
            table.refresh()
            assert drawn(table) == lines
            top = table.scroll_offset.y
            for y, line in enumerate(lines[1 : len(screen.shown) - top + 1]):
                assert screen.shown[top + y].request_id in line.text
            assert screen.highlighted_request_id() in rendered(screen, "#orders-detail")


async def test_jump_to_orders_and_range_keys(seeded):
    app = app_on(seeded)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("colon", *"orders", "enter")
        await until(pilot, lambda: isinstance(app.screen, OrdersScreen))
        screen = app.screen
        await settle(pilot)
        today_rows = screen.table.row_count
        await pilot.press("k")
        await until(pilot, lambda: not screen.table.loading)
        await settle(pilot)
        assert screen.day_range == DayRange.last_days(7, today=date.today())
        assert screen.table.row_count >= today_rows


# --- snapshots: fixed answers, so that the picture does not move with the clock ----------------

FIXED_DAY = date(2026, 11, 2)


def fixed_line(
    number: int, minute: int, status: str, product: str, denomination: str, quantity: int, sub_total: float
) -> dict:
    return {
        "clientName": "Acme",
        "orderNumber": f"O-0676{number:04d}",
        "orderDate": "2026-11-02T00:00:00",  # a day
        "clientReferenceNumber": f"6f1c0a55-0000-4000-8000-00000000{number:04d}",
        "channel": "Sandbox",
        "productName": product,
        "denomination": denomination,
        "quantity": quantity,
        "unitPrice": sub_total / quantity,
        "subTotal": sub_total,
        "total": sub_total,
        "accountCurrency": "USD",
        "status": status,
    }


FIXED_LINES = [
    fixed_line(1, 5, "Succeeded", "Acme Books $25", "USD 25", 2, 49.0),
    fixed_line(2, 12, "Failed", "Acme Books eGift", "USD 40.13", 1, 40.13),
    fixed_line(3, 20, "Pending", "Slow Coffee 10", "USD 10", 1, 9.8),
    fixed_line(4, 31, "PartialFailed", "Payout Card", "USD 100", 3, 300.0),
    fixed_line(5, 44, "Processing", "[bold]Brand[/] \x1b]52;c;x\x07", "EUR 20", 1, 21.7),
    fixed_line(6, 58, "Succeeded", "Acme Books $25", "USD 25", 1, 24.5),
]


def fixed_service(request: httpx.Request) -> httpx.Response:
    if request.url.path == HISTORY:
        return httpx.Response(200, json=FIXED_LINES)
    if request.url.path.endswith("/catalog"):
        return httpx.Response(200, json={"pageIndex": 0, "pageSize": 100, "count": 0, "items": []})
    return httpx.Response(404, json="not here")


def fixed_app():
    return build_app(
        AppSettings(
            profiles=demo_profiles("http://svc.test"),
            profile_name="demo-sandbox",
            client_options={"transport": httpx.MockTransport(fixed_service)},
        )
    )


@pytest.mark.parametrize("size", [SIZE, WIDE], ids=["80x24", "160x48"])
def test_snapshot_board(snap_compare, size):
    async def show(pilot):
        screen = await open_board(pilot)
        screen.day_range = DayRange(FIXED_DAY, FIXED_DAY)
        screen.range_changed()
        await until(pilot, lambda: not screen.table.loading)
        await settle(pilot)
        assert screen.table.row_count == len(FIXED_LINES)
        assert [row.request_id for row in screen.rows if row.stuck] == [
            FIXED_LINES[4]["clientReferenceNumber"],
            FIXED_LINES[2]["clientReferenceNumber"],
        ]
        assert "[bold]Brand[/] ␛]52;c;x␇" in column(screen, 5)  # outside text shown, never obeyed

    assert snap_compare(fixed_app(), terminal_size=size, run_before=show)


# --- dates that date, times that time (issue 25) ----------------------------------------------------------


def todays_service(asked: list[str], *, answer_orders: bool):
    """Today's history in the provider's form (orderDate: the day at midnight); Get order times the orders."""
    midnight = f"{datetime.now(UTC):%Y-%m-%d}T00:00:00"
    lines = [{**line, "orderDate": midnight} for line in FIXED_LINES]

    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path == HISTORY:
            return httpx.Response(200, json=lines)
        if request.url.path.startswith(HISTORY + "/"):
            request_id = request.url.path.rsplit("/", 1)[1]
            asked.append(request_id)
            if not answer_orders:
                return httpx.Response(503)
            created = datetime.now(UTC).replace(tzinfo=None) - timedelta(hours=2 if request_id.endswith("3") else 0)
            return httpx.Response(
                200,
                json={
                    "orderId": 1,
                    "requestId": request_id,
                    "status": "Pending",
                    "total": 1,
                    "createdDate": created.isoformat(timespec="milliseconds"),
                },
            )
        return fixed_service(request)

    return service


def app_answering(service):
    return build_app(
        AppSettings(
            profiles=demo_profiles("http://svc.test"),
            profile_name="demo-sandbox",
            client_options={"transport": httpx.MockTransport(service)},
        )
    )


async def test_stuck_comes_from_get_orders_time_asked_only_for_the_not_final_rows():
    asked: list[str] = []
    app = app_answering(todays_service(asked, answer_orders=True))
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_board(pilot)
        await until(pilot, lambda: not any(row.time_unknown for row in screen.rows))
        await settle(pilot)
        not_final = {
            line["clientReferenceNumber"] for line in FIXED_LINES if line["status"] in ("Pending", "Processing")
        }
        assert sorted(asked) == sorted(not_final)  # once each, and never for a final order
        # Placed 2 hours ago: stuck; placed just now: not (the day alone flagged both before).
        assert [row.request_id for row in screen.rows if row.stuck] == [FIXED_LINES[2]["clientReferenceNumber"]]
        await pilot.press("r")
        await until(pilot, lambda: not screen.table.loading)
        await settle(pilot)
        assert sorted(asked) == sorted(not_final)  # the times are kept for the session: not asked again


async def test_a_row_whose_time_is_not_known_says_so():
    asked: list[str] = []
    app = app_answering(todays_service(asked, answer_orders=False))
    async with app.run_test(size=WIDE) as pilot:
        screen = await open_board(pilot)
        await until(pilot, lambda: len(asked) >= 2)
        await settle(pilot)
        unknown = [row for row in screen.rows if row.time_unknown]
        assert {row.request_id for row in unknown} == {
            line["clientReferenceNumber"] for line in FIXED_LINES if line["status"] in ("Pending", "Processing")
        }
        assert not any(row.stuck for row in screen.rows)  # not guessed from the day
        times = dict(zip(column(screen, 7), column(screen, 0), strict=True))
        assert all(times[row.request_id].endswith("--:--") for row in unknown)
        assert all("? time" in cell for cell in column(screen, 1) if "Pending" in cell or "Processing" in cell)
        for _ in range([row.request_id for row in screen.shown].index(unknown[0].request_id)):
            await pilot.press("down")
        await settle(pilot)
        assert "time not yet known" in str(screen.query_one("#orders-detail").render())


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_a_final_order_shows_the_time_of_its_charge_not_the_day_alone(seeded, demo_credentials, size):
    """Issue 39 item 1: the report dates orders by day; the transactions' local copies (read to judge the rows)
    say when each was charged, and the board shows it, to the minute, and sorts by it."""
    credential = demo_credentials["acme-sandbox"].auth
    days = recent_range()
    wire = httpx.get(
        seeded.base_url + "/api/integration/v1.0/transactions", params=days.to_wire(), auth=credential
    ).json()
    charged = {}
    for client in wire["clients"]:
        for row in client["transactions"]:
            moment = datetime.fromisoformat(row["transactionDate"]).replace(tzinfo=None)
            if row.get("requestId"):
                charged[row["requestId"]] = min(moment, charged.get(row["requestId"], moment))
    app = app_on(seeded)
    async with app.run_test(size=size) as pilot:
        screen = await open_board(pilot)
        await until(pilot, lambda: all(row.placed for row in screen.rows if row.request_id in charged), timeout=15)
        await settle(pilot)
        final = [row for row in screen.rows if row.request_id in charged and row.line.status == "Succeeded"]
        assert final, "the seeded past has Succeeded orders charged in the last two days"
        for row in final:
            assert row.placed == charged[row.request_id]
        assert f"{final[0].placed:%m-%d %H:%M}" in set(column(screen, 0))
        placed = [row.placed for row in screen.shown if row.placed]
        assert placed == sorted(placed, reverse=True)  # newest first, by the minute
