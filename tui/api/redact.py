"""Masking helpers and a logging filter (DESIGN rule 6: secrets never leave memory in clear).

The helpers keep just enough to tell two values apart (the last few
characters) and nothing that lets a reader use the value.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable

MASK = "****"


class Secret:
    """A secret held in memory: its repr and str never show it (like pydantic's SecretStr, without pydantic)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    def __str__(self) -> str:
        return "**********"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


_MIN_REGISTERED = 4  # shorter values would mask ordinary words

_registered: set[str] = set()
_registered_lock = threading.Lock()


def register_secret(value: str | Secret | None) -> None:
    """Remember a secret so that mask_text and the log filter hide it wherever it appears."""
    text = value if isinstance(value, str) or value is None else value.get_secret_value()
    if text and len(text) >= _MIN_REGISTERED:
        with _registered_lock:
            _registered.add(text)


def mask_secret(value: str | Secret | None) -> str:
    """A client secret or callback secret: nothing of it is shown."""
    return MASK if value else ""


def mask_pin(pin: str | None) -> str:
    return MASK if pin else ""


_SHORTEST_WITH_TAIL = 8  # a shorter value shows no tail: four characters would be half of it


def _tail(text: str, keep: int) -> str:
    return MASK + (text[-keep:] if len(text) >= _SHORTEST_WITH_TAIL else "")


def _unpadded(token: str) -> str:
    return re.sub(r"(%3[Dd]|=)+$", "", token)


def mask_weblink(url_or_token: str | None) -> str:
    """Payout URL or token: host kept, token reduced to its last 4 characters."""
    if not url_or_token:
        return ""
    text = url_or_token.strip()
    head, _, token = text.rpartition("/")
    masked = _tail(_unpadded(token), 4)
    return f"{head}/{masked}" if head else masked


def mask_card_code(code: str | None) -> str:
    """A card code: payout URLs as weblinks, ordinary codes down to the last 4 characters."""
    if not code:
        return ""
    from tui.api.weblink import is_payout_url

    # A bare weblink token is a card code too: its padding (`=`, `%3D`) is no part of its last 4 (issue 39 item 7).
    return mask_weblink(code) if is_payout_url(code) else _tail(_unpadded(code.strip()), 4)


def mask_email(email: str | None) -> str:
    if not email:
        return ""
    local, at, domain = email.partition("@")
    if not at:
        return _tail(email, 2)
    top_level = domain.rpartition(".")[2]
    return f"{local[:1]}{MASK}@{MASK}.{top_level}"


def mask_phone(phone: str | None) -> str:
    if not phone:
        return ""
    return ("+" if phone.startswith("+") else "") + _tail(phone.lstrip("+"), 4)


def mask_handle(handle: str | None) -> str:
    if not handle:
        return ""
    bare = handle.lstrip("@")
    return ("@" if handle.startswith("@") else "") + bare[:1] + MASK


def mask_recipient(value: str | None) -> str:
    """Any recipient identifier, by its look: email, phone, or handle."""
    if not value:
        return ""
    if "@" in value.lstrip("@"):
        return mask_email(value)
    if re.fullmatch(r"\+?[0-9 ()-]+", value):
        return mask_phone(value)
    return mask_handle(value)


# Known shapes of secrets in free text, masked even when not registered.
_PATTERNS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    # A weblink in a payout endpoint path or a hosted payout URL.
    (
        re.compile(r"(/payout(?:/redeem|/status)?/)([^/\s?#\"']+)", re.IGNORECASE),
        lambda m: m.group(1) + mask_weblink(m.group(2)),
    ),
    # Any token padded with an encoded "=".
    (re.compile(r"[A-Za-z0-9_\-.~]{6,}(?:%3[Dd])+"), lambda m: mask_weblink(m.group())),
    (re.compile(r"(Authorization:?\s*['\"]?Basic\s+)[A-Za-z0-9+/=]+", re.IGNORECASE), lambda m: m.group(1) + MASK),
    # A password in a URL (`http://user:pass@host`), before the email shape could take `pass@host`.
    (re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:)[^/\s@]+@"), lambda m: m.group(1) + MASK + "@"),
    # An email address (not a masked URL password: `****@host`).
    (re.compile(r"[^@\s\"'<>(),;:*]+@[^@\s\"'<>(),;:]+\.[A-Za-z]{2,}"), lambda m: mask_email(m.group())),
]


def mask_text(text: str) -> str:
    """Free text (log lines, error messages) with registered secrets and known secret shapes masked."""
    with _registered_lock:
        secrets = sorted(_registered, key=len, reverse=True)
    for secret in secrets:
        text = text.replace(secret, MASK)
    for pattern, replace in _PATTERNS:
        text = pattern.sub(replace, text)
    return text


class RedactionFilter(logging.Filter):
    """Masks secrets in a record's message, its arguments, its exception and stack text.

    The message is rendered once and the arguments dropped, so a handler
    cannot format the clear values back in.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = mask_text(record.getMessage())
        record.args = None
        if record.exc_info:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None  # handlers print exc_text instead of the live exception
        if record.exc_text:
            record.exc_text = mask_text(record.exc_text)
        if record.stack_info:
            record.stack_info = mask_text(record.stack_info)
        return True
