"""The receiver as the open internet meets it (issue 37): a flood of refused deliveries from many
forwarded sources, a full disk (a real tmpfs), slow senders under a low file limit, controls in
what it prints, and /metrics. The team database's outage and several receivers on one team:
tests/team/test_receiver_team.py."""

from __future__ import annotations

import contextlib
import http.client
import logging
import socket
import subprocess
import time
import uuid
from pathlib import Path

import httpx
import pytest
from receiver_support import CALLBACK_SECRET, callback, post_json, start_listen

from tui.listener import Receiver, ReceiverSettings
from tui.local.inbox import REFUSED, SqliteInbox

WAIT_SECONDS = 15.0
FLOOD = 400  # refused deliveries, each from an address of its own


@pytest.fixture
def processes():
    started: list[subprocess.Popen] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


def start_receiver(path: Path, **settings) -> Receiver:
    return Receiver(
        lambda: SqliteInbox("acme", path, check_same_thread=False),
        callback_secret=CALLBACK_SECRET,
        settings=ReceiverSettings(**settings),
    ).start()


def refused_rows(path: Path) -> int:
    with SqliteInbox("acme", path) as inbox:
        return sum(1 for delivery in inbox.since() if delivery.verdict == REFUSED)


# --- 2 and 3: refusals bounded, forwarded sources believed only from the proxies named -----------------


def test_a_flood_of_refused_deliveries_from_many_forwarded_sources_keeps_the_inbox_small(tmp_path):
    path = tmp_path / "inbox.sqlite3"
    # Behind the same machine's proxy, believed: every forwarded address is a source of its own.
    # The shared budget lowered (5 a second) so that this machine's pace of requests exceeds it.
    receiver = start_receiver(path, forwarded_allow_ips=("127.0.0.1",), unverified_per_second=5.0, unverified_burst=20)
    statuses: dict[int, int] = {}
    connection = http.client.HTTPConnection("127.0.0.1", receiver.port, timeout=10)
    try:
        for number in range(FLOOD):
            status = post_json(
                connection,
                "/callback",
                callback(f"forged-{number}", secret="not-the-secret"),
                {"X-Forwarded-For": f"198.51.{number // 200}.{number % 200}"},
            )
            statuses[status] = statuses.get(status, 0) + 1
        genuine = post_json(connection, "/callback", callback(f"genuine-{uuid.uuid4().hex}"))
    finally:
        connection.close()
        receiver.stop()
    assert set(statuses) <= {403, 429} and statuses.get(429, 0) > FLOOD / 2, statuses  # the shared budget held
    kept = refused_rows(path)
    size = sum(f.stat().st_size for f in tmp_path.iterdir() if f.name.startswith("inbox.sqlite3"))
    print(f"{FLOOD} refused from {FLOOD} sources: {statuses}; {kept} kept; inbox files {size:,} bytes")
    assert kept == ReceiverSettings().refused_kept_per_hour
    assert size < 2 * 1024 * 1024
    # The provider's own source has a budget of its own: it delivered nothing yet, so it waits its turn.
    assert genuine in (200, 429)


def test_x_forwarded_for_is_believed_only_from_the_proxies_named(tmp_path):
    path = tmp_path / "inbox.sqlite3"
    receiver = start_receiver(path, rate_per_second=1.0, rate_burst=10)  # no proxy named
    try:
        forged = httpx.post(receiver.url, json=callback("x", secret="nope"), headers={"X-Forwarded-For": "203.0.113.7"})
        for _ in range(30):  # one address, whatever it claims: its own bucket runs dry
            last = httpx.post(
                receiver.url,
                json=callback("x", secret="nope"),
                headers={"X-Forwarded-For": f"203.0.113.{uuid.uuid4().int % 250}"},
            )
    finally:
        receiver.stop()
    assert forged.status_code == 403 and last.status_code == 429
    with SqliteInbox("acme", path) as inbox:
        assert {delivery.source for delivery in inbox.since()} == {"127.0.0.1"}


def test_old_refused_samples_are_pruned_and_accepted_ones_kept(tmp_path):
    from datetime import UTC, datetime, timedelta

    from tui.local.inbox import ACCEPTED, Delivery

    path = tmp_path / "inbox.sqlite3"
    long_ago = datetime.now(UTC) - timedelta(days=30)
    with SqliteInbox("acme", path) as inbox:
        inbox.keep(Delivery("refused:old", "callback", REFUSED, long_ago, "198.51.100.1", None, "secret"))
        inbox.keep(Delivery("callback:old", "callback", ACCEPTED, long_ago, "198.51.100.1", {}))
    receiver = start_receiver(path)  # prunes as it starts, then hourly
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while refused_rows(path):
            assert time.monotonic() < deadline, "the old refused sample was not pruned"
            time.sleep(0.1)
    finally:
        receiver.stop()
    with SqliteInbox("acme", path) as inbox:
        assert [delivery.event_id for delivery in inbox.since()] == ["callback:old"]


