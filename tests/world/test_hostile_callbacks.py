"""Hostile callbacks to the receiver (issue 24 items 7, 8): too deep or absurd numbers are refused
with 400 naming what is wrong, never a 500, and the receiver goes on serving."""

from __future__ import annotations

import httpx
import pytest

from tui.listener import Receiver, ReceiverSettings
from tui.local.inbox import SqliteInbox

SECRET = "hostile-callback-secret"


@pytest.fixture
def receiver(tmp_path):
    started = Receiver(
        lambda: SqliteInbox("acme", tmp_path / "inbox.sqlite3", check_same_thread=False),
        callback_secret=SECRET,
        webhook_secrets=(),
        settings=ReceiverSettings(),
    ).start()
    yield started
    started.stop()


def callback(total: str) -> bytes:
    return b'{"secretKey": "%s", "requestId": "R-1", "status": "Succeeded", "total": %s}' % (
        SECRET.encode(),
        total.encode(),
    )


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (callback("1e999999"), "total"),
        (callback("9" * 5000), "total"),
        (callback("NaN"), "total"),
        (b"[" * 100_000, "deeper"),
        (b'{"secretKey": "x", "n": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "deeper"),
    ],
    ids=["exponent", "digits", "nan", "unclosed", "nested"],
)
def test_a_hostile_callback_is_refused_with_400(receiver, body, named):
    response = httpx.post(receiver.url, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert named in response.text
    good = httpx.post(receiver.url, content=callback("10.50"), headers={"content-type": "application/json"})
    assert good.status_code == 200, good.text
