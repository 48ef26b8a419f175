"""Any ID finds the order, for every command that takes one (`order show`, `order case`, `watch`)."""

from __future__ import annotations

from tui.commands.output import EXIT_BAD_INPUT, fail
from tui.commands.runner import CommandConnection


async def find_order_or_fail(session: CommandConnection, text: str) -> str:
    """The RequestId an ID names (tui.order_lookup); exit 2 naming the candidates when it cannot say which."""
    from tui.core.order_ids import AmbiguousOrderId, UnknownOrderId
    from tui.local.state_files import RecentOrders
    from tui.order_lookup import find_order

    try:
        return await find_order(text, session.client, session.copies, RecentOrders().request_ids())
    except AmbiguousOrderId as error:
        fail(str(error), EXIT_BAD_INPUT, "give more of the RequestId, or the whole of it")
    except UnknownOrderId as error:
        fail(str(error), EXIT_BAD_INPUT)
