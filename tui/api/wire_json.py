"""JSON as the service sent it: numbers with a fraction become Decimal, and go back out unchanged.

httpx's `response.json()` gives floats (150000.1 may come back as
150000.09999...); `loads` parses them as Decimal instead, so money is exact
from the wire to the screen. `dumps` writes a Decimal as the number it came
as (`12.50` stays `12.50`), for `--json` output.
"""

from __future__ import annotations

import json
import re
import secrets
from decimal import Decimal
from typing import Any


def loads(content: bytes | str) -> Any:
    return json.loads(content, parse_float=Decimal)


def dumps(data: Any, *, indent: int | None = 2) -> str:
    """JSON text; a Decimal is written as a JSON number with its own digits."""
    marker = secrets.token_hex(8)  # unguessable: outside text cannot fake a number

    def decimal_as_marked_string(value: object) -> str:
        if isinstance(value, Decimal) and value.is_finite():
            return f"{marker}{value}{marker}"
        raise TypeError(f"{type(value).__name__} is not JSON serializable")

    text = json.dumps(data, indent=indent, ensure_ascii=False, default=decimal_as_marked_string)
    return re.sub(f'"{marker}([^"]*){marker}"', r"\1", text)
