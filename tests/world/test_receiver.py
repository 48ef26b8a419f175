"""The receiver over real HTTP on loopback: webhook verification (signature, 5-minute tolerance,
rotation, replays), callbacks, kept before answered, refusals keeping nothing of the body, the
deployable bits (health, size cap, rate limit, access log), and the simulator's signed webhooks."""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import time
import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from standardwebhooks import Webhook

from tui.listener import HEALTH_PATH, Receiver, ReceiverSettings
from tui.local.inbox import ACCEPTED, CALLBACK, REFUSED, WEBHOOK, SqliteInbox
from tui.simulator.webhooks import HOSTILE_KINDS, ORDER_COMPLETED, PRODUCT_UPDATED, initial_secret

OLD_SECRET = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
NEW_SECRET = "whsec_" + "C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
OTHER_SECRET = "whsec_" + "QWxsIHlvdXIgYmFzZSBhcmUgYmVsb25n"
CALLBACK_SECRET = "receiver-callback-secret"
WAIT_SECONDS = 15.0
BODY_MARKER = "body-marker-5b1f"  # put in bodies that must not be kept


def signed(body: str, *secrets: str, message_id: str | None = None, when: datetime | None = None) -> dict[str, str]:
    message_id = message_id or f"msg_{uuid.uuid4().hex}"
    when = when or datetime.now(UTC)
    signature = " ".join(Webhook(secret).sign(message_id, when, body) for secret in secrets)
    return {
        "svix-id": message_id,
        "svix-timestamp": str(int(when.timestamp())),
        "svix-signature": signature,
        "content-type": "application/json",
    }


def event_body(kind: str = PRODUCT_UPDATED, **data) -> str:
    return json.dumps({"type": kind, "timestamp": datetime.now(UTC).isoformat(), "data": {"productId": 5, **data}})


@pytest.fixture
def inbox_path(tmp_path):
    return tmp_path / "inbox" / "acme.sqlite3"


@pytest.fixture
def start_receiver(inbox_path):
    started: list[Receiver] = []

    def start(secrets=(OLD_SECRET,), **settings) -> Receiver:
        receiver = Receiver(
            lambda: SqliteInbox("acme", inbox_path, check_same_thread=False),
            callback_secret=CALLBACK_SECRET,
            webhook_secrets=secrets,
            settings=ReceiverSettings(**settings),
        ).start()
        started.append(receiver)
        return receiver

    yield start
    for receiver in started:
        receiver.stop()


def kept(inbox_path):
    with SqliteInbox("acme", inbox_path) as inbox:
        return inbox.since()


def test_a_good_webhook_is_on_disk_when_its_200_arrives(start_receiver, inbox_path):
    receiver = start_receiver()
    body = event_body()
    headers = signed(body, OLD_SECRET)
    response = httpx.post(receiver.webhook_url, content=body, headers=headers)
    assert response.status_code == 200
    # Read through a connection of its own, right after the answer: committed before it was sent.
    [delivery] = kept(inbox_path)
    assert (delivery.event_id, delivery.kind, delivery.verdict) == (headers["svix-id"], PRODUCT_UPDATED, ACCEPTED)
    assert delivery.payload["data"] == {"productId": 5}
    assert delivery.source == "127.0.0.1"


@pytest.mark.parametrize(
    ("headers_of", "reason"),
    [
        (lambda body: signed(body, OTHER_SECRET), "no matching signature found"),
        (
            lambda body: signed(body, OLD_SECRET, when=datetime.now(UTC) - timedelta(minutes=6)),
            "message timestamp too old",
        ),
        (
            lambda body: signed(body, OLD_SECRET, when=datetime.now(UTC) + timedelta(minutes=6)),
            "message timestamp too new",
        ),
        (lambda body: {**signed(body, OLD_SECRET), "svix-signature": "v1,!!not base64"}, "malformed signature or body"),
        (lambda body: {**signed(body, OLD_SECRET), "svix-signature": "garbage"}, "malformed signature or body"),
        (lambda body: {"content-type": "application/json"}, "missing svix-id, svix-timestamp or svix-signature"),
    ],
    ids=["bad signature", "stale", "from the future", "not base64", "no version", "no headers"],
)
def test_a_webhook_failing_verification_is_refused_and_nothing_of_it_kept(
    start_receiver, inbox_path, headers_of, reason
):
    receiver = start_receiver()
    body = event_body(note=BODY_MARKER)
    headers = headers_of(body)
    response = httpx.post(receiver.webhook_url, content=body, headers=headers)
    assert response.status_code == 400
    [delivery] = kept(inbox_path)
    assert (delivery.verdict, delivery.kind, delivery.reason, delivery.payload) == (REFUSED, WEBHOOK, reason, None)
    assert delivery.event_id.startswith("refused:")  # its claimed id is not trusted
    raw = b"".join(p.read_bytes() for p in inbox_path.parent.iterdir())
    assert BODY_MARKER.encode() not in raw and headers.get("svix-id", "msg_").encode() not in raw


