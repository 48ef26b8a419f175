"""The receiver's callback path over real HTTP: verification, bad input, and the simulator's callbacks
(webhooks and the rest of the receiver: tests/world/test_receiver.py)."""

from __future__ import annotations

import queue
import time
import uuid

import httpx
import pytest

from tui.listener import Receiver, ReceiverSettings
from tui.listener_verify import SECRET_MISMATCH_STATUS
from tui.local.inbox import CALLBACK, REFUSED, Delivery, SqliteInbox

SECRET = "listener-test-secret"
WAIT_SECONDS = 10.0  # generous for a loaded machine; a passing test returns as soon as the event lands
MAX_BODY_BYTES = ReceiverSettings().max_body_bytes


def payload(**changes) -> dict:
    body = {
        "orderId": 500123,
        "status": "Succeeded",
        "totalCards": 2,
        "createdOn": "2025-01-01T10:00:00.000",
        "completedOn": "2025-01-01T10:00:01.000",
        "secretKey": SECRET,
        "requestId": "req-listener-1",
    }
    body.update(changes)
    return body


def open_inbox(tmp_path):
    return lambda: SqliteInbox("p", tmp_path / "inbox.sqlite3", check_same_thread=False)


@pytest.fixture
def listener(tmp_path):
    with Receiver(open_inbox(tmp_path), callback_secret=SECRET) as running:
        yield running


@pytest.fixture
def events(listener) -> queue.Queue:
    received: queue.Queue = queue.Queue()
    listener.subscribe(received.put)
    return received


def test_url_is_loopback(listener):
    assert listener.url == f"http://127.0.0.1:{listener.port}/callback"
    assert listener.verifies


def test_good_secret_is_accepted_and_delivered(listener, events):
    response = httpx.post(listener.url, json=payload())
    assert response.status_code == 200
    event = events.get(timeout=WAIT_SECONDS)
    assert isinstance(event, Delivery) and event.accepted
    assert (event.event_id, event.kind, event.payload["status"]) == ("callback:req-listener-1", CALLBACK, "Succeeded")


@pytest.mark.parametrize("secret", ["wrong", "", "listener-test-secreT", "ünïcode", None], ids=repr)
def test_bad_secret_is_rejected_and_nothing_is_trusted(listener, events, secret):
    body = payload(requestId="req-forged", secretKey=secret)
    if secret is None:
        del body["secretKey"]
    response = httpx.post(listener.url, json=body)
    assert response.status_code == SECRET_MISMATCH_STATUS
    event = events.get(timeout=WAIT_SECONDS)
    assert event.verdict == REFUSED and event.payload is None
    assert "req-forged" not in repr(event)  # nothing from the body is carried on


