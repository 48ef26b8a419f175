"""Everything from outside is bounded (DESIGN rule 10): time, size, depth, numbers and counts.

- `Bounds`: the limits, with their defaults and their environment variables.
- `BoundedBody`: an answer's body read chunk by chunk, decoded (gzip, deflate) by us with a
  cap on the decoded bytes, so a gzip bomb is never inflated past the cap; past a deadline
  it stops.
- `loads`: JSON as the service sent it (numbers with a fraction as Decimal), after a depth
  check that needs no recursion, with absurd numbers (`1e999999`, 5,000 digits, NaN) refused
  naming the field they are in.
- `page_count`: how many pages a `count` asks for, refused when no catalog is that big.
"""

from __future__ import annotations

import json
import os
import re
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from tui.api.errors import MalformedResponseError

MEGABYTE = 1024 * 1024

# A JSON number longer than this (digits, sign, point, exponent), or whose exponent is beyond
# ±MAX_EXPONENT, is no amount, id or count of this service: refused before anything computes with it.
MAX_NUMBER_CHARS = 40
MAX_EXPONENT = 40
# The largest catalog giftdesk will walk: a `count` beyond it, or more pages than MAX_PAGES, is
# refused, not turned into pages (the real catalog: some thousands of brands).
MAX_CATALOG_BRANDS = 1_000_000
MAX_PAGES = 10_000


class BoundsSettingError(ValueError):
    """A limit set in the environment that is not a positive number."""


@dataclass(frozen=True)
class Bounds:
    """The limits of one client (and of one command: `command_seconds`)."""

    request_seconds: float = 30.0  # one request, from sending to the last byte of its answer
    catalog_seconds: float = 150.0  # a catalog page: the real provider may take 120 s to answer one
    command_seconds: float = 3600.0  # a whole command that ends (not watch, listen or --watch)
    body_bytes: int = 32 * MEGABYTE  # an answer's body, decoded
    depth: int = 32  # nesting of arrays and objects in an answer (the service's own go to ~7)

    ENVIRONMENT = {
        "request_seconds": "GIFTDESK_REQUEST_DEADLINE",
        "catalog_seconds": "GIFTDESK_CATALOG_DEADLINE",
        "command_seconds": "GIFTDESK_COMMAND_DEADLINE",
        "body_bytes": "GIFTDESK_MAX_ANSWER_MB",
    }

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] = os.environ) -> Bounds:
        """The defaults, each overridden by its variable (seconds; megabytes for the answer's size)."""
        changes: dict[str, Any] = {}
        for name, variable in cls.ENVIRONMENT.items():
            text = environ.get(variable, "").strip()
            if not text:
                continue
            try:
                value = float(text)
            except ValueError:
                value = -1.0
            if not 0 < value < 10**7:
                raise BoundsSettingError(f"{variable}={text!r} is not a positive number")
            changes[name] = int(value * MEGABYTE) if name == "body_bytes" else value
        return cls(**changes)


# --- the body ----------------------------------------------------------------------------


class AnswerTooLarge(Exception):
    """The body went past the cap: it was not read further."""


class UnreadableEncoding(Exception):
    """A Content-Encoding giftdesk does not decode, or a compressed body that does not decode."""


class DeadlineExceeded(Exception):
    """The request's deadline passed while its answer was still coming."""


ACCEPT_ENCODING = "gzip, deflate"  # what BoundedBody decodes; nothing else is asked for


class BoundedBody:
    """A body fed chunk by chunk as it arrived (still encoded), kept decoded up to `cap` bytes."""

    def __init__(self, content_encoding: str | None, cap: int, deadline_at: float | None = None) -> None:
        self.cap, self.deadline_at = cap, deadline_at
        self._parts: list[bytes] = []
        self._size = 0
        self._raw = 0
        encoding = (content_encoding or "identity").strip().lower()
        if encoding in ("", "identity"):
            self._decoder: Any = None
        elif encoding in ("gzip", "x-gzip"):
            self._decoder = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif encoding == "deflate":
            self._decoder = zlib.decompressobj(zlib.MAX_WBITS | 32)  # zlib header or gzip, detected
        else:
            raise UnreadableEncoding(f"the answer is encoded as {encoding!r}, which giftdesk does not read")

    def feed(self, chunk: bytes) -> None:
        if self.deadline_at is not None and time.monotonic() > self.deadline_at:
            raise DeadlineExceeded
        self._raw += len(chunk)
        if self._raw > self.cap:  # compressed data that never inflates is no cheaper to receive
            raise AnswerTooLarge
        if self._decoder is None:
            self._keep(chunk)
            return
        data = chunk
        try:
            while data:
                # At most one byte past what the cap leaves: enough to know it was passed.
                self._keep(self._decoder.decompress(data, self.cap - self._size + 1))
                data = self._decoder.unconsumed_tail
        except zlib.error:
            raise UnreadableEncoding("the answer's compressed body does not decode") from None

    def _keep(self, data: bytes) -> None:
        self._size += len(data)
        if self._size > self.cap:
            raise AnswerTooLarge
        if data:
            self._parts.append(data)

    def finish(self) -> bytes:
        if self._decoder is not None:
            self._keep(self._decoder.flush(self.cap - self._size + 1))
        return b"".join(self._parts)