def test_the_timestamp_tolerance_is_five_minutes(start_receiver):
    receiver = start_receiver()
    body = event_body()
    inside = signed(body, OLD_SECRET, when=datetime.now(UTC) - timedelta(minutes=4, seconds=50))
    assert httpx.post(receiver.webhook_url, content=body, headers=inside).status_code == 200


def test_during_a_rotation_either_secret_verifies(start_receiver, inbox_path):
    receiver = start_receiver(secrets=(OLD_SECRET, NEW_SECRET))
    for secrets in ((OLD_SECRET,), (NEW_SECRET,), (OTHER_SECRET, NEW_SECRET)):
        body = event_body()
        assert httpx.post(receiver.webhook_url, content=body, headers=signed(body, *secrets)).status_code == 200
    body = event_body()
    assert httpx.post(receiver.webhook_url, content=body, headers=signed(body, OTHER_SECRET)).status_code == 400
    assert [d.verdict for d in kept(inbox_path)] == [ACCEPTED] * 3 + [REFUSED]


def test_a_replay_or_redelivery_is_answered_but_kept_and_told_once(start_receiver, inbox_path):
    receiver = start_receiver()
    told: queue.Queue = queue.Queue()
    receiver.subscribe(told.put)
    body = event_body()
    headers = signed(body, OLD_SECRET)
    assert httpx.post(receiver.webhook_url, content=body, headers=headers).status_code == 200
    # The same message again (a replay), and signed anew as a retry is: acknowledged, not kept again.
    again = httpx.post(receiver.webhook_url, content=body, headers=headers)
    retry = httpx.post(
        receiver.webhook_url, content=body, headers=signed(body, OLD_SECRET, message_id=headers["svix-id"])
    )
    assert (again.status_code, again.json()["duplicate"], retry.status_code) == (200, True, 200)
    assert [d.event_id for d in kept(inbox_path)] == [headers["svix-id"]]
    assert told.get(timeout=WAIT_SECONDS).event_id == headers["svix-id"]
    assert told.empty()


def test_a_signed_body_that_is_not_an_event_is_refused(start_receiver, inbox_path):
    receiver = start_receiver()
    for body in ("[1, 2]", "not json " + BODY_MARKER):
        assert httpx.post(receiver.webhook_url, content=body, headers=signed(body, OLD_SECRET)).status_code == 400
    assert [d.reason for d in kept(inbox_path)] == ["body is not a JSON object", "body is not JSON"]


def test_callbacks_are_kept_by_request_id_and_a_wrong_secret_refused(start_receiver, inbox_path):
    receiver = start_receiver()
    callback = {
        "orderId": 7,
        "status": "succeeded",
        "totalCards": 1,
        "requestId": "REQ-7",
        "secretKey": CALLBACK_SECRET,
    }
    assert httpx.post(receiver.url, json=callback).status_code == 200
    assert httpx.post(receiver.url, json=callback).json()["duplicate"] is True  # the provider's retry
    forged = httpx.post(receiver.url, json={**callback, "requestId": BODY_MARKER, "secretKey": "guess"})
    assert forged.status_code == 403
    malformed = httpx.post(receiver.url, content=b"{", headers={"content-type": "application/json"})
    assert malformed.status_code == 400
    deliveries = kept(inbox_path)
    assert [(d.event_id, d.kind, d.verdict) for d in deliveries[:1]] == [("callback:REQ-7", CALLBACK, ACCEPTED)]
    assert "secretKey" not in deliveries[0].payload
    assert [(d.verdict, d.reason) for d in deliveries[1:]] == [
        (REFUSED, "secretKey does not match the configured secret"),
        (REFUSED, "body is not JSON"),
    ]
    raw = b"".join(p.read_bytes() for p in inbox_path.parent.iterdir())
    assert CALLBACK_SECRET.encode() not in raw and BODY_MARKER.encode() not in raw


