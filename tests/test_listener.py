"""The callback listener over real HTTP: verification, bad input, and the simulator's callbacks."""

from __future__ import annotations

import queue
import uuid

import httpx
import pytest

from tui.listener import MAX_BODY_BYTES, SECRET_MISMATCH_STATUS, CallbackAccepted, CallbackListener, CallbackRejected

SECRET = "listener-test-secret"
WAIT_SECONDS = 10.0  # generous for a loaded machine; a passing test returns as soon as the event lands


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


@pytest.fixture
def listener():
    with CallbackListener(SECRET) as running:
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
    assert isinstance(event, CallbackAccepted)
    assert (event.request_id, event.status, event.is_final) == ("req-listener-1", "Succeeded", True)


def test_lower_case_status_is_final(listener, events):
    assert httpx.post(listener.url, json=payload(status="succeeded")).status_code == 200
    event = events.get(timeout=WAIT_SECONDS)
    assert event.status == "Succeeded" and event.is_final
    assert httpx.post(listener.url, json=payload(status="partialfailed")).status_code == 200
    assert events.get(timeout=WAIT_SECONDS).status == "PartialFailed"


def test_unknown_status_is_kept_and_not_final(listener, events):
    assert httpx.post(listener.url, json=payload(status="Refunded")).status_code == 200
    event = events.get(timeout=WAIT_SECONDS)
    assert (event.status, event.is_final) == ("Refunded", False)


@pytest.mark.parametrize("secret", ["wrong", "", "listener-test-secreT", "ünïcode", None], ids=repr)
def test_bad_secret_is_rejected_and_nothing_is_trusted(listener, events, secret):
    body = payload(requestId="req-forged", secretKey=secret)
    if secret is None:
        del body["secretKey"]
    response = httpx.post(listener.url, json=body)
    assert response.status_code == SECRET_MISMATCH_STATUS
    event = events.get(timeout=WAIT_SECONDS)
    assert isinstance(event, CallbackRejected)
    assert "req-forged" not in repr(event)  # nothing from the body is carried on


@pytest.mark.parametrize(
    "content",
    [b"", b"{not json", b"[1, 2]", b'"a string"', b"\xff\xfe", b"[" * 5000 + b"]" * 5000],
    ids=["empty", "broken", "array", "string", "not utf-8", "deep"],
)
def test_malformed_body_is_400_and_changes_nothing(listener, events, content):
    response = httpx.post(listener.url, content=content, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert events.empty()


@pytest.mark.parametrize(
    "changes",
    [{"requestId": None}, {"requestId": "  "}, {"orderId": "abc"}, {"status": 3}, {"secretKey": 42}],
    ids=["no requestId", "blank requestId", "orderId text", "status number", "secret number"],
)
def test_wrong_shape_is_400(listener, events, changes):
    body = {key: value for key, value in payload(**changes).items() if value is not None}
    assert httpx.post(listener.url, json=body).status_code == 400
    assert events.empty()


def test_oversized_body_is_400_declared_or_streamed(listener, events):
    big = payload(padding="x" * MAX_BODY_BYTES)
    assert httpx.post(listener.url, json=big).status_code == 400
    chunks = iter([b'{"padding": "', b"x" * MAX_BODY_BYTES, b'"}'])  # chunked: no Content-Length
    assert httpx.post(listener.url, content=chunks).status_code == 400
    assert events.empty()


def test_survives_bad_input_and_a_failing_subscriber(listener, events):
    def broken(event):
        raise RuntimeError("subscriber bug")

    listener.subscribe(broken)
    httpx.post(listener.url, content=b"{")
    assert httpx.post(listener.url, json=payload()).status_code == 200
    assert isinstance(events.get(timeout=WAIT_SECONDS), CallbackAccepted)


def test_only_post_on_the_callback_path(listener):
    assert httpx.get(listener.url).status_code == 405
    assert httpx.post(listener.url.replace("/callback", "/other"), json=payload()).status_code == 404


def test_without_a_configured_secret_it_says_it_cannot_verify():
    with CallbackListener("") as open_listener:
        assert not open_listener.verifies
        assert httpx.post(open_listener.url, json=payload(secretKey="")).status_code == 200
