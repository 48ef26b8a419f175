"""A hostile server for protocol-level attacks (issue 24): a small real HTTP server on loopback.

It sits in front of the simulator (a real service, so every command gets answers of the
right shape) and answers each request with one attack, set on the server (`server.attack`):
the simulator's answer dripped a byte at a time, buried in a huge or endless body, in a gzip
bomb, nested 100,000 deep, with absurd numbers or counts, cut short, or the connection dropped
after the request was sent. Written on raw sockets (http.server only parses the request), so
every byte is ours.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

ATTACKS = (
    "drip",
    "drip_headers",
    "huge",
    "endless",
    "gzip_bomb",
    "deep",
    "deep_unclosed",
    "absurd_number",
    "long_number",
    "absurd_count",
    "drop",
    "drop_mid_body",
    "truncated",
    "not_json",
    "control_keys",
)
# An OSC 52 clipboard write, a screen clear and a C1 CSI (U+009B): in key names and in statuses.
CONTROLS = "\x1b]52;c;aGk=\x07\x1b[2J\u009b31m"
SHOWN_TEXTS = {"transactionId", "payoutBatchId", "errorMessage", "name"}
CHUNK = 64 * 1024


def _numbers_replaced(body: bytes, literal: bytes) -> bytes:
    """The JSON answer with every number (not true/false) written as `literal`."""
    marker = "\x00number\x00"

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return marker
        return value

    try:
        data = json.loads(body)
    except ValueError:
        return body
    return json.dumps(walk(data)).encode().replace(json.dumps(marker).encode(), literal)


def _controls_added(body: bytes) -> bytes:
    """Every object with an extra key made of controls; the controls appended to the texts a watch shows."""

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            changed = {
                key: (item + CONTROLS if key in SHOWN_TEXTS and isinstance(item, str) else walk(item))
                for key, item in value.items()
            }
            return {**changed, f"note{CONTROLS}": f"value{CONTROLS}"}
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    try:
        return json.dumps(walk(json.loads(body)), ensure_ascii=False).encode()
    except ValueError:
        return body


def _counts_replaced(body: bytes) -> bytes:
    try:
        data = json.loads(body)
    except ValueError:
        return body
    if isinstance(data, dict) and "count" in data:
        data["count"] = 10**12
    return json.dumps(data).encode()


class HostileServer:
    """`with HostileServer(upstream) as server:` ... `server.attack = "gzip_bomb"`; `server.base_url`."""

    def __init__(
        self,
        upstream: str,
        *,
        drip_seconds: float = 0.2,
        huge_bytes: int = 64 * 1024 * 1024,
        bomb_bytes: int = 256 * 1024 * 1024,
    ) -> None:
        self.upstream, self.drip_seconds, self.huge_bytes = upstream, drip_seconds, huge_bytes
        self.attack = "none"
        self.requests = 0
        self.upstream_status = 0  # the simulator's status for the last request (the attack keeps it)
        self._http = httpx.Client(base_url=upstream, timeout=30)
        self._bomb = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
        self._bomb_head = b"".join(self._bomb.compress(b" " * CHUNK * 16) for _ in range(bomb_bytes // (CHUNK * 16)))
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _answer(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.requests += 1
                with contextlib.suppress(TimeoutError, BrokenPipeError, ConnectionResetError):
                    server.serve(self, body)  # cut short when the client gives up: what it should do
                self.close_connection = True

            do_GET = do_POST = do_PUT = do_DELETE = _answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> HostileServer:
        threading.Thread(target=self._server.serve_forever, name="hostile-server", daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._http.close()

    # --- one answer ------------------------------------------------------------------------

    def serve(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        attack = self.attack
        out: Callable[[bytes], None] = handler.wfile.write
        if attack == "drop":
            self.upstream_status = 0
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        upstream = self._http.request(
            handler.command,
            handler.path,
            content=body or None,
            headers={
                k: v for k, v in handler.headers.items() if k.lower() in ("authorization", "content-type", "accept")
            },
        )
        status, answer = upstream.status_code, upstream.content
        self.upstream_status = status
        if attack == "drip" or attack == "drip_headers":
            whole = self._head(status, len(answer)) + answer
            start = 0 if attack == "drip_headers" else whole.index(b"\r\n\r\n") + 4
            out(whole[:start])
            for index in range(start, len(whole)):
                out(whole[index : index + 1])
                handler.wfile.flush()
                time.sleep(self.drip_seconds)
            return
        if attack in ("huge", "endless"):
            out(self._head(status, None))
            for chunk in self._spaces(None if attack == "endless" else self.huge_bytes):
                out(chunk)
            out(answer)
            return
        if attack == "gzip_bomb":
            bomb = self._bomb.copy()
            compressed = self._bomb_head + bomb.compress(answer) + bomb.flush()
            out(self._head(status, len(compressed), b"Content-Encoding: gzip\r\n") + compressed)
            return
        if attack == "drop_mid_body":
            out(self._head(status, len(answer)) + answer[: len(answer) // 2])
            handler.wfile.flush()
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        answer = {
            "deep": lambda: b"[" * 100_000 + b"]" * 100_000,
            "deep_unclosed": lambda: b"[" * 100_000,
            "absurd_number": lambda: _numbers_replaced(answer, b"1e999999"),
            "long_number": lambda: _numbers_replaced(answer, b"9" * 5000),
            "absurd_count": lambda: _counts_replaced(answer),
            "control_keys": lambda: _controls_added(answer),
            "truncated": lambda: answer[: len(answer) // 2],
            "not_json": lambda: b"<html><body>\x1b]52;c;aGk=\x07 gateway</body></html>",
        }.get(attack, lambda: answer)()
        out(self._head(status, len(answer)) + answer)

    @staticmethod
    def _head(status: int, length: int | None, extra: bytes = b"") -> bytes:
        framing = b"Connection: close\r\n" + (b"" if length is None else b"Content-Length: %d\r\n" % length)
        return b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\n%s%s\r\n" % (status, framing, extra)

    @staticmethod
    def _spaces(total: int | None) -> Iterator[bytes]:
        block = b" " * CHUNK
        sent = 0
        while total is None or sent < total:
            yield block
            sent += CHUNK
