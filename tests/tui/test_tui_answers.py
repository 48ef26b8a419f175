"""Every path a person takes keeps the app answering (issue 26): enter on an order's row opens
the order over the screen the row is on, even when an Order screen was open below it, and esc
goes back to that screen; at 80x24, on the demo's simulator.

Each test drives the app from its own thread (apps.Driven): a freeze fails it, never hangs it.
"""

from __future__ import annotations

from apps import Driven, app_on, settle, until

from tui.screens.order import OrderScreen

SIZE = (80, 24)


async def open_order_shown(pilot) -> str:
    """The Order screen on top with an order: its RequestId (then `1` must still answer)."""
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, OrderScreen) and app.screen.order is not None, timeout=10)
    return app.screen.order.request_id


def assert_opens_and_answers(driven: Driven, expected: str) -> None:
    came_from = driven.app.screen.destination
    driven.press("enter")
    assert driven.run(open_order_shown) == expected
    driven.press("escape")
    assert driven.app.screen.destination == came_from
    driven.press("1")
    assert driven.app.screen.destination == "catalog"


async def board_request_id(pilot) -> str:
    await pilot.press("3", "8")
    await settle(pilot)
    await pilot.press("down")
    return pilot.app.screen.highlighted_request_id()


def test_enter_on_the_orders_board_opens_the_order_and_esc_comes_back(demo_sim):
    with Driven(app_on(demo_sim), SIZE) as driven:
        assert_opens_and_answers(driven, driven.run(board_request_id))


def test_enter_on_a_ledger_row_opens_its_order(demo_sim):
    async def ledger_request_id(pilot) -> str:
        await pilot.press("3", "2")
        await settle(pilot)
        await pilot.press("tab", "down")
        transaction = pilot.app.screen.ledger.selected()
        assert transaction is not None and transaction.request_id
        return transaction.request_id.strip()

    with Driven(app_on(demo_sim), SIZE) as driven:
        assert_opens_and_answers(driven, driven.run(ledger_request_id))


def test_enter_on_a_watch_list_row_opens_the_order(demo_sim):
    async def watched_request_id(pilot) -> str:
        request_id = await board_request_id(pilot)
        pilot.app.watch_list.add_order(request_id)
        await pilot.press("9")
        await settle(pilot)
        return request_id

    with Driven(app_on(demo_sim), SIZE) as driven:
        assert_opens_and_answers(driven, driven.run(watched_request_id))
