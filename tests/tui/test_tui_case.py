"""The Order screen's case reads the same stores as `giftdesk order case`: the receiver's inbox included."""

from __future__ import annotations

from apps import app_on, settle, until
from test_tui_order import place

from tui.local.inbox import Delivery, SqliteInbox
from tui.screens.order import OrderScreen

SIZE = (80, 24)


async def test_a_callback_kept_by_the_receiver_is_on_the_order_screens_timeline(sim):
    request_id = place(sim, (101, "25", 1))
    with SqliteInbox("demo-sandbox") as inbox:
        inbox.keep(
            Delivery.accepted_now(
                f"callback:{request_id}", "callback", {"requestId": request_id, "status": "Succeeded"}, "10.0.0.7"
            )
        )
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await app.navigate("order", request_id)
        await until(pilot, lambda: isinstance(app.screen, OrderScreen) and app.screen.case is not None)
        await settle(pilot)
        events = [(e.source, e.what, e.by) for e in app.screen.case.events]
        assert ("inbox", "callback: status Succeeded (accepted)", "10.0.0.7") in events
