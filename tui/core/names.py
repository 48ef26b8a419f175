"""One name for one thing (docs/decisions.md, "Glossary"): what every screen, command and export calls things.

No Textual here: the command line and the screens say the same words.
"""

from __future__ import annotations

CALLBACKS_PHRASE = "change production callbacks"  # typed to save production callbacks, in the TUI and the CLI
NOT_RELEASED = "(not released)"  # a card code or PIN of a card that is not Sold: neither shown nor masked


def order_number(order_id: int | str | None) -> str:
    """The order number people quote, from Get order's orderId: `500199` -> `O-00500199` (the orders report's form)."""
    if order_id is None or str(order_id).strip() == "":
        return "—"
    text = str(order_id).strip()
    return f"O-{int(text):08d}" if text.isdigit() else text
