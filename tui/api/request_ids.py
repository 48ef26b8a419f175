"""RequestIds: the provider takes only GUIDs (DESIGN.md "What the real provider sends and enforces").

giftdesk makes every new RequestId here, and refuses any other before anything is sent.
"""

from __future__ import annotations

import re
import uuid

# The canonical form, 8-4-4-4-12 hex digits: what giftdesk makes and the provider's examples show.
GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

RULE = "a RequestId must be a GUID (like 3f2b8c1e-5d4a-4e0b-9c7d-1a2b3c4d5e6f)"


class RequestIdInvalid(ValueError):
    """A RequestId that is not a GUID; the message says the rule and what to do."""

    hint = "Leave the RequestId out and giftdesk makes a new one, or give the GUID of the order to retry."


def new_request_id() -> str:
    return str(uuid.uuid4())


def is_guid(text: str) -> bool:
    return GUID.fullmatch(text.strip()) is not None


def check_request_id(text: str) -> str:
    """The RequestId stripped, or RequestIdInvalid naming the rule."""
    if not is_guid(text):
        raise RequestIdInvalid(f"{RULE}; {text.strip()!r} is not one")
    return text.strip()