# --- 2: a full disk ----------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path):
    """A real 2 MB tmpfs (as root); elsewhere the test is skipped, saying why."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (root needed): {mounted.stderr.decode(errors='replace')}")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    with open(filler, "wb") as file, contextlib.suppress(OSError):
        while True:
            file.write(b"\0" * 65536)
            file.flush()
    return filler


def test_a_full_disk_answers_503_says_it_once_and_recovers_when_space_returns(small_disk, caplog):
    caplog.set_level(logging.WARNING, logger="giftdesk.receiver")
    receiver = start_receiver(small_disk / "inbox.sqlite3", rate_per_second=1000, rate_burst=1000)
    try:
        with httpx.Client(timeout=10) as client:
            assert client.post(receiver.url, json=callback("before")).status_code == 200
            filler = fill(small_disk)
            answers = [client.post(receiver.url, json=callback(f"full-{n}")).status_code for n in range(200)]
            assert 503 in answers, answers
            first_503 = answers.index(503)
            assert set(answers[first_503:]) == {503}, answers  # none is acknowledged once the disk is full
            health = client.get(f"{receiver.base_url}/health")
            assert health.status_code == 503 and "full" in health.json()["why"]
            said = [r for r in caplog.records if "cannot be written" in r.getMessage()]
            assert len(said) == 1, [r.getMessage() for r in said]

            filler.unlink()
            deadline = time.monotonic() + WAIT_SECONDS
            while client.get(f"{receiver.base_url}/health").status_code != 200:
                assert time.monotonic() < deadline, "the receiver did not recover once space returned"
                time.sleep(0.1)
            assert client.post(receiver.url, json=callback("after")).status_code == 200
            assert any("written again" in r.getMessage() for r in caplog.records)
    finally:
        receiver.stop()


def test_a_receiver_that_cannot_write_for_long_gives_up(small_disk):
    receiver = start_receiver(small_disk / "inbox.sqlite3", give_up_seconds=1.0)
    fill(small_disk)
    try:
        for n in range(50):
            with contextlib.suppress(httpx.TransportError):
                httpx.post(receiver.url, json=callback(f"x-{n}"), timeout=5)
        deadline = time.monotonic() + WAIT_SECONDS
        while not receiver.gave_up:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert receiver._server.should_exit
    finally:
        receiver.stop()


# --- 4: slow senders ---------------------------------------------------------------------------


def test_slow_senders_under_a_low_file_limit_leave_room_for_health_and_a_genuine_delivery(sim, tmp_path, processes):
    listen = start_listen(sim, tmp_path, file_limit=256)
    processes.append(listen.process)
    slow: list[socket.socket] = []
    try:
        for _ in range(300):  # more than the file limit: each dribbles its headers
            connection = socket.create_connection(("127.0.0.1", listen.port))
            connection.sendall(b"POST /callback HTTP/1.1\r\nHost: x\r\n")
            slow.append(connection)
        started = time.monotonic()
        health = httpx.get(f"{listen.base_url}/health", timeout=10)
        health_seconds = time.monotonic() - started
        started = time.monotonic()
        genuine = httpx.post(f"{listen.base_url}/callback", json=callback(f"slow-{uuid.uuid4().hex}"), timeout=10)
        genuine_seconds = time.monotonic() - started
        print(
            f"with 300 slow connections under 256 files: /health {health_seconds:.3f} s, delivery {genuine_seconds:.3f} s"
        )
        assert health.status_code == 200 and genuine.status_code == 200
        # The header deadline (5 s) closes what is left of them.
        time.sleep(7)
        closed = 0
        for connection in slow:
            connection.settimeout(0.5)
            try:
                closed += connection.recv(1) == b""
            except ConnectionResetError:  # aborted: closed as well
                closed += 1
            except TimeoutError:  # still open
                pass
    finally:
        for connection in slow:
            connection.close()
    assert closed == len(slow)
    assert "Too many open files" not in listen.stderr()
    assert listen.process.poll() is None


# --- 5 and 8: no secret, no start; what it prints is escaped ----------------------------------------


def test_listen_says_unverified_in_its_words_when_allowed_to_start_without_secrets(sim, tmp_path, processes):
    listen = start_listen(sim, tmp_path, "--allow-unverified", environ={"TEST_CALLBACK_SECRET": ""}, wait_healthy=True)
    processes.append(listen.process)
    listen.process.terminate()
    listen.process.wait(timeout=30)
    assert "acknowledged UNVERIFIED" in listen.stderr()


def test_every_line_listen_prints_shows_controls_instead_of_obeying_them(sim, tmp_path, processes):
    listen = start_listen(sim, tmp_path)
    processes.append(listen.process)
    hostile = "req-\u009b31m-\u202egnp.exe-\x1b]52;c;Zm9v\x07"
    assert httpx.post(f"{listen.base_url}/callback", json=callback(hostile), timeout=10).status_code == 200
    deadline = time.monotonic() + WAIT_SECONDS
    while "req-" not in listen.stderr() or "req-" not in listen.stdout():
        assert time.monotonic() < deadline, listen.stderr()
        time.sleep(0.05)
    listen.process.terminate()
    listen.process.wait(timeout=30)
    printed = listen.stderr() + listen.stdout()
    for control in ("\u009b", "\u202e", "\x1b", "\x07"):
        assert control not in printed


# --- 7: /metrics ---------------------------------------------------------------------------------


def test_metrics_answer_in_prometheus_text(tmp_path):
    receiver = start_receiver(tmp_path / "inbox.sqlite3")
    try:
        httpx.post(receiver.url, json=callback("m-1"))
        httpx.post(receiver.url, json=callback("m-2", secret="wrong"))
        metrics = httpx.get(f"{receiver.base_url}/metrics")
    finally:
        receiver.stop()
    assert metrics.status_code == 200 and metrics.headers["content-type"].startswith("text/plain")
    text = metrics.text
    assert 'giftdesk_receiver_deliveries_total{path="callback",verdict="accepted"} 1.0' in text
    assert 'giftdesk_receiver_refusals_total{reason="secret"} 1.0' in text
    assert "giftdesk_receiver_inbox_up 1.0" in text
    assert "giftdesk_receiver_open_connections" in text and "giftdesk_receiver_inbox_lag_seconds" in text