ENCODING_HEADERS = ("content-encoding", "content-length", "transfer-encoding")


def decoded_headers(headers: Any) -> list[tuple[str, str]]:
    """An httpx.Headers' items without the ones that described the body as it was sent (it is now decoded)."""
    return [(name, value) for name, value in headers.multi_items() if name.lower() not in ENCODING_HEADERS]


# --- JSON --------------------------------------------------------------------------------

_NOT_BRACKETS = bytes(range(256)).translate(None, b'[]{}"\\')
_ESCAPE = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
_PAIR = re.compile(rb"\[\]|\{\}")
_LONG_DIGITS = re.compile(rb"\d{%d}" % MAX_NUMBER_CHARS)


def depth_exceeds(body: bytes, limit: int) -> bool:
    """True when arrays and objects in the JSON text `body` nest deeper than `limit` (or open that many
    more than they close).

    No recursion and no Python loop over the text: only brackets outside strings are kept, then
    the innermost pairs are removed, one level per pass, at most `limit` passes.
    """
    brackets = _STRING.sub(b"", _ESCAPE.sub(b"", body.translate(None, _NOT_BRACKETS)))
    for _ in range(limit):
        shorter = _PAIR.sub(b"", brackets)
        if len(shorter) == len(brackets):
            break
        brackets = shorter
    else:
        if _PAIR.search(brackets):
            return True  # a level left after `limit` were removed
    # What is left pairs nothing more: brackets never closed (`[` x 100,000) or mismatched.
    return brackets.count(b"[") + brackets.count(b"{") > limit


class _Absurd(str):
    """A number refused while parsing; found again afterwards to name its field."""


def _number(text: str) -> Decimal | int | _Absurd:
    if len(text) > MAX_NUMBER_CHARS:
        return _Absurd(text)
    if "." not in text and "e" not in text and "E" not in text:
        return int(text)
    number = Decimal(text)
    if number.is_finite() and abs(number.adjusted()) <= MAX_EXPONENT:
        return number
    return _Absurd(text)


def _not_a_number(text: str) -> _Absurd:
    return _Absurd(text)  # NaN, Infinity, -Infinity: Python's json takes them, JSON does not


def number_is_sane(text: str) -> bool:
    """True for a JSON number's text that `loads` would take."""
    try:
        return not isinstance(_number(text), _Absurd)
    except (ArithmeticError, ValueError):  # not a number at all
        return False


def loads(body: bytes | str, *, depth: int = Bounds.depth, where: str = "the answer") -> Any:
    """JSON from outside: numbers with a fraction as Decimal; too deep, or absurd numbers, refused.

    MalformedResponseError names what is wrong (`where`, then the field); ValueError when it is not JSON.
    """
    raw = body.encode() if isinstance(body, str) else body
    if depth_exceeds(raw, depth):
        raise MalformedResponseError(f"{where}: nested deeper than {depth} levels; not read")
    if _LONG_DIGITS.search(raw) is None:  # the common case: Python's own int parsing, fast
        data = json.loads(raw, parse_float=_number, parse_constant=_not_a_number)
    else:
        data = json.loads(raw, parse_float=_number, parse_int=_number, parse_constant=_not_a_number)
    found = _absurd_in(data, depth)
    if found is not None:
        field, text = found
        shown = text if len(text) <= 24 else f"{text[:12]}…({len(text)} characters)"
        raise MalformedResponseError(
            f"{where}: field {field or '(the whole answer)'} holds the number {shown}, "
            "which is out of any sane range; not used"
        )
    return data


def _absurd_in(data: Any, depth: int) -> tuple[str, str] | None:
    """The path and text of the first refused number, looked for iteratively (depth already checked)."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if type(value) is _Absurd:
            return path, str(value)
        if isinstance(value, dict):
            stack.extend((f"{path}.{key}" if path else str(key), item) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((f"{path}.{index}" if path else str(index), item) for index, item in enumerate(value))
    return None


# --- counts ------------------------------------------------------------------------------


def page_count(count: object, page_size: int, *, where: str = "catalog v2") -> int:
    """The number of pages a page's `count` makes; refused beyond any real catalog (never scheduled)."""
    if type(count) is not int or count < 0:
        raise MalformedResponseError(f"{where}: field count is not a whole number of brands")
    pages = max(1, -(-count // max(1, page_size)))
    if count > MAX_CATALOG_BRANDS or pages > MAX_PAGES:
        raise MalformedResponseError(
            f"{where}: field count says {count:,} brands ({pages:,} pages of {page_size}), "
            f"beyond any catalog (at most {MAX_CATALOG_BRANDS:,} brands, {MAX_PAGES:,} pages); "
            "no further page was asked for"
        )
    return pages