@pytest.mark.parametrize(
    "content",
    [b"", b"{not json", b"[1, 2]", b'"a string"', b"\xff\xfe", b"[" * 5000 + b"]" * 5000],
    ids=["empty", "broken", "array", "string", "not utf-8", "deep"],
)
def test_malformed_body_is_400_and_refused(listener, events, content):
    response = httpx.post(listener.url, content=content, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert events.get(timeout=WAIT_SECONDS).verdict == REFUSED


@pytest.mark.parametrize(
    "changes",
    [{"requestId": None}, {"requestId": "  "}, {"requestId": 5}, {"status": 3}],
    ids=["no requestId", "blank requestId", "requestId number", "status number"],
)
def test_wrong_shape_is_400(listener, events, changes):
    body = {key: value for key, value in payload(**changes).items() if value is not None}
    assert httpx.post(listener.url, json=body).status_code == 400
    assert events.get(timeout=WAIT_SECONDS).verdict == REFUSED


def test_oversized_body_is_413_declared_or_streamed(listener, events):
    big = payload(padding="x" * MAX_BODY_BYTES)
    assert httpx.post(listener.url, json=big).status_code == 413
    chunks = iter([b'{"padding": "', b"x" * MAX_BODY_BYTES, b'"}'])  # chunked: no Content-Length
    assert httpx.post(listener.url, content=chunks).status_code == 413
    assert [events.get(timeout=WAIT_SECONDS).reason for _ in range(2)] == [f"body over {MAX_BODY_BYTES} bytes"] * 2


def test_survives_bad_input_and_a_failing_subscriber(listener, events):
    def broken(event):
        raise RuntimeError("subscriber bug")

    listener.subscribe(broken)
    httpx.post(listener.url, content=b"{")
    assert httpx.post(listener.url, json=payload()).status_code == 200
    assert [events.get(timeout=WAIT_SECONDS).verdict for _ in range(2)] == [REFUSED, "accepted"]


def test_only_post_on_the_callback_path(listener):
    assert httpx.get(listener.url).status_code == 405
    assert httpx.post(listener.url.replace("/callback", "/other"), json=payload()).status_code == 404


def test_without_a_configured_secret_it_says_it_cannot_verify(tmp_path):
    with Receiver(open_inbox(tmp_path), callback_secret="") as open_listener:
        assert not open_listener.verifies
        assert httpx.post(open_listener.url, json=payload(secretKey="")).status_code == 200


# --- the simulator's callbacks ---------------------------------------------------------------

NOTIFICATION_PATH = "/api/Integration/v1/notification"
ORDER_PATH = "/api/integration/v1.0/orders/"
SANDBOX_ACCOUNT, FIXED_PRODUCT, FIXED_VALUE = 1001, 101, 25.0  # the simulator's showcase product
GRACE_SECONDS = 1.5  # after the order is final; a callback is due at once (fast timing)


def place_final_order(sim, auth) -> str:
    """Place an order and wait (bounded) until Get order says it is final."""
    request_id = str(uuid.uuid4())
    body = {
        "RequestId": request_id,
        "AccountId": SANDBOX_ACCOUNT,
        "Products": [{"ProductId": FIXED_PRODUCT, "Quantity": 1, "Value": FIXED_VALUE}],
    }
    httpx.post(sim.base_url + "/api/integration/v1.0/orders/checkout", json=body, auth=auth).raise_for_status()
    deadline = time.monotonic() + WAIT_SECONDS
    while httpx.get(sim.base_url + ORDER_PATH + request_id, auth=auth).json()["status"] != "Succeeded":
        assert time.monotonic() < deadline, "the order never became final"
        time.sleep(0.05)
    return request_id


def test_simulator_callback_reaches_the_listener_and_none_when_callbacks_are_off(
    sim_factory, demo_credentials, listener, events
):
    sim = sim_factory(brands=20)
    auth = demo_credentials["acme-sandbox"].auth

    def configure(production_url: str) -> None:
        config = {"notificationUrl": production_url, "notificationUrlSandbox": listener.url, "secretKey": SECRET}
        httpx.post(sim.base_url + NOTIFICATION_PATH, json=config, auth=auth).raise_for_status()

    configure("https://callbacks.example.com/giftdesk")
    delivered = place_final_order(sim, auth)
    event = events.get(timeout=WAIT_SECONDS)
    assert event.accepted and event.event_id == f"callback:{delivered}" and event.payload["status"] == "succeeded"

    configure("")  # SPEC Events rule 2: no callbacks at all, sandbox included
    silent = place_final_order(sim, auth)
    with pytest.raises(queue.Empty):
        events.get(timeout=GRACE_SECONDS)
    assert sim.callback_attempts(silent) == []


def test_accepts_refused_at_the_file_limit_are_said_once_a_minute_not_each(caplog):
    import logging

    from tui.listener_guard import AcceptsAtTheLimit

    said = AcceptsAtTheLimit()
    refused = logging.LogRecord(
        "asyncio", logging.ERROR, __file__, 1, "socket.accept() out of system resource", (), None
    )
    other = logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "Task exception was never retrieved", (), None)
    with caplog.at_level(logging.WARNING, logger="giftdesk.receiver"):
        kept = [said.filter(refused) for _ in range(1000)]
    assert not any(kept) and said.filter(other)
    assert [r.getMessage() for r in caplog.records if r.name == "giftdesk.receiver"] == [
        "at the open-files limit: new connections wait a second (the slowest are being closed)"
    ]