def test_health_says_whether_the_inbox_can_be_written(start_receiver, inbox_path):
    receiver = start_receiver()
    assert httpx.get(receiver.base_url + HEALTH_PATH).json() == {"status": "ok"}
    blocker = sqlite3.connect(inbox_path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the file longer than the receiver waits (busy_timeout)
    try:
        body = event_body()
        assert (
            httpx.post(receiver.webhook_url, content=body, headers=signed(body, OLD_SECRET), timeout=30).status_code
            == 503
        )
        assert httpx.get(receiver.base_url + HEALTH_PATH).status_code == 503
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert kept(inbox_path) == []  # the sender retries: nothing was promised
    body = event_body()
    assert httpx.post(receiver.webhook_url, content=body, headers=signed(body, OLD_SECRET)).status_code == 200
    assert httpx.get(receiver.base_url + HEALTH_PATH).status_code == 200


def test_an_oversized_body_is_413_declared_or_streamed(start_receiver, inbox_path):
    receiver = start_receiver(max_body_bytes=1024)
    body = event_body(padding="x" * 2000)
    assert httpx.post(receiver.webhook_url, content=body, headers=signed(body, OLD_SECRET)).status_code == 413
    chunks = iter([b'{"padding": "', b"x" * 2000, b'"}'])  # chunked: no Content-Length
    assert httpx.post(receiver.url, content=chunks).status_code == 413
    assert [d.reason for d in kept(inbox_path)] == ["body over 1024 bytes"] * 2


def test_a_source_over_its_rate_gets_429_and_is_not_kept(start_receiver, inbox_path):
    receiver = start_receiver(rate_per_second=0.05, rate_burst=3)  # a token every 20 s: none comes back during the test
    answers = []
    for _ in range(5):
        body = event_body()
        answers.append(httpx.post(receiver.webhook_url, content=body, headers=signed(body, OLD_SECRET)))
    assert [a.status_code for a in answers] == [200, 200, 200, 429, 429]
    assert int(answers[-1].headers["retry-after"]) >= 1
    assert len(kept(inbox_path)) == 3


def test_the_access_log_is_json_without_secrets_or_bodies(start_receiver, caplog):
    receiver = start_receiver()
    caplog.set_level(logging.INFO, logger="giftdesk.receiver.access")
    body = event_body(recipientEmail="jane.doe@example.com")
    headers = signed(body, OLD_SECRET)
    httpx.post(receiver.webhook_url, content=body, headers=headers)
    httpx.post(
        receiver.url + "?secretKey=" + CALLBACK_SECRET,
        json={"secretKey": CALLBACK_SECRET, "requestId": "R", "status": "x"},
    )

    def logged():  # a request's line is written once its answer is sent: it may come a moment after
        return [json.loads(r.getMessage()) for r in caplog.records if r.name == "giftdesk.receiver.access"]

    lines = wait_for(lambda: len(logged()) == 2 and logged(), "both access log lines")
    assert [(line["path"], line["status"], line["verdict"]) for line in lines] == [
        ("/webhooks", 200, "accepted"),
        ("/callback", 200, "accepted"),
    ]
    assert lines[0]["event"] == headers["svix-id"] and lines[0]["kind"] == PRODUCT_UPDATED
    assert {"source", "method", "ms"} <= set(lines[0])
    # Everything but this test's own client's request lines (httpx logs its URLs when an earlier test's --debug left it on).
    text = "\n".join(
        caplog.handler.format(r) for r in caplog.records if r.name.split(".")[0] not in ("httpx", "httpcore")
    )
    for secret in (CALLBACK_SECRET, headers["svix-signature"], "jane.doe"):
        assert secret not in text


# --- the simulator's webhooks ------------------------------------------------------------------


def wait_for(condition, what: str):
    deadline = time.monotonic() + WAIT_SECONDS
    while not (found := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return found


def test_the_simulator_signs_product_and_order_events_per_credential(
    sim_factory, start_receiver, inbox_path, demo_credentials
):
    sim = sim_factory(brands=20)
    receiver = start_receiver(secrets=(initial_secret(sim.settings.seed, "acme-sandbox"),))
    sim.set_webhook_endpoint("acme-sandbox", receiver.webhook_url)
    sim.set_webhook_endpoint("other-sandbox", receiver.webhook_url)  # signed with other's secret: refused here
    changes = sim.change_catalog(prices=2, stock=1)
    changed = len(changes.priced) + len(changes.out_of_stock) + len(changes.back_in_stock)
    request_id = str(uuid.uuid4())
    body = {"RequestId": request_id, "AccountId": 1001, "Products": [{"ProductId": 101, "Quantity": 1, "Value": 25.0}]}
    httpx.post(
        sim.base_url + "/api/integration/v1.0/orders/checkout", json=body, auth=demo_credentials["acme-sandbox"].auth
    ).raise_for_status()

    def every_delivery():
        deliveries = kept(inbox_path)
        return (
            len([d for d in deliveries if d.accepted]) == changed + 1
            and len(deliveries) >= 2 * changed + 1
            and deliveries
        )

    deliveries = wait_for(every_delivery, "every delivery")  # other's are refused (and retried: a 4xx is not an answer)
    accepted = [d for d in deliveries if d.accepted]
    assert sorted(d.kind for d in accepted) == [ORDER_COMPLETED] + [PRODUCT_UPDATED] * changed
    order_event = next(d for d in accepted if d.kind == ORDER_COMPLETED)
    assert order_event.payload["data"]["requestId"] == request_id
    assert {d.reason for d in deliveries if not d.accepted} == {"no matching signature found"}


def test_a_rotation_loses_no_delivery(sim_factory, start_receiver, inbox_path):
    sim = sim_factory(brands=20)
    old = initial_secret(sim.settings.seed, "acme-sandbox")
    receiver = start_receiver(secrets=(old,))
    sim.set_webhook_endpoint("acme-sandbox", receiver.webhook_url)
    new = sim.rotate_webhook_secret("acme-sandbox")
    sim.change_catalog(prices=1)  # signed with both: the receiver still knowing only the old one accepts it
    wait_for(lambda: [d for d in kept(inbox_path) if d.accepted], "a delivery during the rotation")
    receiver.webhook_secrets = (old, new)  # the engineer adds the new secret
    sim.rotate_webhook_secret("acme-sandbox", grace_seconds=0)  # ... and the old ones expire
    receiver.webhook_secrets = (sim.state.webhooks.portal("acme-sandbox")["secrets"][-1],)
    sim.change_catalog(prices=1)
    wait_for(lambda: len([d for d in kept(inbox_path) if d.accepted]) == 2, "a delivery after the rotation")
    assert all(a["outcome"] == 200 for a in sim.webhook_attempts(PRODUCT_UPDATED))


def test_the_simulator_retries_until_answered(sim_factory, inbox_path, unused_port):
    sim = sim_factory(brands=20)
    secret = initial_secret(sim.settings.seed, "acme-sandbox")
    sim.set_webhook_endpoint("acme-sandbox", f"http://127.0.0.1:{unused_port}/webhooks")
    sim.change_catalog(prices=1)
    wait_for(lambda: len(sim.webhook_attempts(PRODUCT_UPDATED)) >= 2, "failed attempts")  # nobody listening yet
    with Receiver(
        lambda: SqliteInbox("acme", inbox_path, check_same_thread=False),
        webhook_secrets=(secret,),
        settings=ReceiverSettings(port=unused_port),
    ):
        wait_for(lambda: kept(inbox_path), "the retried delivery")
    attempts = sim.webhook_attempts(PRODUCT_UPDATED)
    assert attempts[-1]["outcome"] == 200 and attempts[0]["outcome"] != 200
    assert len({a["msgId"] for a in attempts}) == 1  # retries keep the id: a receiver recognises them


def test_hostile_mode_sends_deliveries_that_are_refused(sim_factory, start_receiver, inbox_path):
    sim = sim_factory(brands=20, hostile=True)
    receiver = start_receiver(secrets=(initial_secret(sim.settings.seed, "acme-sandbox"),))
    sim.set_webhook_endpoint("acme-sandbox", receiver.webhook_url)
    sim.change_catalog(prices=1)
    deliveries = wait_for(
        lambda: (d := kept(inbox_path)) and len(d) == 1 + len(HOSTILE_KINDS) and d, "hostile deliveries"
    )
    assert sorted(d.reason for d in deliveries if not d.accepted) == [
        "malformed signature or body",
        "message timestamp too old",
        "missing svix-id, svix-timestamp or svix-signature",
        "no matching signature found",
    ]
    assert [d.kind for d in deliveries if d.accepted] == [PRODUCT_UPDATED]


@pytest.fixture
def unused_port():
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
