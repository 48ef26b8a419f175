"""`giftdesk listen` as a real process: kill -9 in the middle of the simulator's burst of webhooks,
start it again: every delivery that got a 2xx is in the inbox exactly once, and the simulator's
retries deliver the rest. And SIGTERM lets a delivery in flight finish before it ends."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tui.local.inbox import SqliteInbox, inbox_path
from tui.simulator.webhooks import PRODUCT_UPDATED, initial_secret

WAIT_SECONDS = 60.0
SECRET_VARIABLE = "TEST_WEBHOOK_SECRET"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_listen(sim, port: int, tmp_path: Path, run: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": "acme-sandbox-client",
        "GIFTDESK_CLIENT_SECRET": "sim-acme-sandbox-secret",
        SECRET_VARIABLE: initial_secret(sim.settings.seed, "acme-sandbox"),
    }
    with open(tmp_path / f"listen-{run}.out", "wb") as out, open(tmp_path / f"listen-{run}.err", "wb") as err:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tui",
                "listen",
                "--port",
                str(port),
                "--json",
                "--webhook-secret-env",
                SECRET_VARIABLE,
                "--secret-env",
                SECRET_VARIABLE,
                "--rate-limit",
                "1000",
            ],
            env=env,
            stdout=out,
            stderr=err,
        )
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return process
        except httpx.TransportError:
            pass
        assert process.poll() is None, (tmp_path / f"listen-{run}.err").read_text()
        assert time.monotonic() < deadline, "giftdesk listen did not start"
        time.sleep(0.05)


def answered(sim) -> set[str]:
    return {a["msgId"] for a in sim.webhook_attempts(PRODUCT_UPDATED) if a["outcome"] == 200}


@pytest.fixture
def processes():
    started: list[subprocess.Popen] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_kill_9_mid_burst_loses_nothing_and_keeps_nothing_twice(sim_factory, tmp_path, processes):
    sim = sim_factory(brands=60)
    port = free_port()
    processes.append(first := start_listen(sim, port, tmp_path, 1))
    sim.set_webhook_endpoint("acme-sandbox", f"http://127.0.0.1:{port}/webhooks")
    changes = sim.change_catalog(prices=80, stock=40)
    events = len(changes.priced) + len(changes.out_of_stock) + len(changes.back_in_stock)
    deadline = time.monotonic() + WAIT_SECONDS
    while len(answered(sim)) < 10:
        assert time.monotonic() < deadline, "no delivery was answered"
        time.sleep(0.002)
    first.send_signal(signal.SIGKILL)  # in the middle of the burst
    first.wait()
    assert len(answered(sim)) < events, "the burst was over before the kill"

    processes.append(second := start_listen(sim, port, tmp_path, 2))
    deadline = time.monotonic() + WAIT_SECONDS
    while len(answered(sim)) < events:
        assert time.monotonic() < deadline, f"only {len(answered(sim))} of {events} deliveries were answered"
        time.sleep(0.1)
    second.send_signal(signal.SIGTERM)
    second.wait(timeout=30)

    with SqliteInbox("env", inbox_path("env")) as inbox:
        kept = [d.event_id for d in inbox.since() if d.accepted]
    assert len(kept) == len(set(kept)) == events
    assert set(kept) == answered(sim)  # every 2xx is in the inbox, once
    attempts = sim.webhook_attempts(PRODUCT_UPDATED)
    assert any(a["outcome"] != 200 for a in attempts)  # some met the dead receiver, and were retried


def test_sigterm_lets_a_delivery_in_flight_finish(sim_factory, tmp_path, processes):
    from test_receiver import event_body, signed

    sim = sim_factory(brands=20)
    port = free_port()
    processes.append(listen := start_listen(sim, port, tmp_path, 1))
    body = event_body().encode()
    headers = signed(body.decode(), initial_secret(sim.settings.seed, "acme-sandbox"))
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(
            f"POST /webhooks HTTP/1.1\r\nhost: x\r\ncontent-length: {len(body)}\r\n{head}\r\n".encode() + body[:10]
        )
        time.sleep(0.3)
        listen.send_signal(signal.SIGTERM)  # the delivery is half read
        time.sleep(0.3)
        connection.sendall(body[10:])
        answer = connection.recv(4096).decode()
    assert answer.startswith("HTTP/1.1 200"), answer
    listen.wait(timeout=30)
    with SqliteInbox("env", inbox_path("env")) as inbox:
        assert [d.event_id for d in inbox.since()] == [headers["svix-id"]]


def test_an_output_that_cannot_be_written_is_said_and_stops_the_receiver(sim_factory, tmp_path, processes):
    """`giftdesk listen --json | head -1`: once the reader is gone, nothing is acknowledged
    unseen for long; what was answered is in the inbox, and the reason is said on stderr."""
    from test_receiver import event_body, signed

    sim = sim_factory(brands=20)
    port = free_port()
    env = {
        **os.environ,
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": "acme-sandbox-client",
        "GIFTDESK_CLIENT_SECRET": "sim-acme-sandbox-secret",
        SECRET_VARIABLE: initial_secret(sim.settings.seed, "acme-sandbox"),
    }
    with open(tmp_path / "listen.err", "wb") as err:
        listen = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tui",
                "listen",
                "--port",
                str(port),
                "--json",
                "--webhook-secret-env",
                SECRET_VARIABLE,
                "--secret-env",
                SECRET_VARIABLE,
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
        )
    processes.append(listen)
    assert listen.stdout is not None
    deadline = time.monotonic() + WAIT_SECONDS
    while "Waiting for deliveries" not in (tmp_path / "listen.err").read_text():
        assert listen.poll() is None and time.monotonic() < deadline, (tmp_path / "listen.err").read_text()
        time.sleep(0.05)
    listen.stdout.close()  # the reader went away, as `head -1` does

    answers = []
    for _ in range(3):
        body = event_body()
        try:
            answers.append(
                httpx.post(
                    f"http://127.0.0.1:{port}/webhooks",
                    content=body,
                    timeout=10,
                    headers=signed(body, initial_secret(sim.settings.seed, "acme-sandbox")),
                )
            )
        except httpx.TransportError:
            break  # the receiver has stopped: nothing more is acknowledged
    assert listen.wait(timeout=WAIT_SECONDS) != 0
    said = (tmp_path / "listen.err").read_text()
    assert "cannot write to standard output" in said and "stays in the inbox" in said, said
    assert "Traceback" not in said
    with SqliteInbox("env", inbox_path("env")) as inbox:
        kept = {d.event_id for d in inbox.since()}
    assert {answer.request.headers["svix-id"] for answer in answers if answer.status_code == 200} <= kept
