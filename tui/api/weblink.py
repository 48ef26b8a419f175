"""From a card code (hosted payout URL) or a bare token to the weblink token on the wire.

SPEC: the token is the final path segment of the payout URL, used exactly as
returned: padding stays "%3D", never decoded to "=", never double-encoded to
"%253D". Choices (docs/decisions.md): whitespace, a trailing slash, a query
and a fragment are not part of the token; a pasted "=" is written back as
"%3D"; any other character outside the URL-safe set is percent-encoded so
that httpx sends the token byte for byte.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

_URL = re.compile(r"^https?://[^/\s?#]+", re.IGNORECASE)  # scheme and host
# A token is kept as-is when it is made of unreserved characters and
# well-formed percent escapes; anything else gets escaped once.
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
_DOT_SEGMENTS = (".", "..")


class WeblinkError(ValueError):
    """The text given holds no weblink token."""


def is_payout_url(card_code: str | None) -> bool:
    """True when a card code is a hosted payout URL with a token in its path."""
    if not card_code:
        return False
    text = card_code.strip()
    return bool(_URL.match(text)) and bool(_final_segment(text))


def weblink_token(card_code_or_token: str) -> str:
    """The wire token for a payout URL or a bare token (raises WeblinkError when empty)."""
    segment = _final_segment(card_code_or_token.strip())
    if not segment:
        raise WeblinkError("No weblink token found: paste the card's payout URL or its final path segment.")
    if unquote(segment) in _DOT_SEGMENTS:  # a path step, not a token: sent, it would name another endpoint
        raise WeblinkError(
            f"{segment!r} is not a weblink token: paste the card's payout URL or its final path segment."
        )
    return _encode_once(segment)


def _final_segment(text: str) -> str:
    url = _URL.match(text)
    path = text[url.end() :] if url else text  # the host is never the token
    path = re.split(r"[?#]", path, maxsplit=1)[0]
    return path.rstrip("/").rsplit("/", 1)[-1].strip()


def _encode_once(segment: str) -> str:
    parts: list[str] = []
    position = 0
    for escape in _ESCAPE.finditer(segment):
        parts.append(quote(segment[position : escape.start()], safe=_UNRESERVED))
        parts.append(escape.group())
        position = escape.end()
    parts.append(quote(segment[position:], safe=_UNRESERVED))
    return "".join(parts)
