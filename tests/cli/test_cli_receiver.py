"""`giftdesk inbox` (NDJSON, --since, verdicts) and `giftdesk listen`'s start: bad secrets refused
before anything listens, an address beyond loopback said loudly, the help text true."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from tui.cli import main
from tui.local.inbox import ACCEPTED, Delivery, SqliteInbox, inbox_path
from tui.simulator.webhooks import initial_secret


@pytest.fixture
def giftdesk(monkeypatch, sim, demo_credentials):
    credential = demo_credentials["acme-sandbox"]
    monkeypatch.setenv("GIFTDESK_BASE_URL", sim.base_url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", credential.client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", credential.client_secret)
    runner = CliRunner()
    return lambda *args: runner.invoke(main, list(args), catch_exceptions=False)


def test_inbox_lists_what_was_kept_as_ndjson_and_a_table(giftdesk):
    now = datetime.now(UTC)
    with SqliteInbox("env", inbox_path("env")) as inbox:
        inbox.keep(Delivery("msg_old", "productupdated.v1", ACCEPTED, now - timedelta(days=3), "127.0.0.1", {}))
        inbox.keep(
            Delivery.accepted_now(
                "callback:REQ-1", "callback", {"requestId": "REQ-1", "secretKey": "s3cr3t-value"}, "127.0.0.1"
            )
        )
        inbox.keep(Delivery.refused_now("webhook", "no matching signature found", "203.0.113.9"))
        inbox.mark("callback:REQ-1", "order REQ-1 Succeeded; settled on the watch list")
    result = giftdesk("inbox", "--json", "--since", "yesterday")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [(line["eventId"], line["kind"], line["verdict"]) for line in lines] == [
        ("callback:REQ-1", "callback", "accepted"),
        (lines[1]["eventId"], "webhook", "refused"),
    ]
    assert lines[0]["outcome"] == "order REQ-1 Succeeded; settled on the watch list" and lines[0]["at"]
    assert lines[1]["reason"] == "no matching signature found"
    table = giftdesk("inbox")
    assert "msg_old" in table.output and "refused: no matching signature found" in table.output
    assert "s3cr3t" not in table.output + result.output
    assert giftdesk("inbox", "--since", "someday").exit_code == 2


def test_listen_refuses_a_webhook_secret_it_cannot_use(giftdesk, monkeypatch):
    monkeypatch.setenv("BAD_SECRET", "whsec_%%% not base64")
    result = giftdesk("listen", "--port", "0", "--webhook-secret-env", "BAD_SECRET")
    assert result.exit_code == 2 and "BAD_SECRET does not hold a webhook signing secret" in result.output
    result = giftdesk("listen", "--port", "0", "--webhook-secret-env", "UNSET_VARIABLE_X")
    assert result.exit_code == 2 and "UNSET_VARIABLE_X is not set" in result.output


def test_listen_help_tells_how_production_reaches_it(giftdesk):
    help_text = giftdesk("listen", "--help").output
    for words in ("--host", "--webhook-secret-env", "/webhooks", "/health", "reverse proxy", "docs/receiver.md"):
        assert words in help_text
    assert "forwards to it" not in help_text


def test_listen_beyond_loopback_says_so_loudly_and_stops_on_sigterm(sim, tmp_path):
    env = {
        **os.environ,
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": "acme-sandbox-client",
        "GIFTDESK_CLIENT_SECRET": "sim-acme-sandbox-secret",
        "S": initial_secret(1, "acme-sandbox"),
    }
    with open(tmp_path / "err", "wb") as err:
        listen = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tui",
                "listen",
                "--host",
                "0.0.0.0",
                "--port",
                "0",
                "--webhook-secret-env",
                "S",
                "--secret-env",
                "S",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        deadline = time.monotonic() + 30
        while "Waiting for deliveries" not in (tmp_path / "err").read_text():
            assert listen.poll() is None and time.monotonic() < deadline, (tmp_path / "err").read_text()
            time.sleep(0.05)
        listen.send_signal(signal.SIGTERM)
        listen.wait(timeout=30)
    finally:
        if listen.poll() is None:
            listen.kill()
    said = (tmp_path / "err").read_text()
    assert "WARNING: listening on 0.0.0.0: reachable from the network" in said
    assert initial_secret(1, "acme-sandbox") not in said


def test_listen_with_an_unusable_inbox_says_which_file_and_listens_nowhere(giftdesk):
    path = inbox_path("env")
    path.mkdir(parents=True)  # a folder where the inbox's file should be
    result = giftdesk("listen", "--port", "0", "--secret-env", "HOME", "--allow-unverified")
    assert result.exit_code == 2
    assert str(path) in result.output and "move it aside" in result.output.lower()


def test_listen_without_a_secret_does_not_start_and_names_the_option(giftdesk, monkeypatch):
    monkeypatch.setenv("S", initial_secret(1, "acme-sandbox"))
    # The simulator stores no callback secret for this credential: callbacks could not be verified.
    no_callback_secret = giftdesk("listen", "--port", "0", "--webhook-secret-env", "S")
    assert no_callback_secret.exit_code == 2
    assert "no callback secret" in no_callback_secret.output and "--secret-env" in no_callback_secret.output
    assert "--allow-unverified" in no_callback_secret.output
    no_webhook_secret = giftdesk("listen", "--port", "0", "--secret-env", "S")
    assert no_webhook_secret.exit_code == 2 and "--webhook-secret-env" in no_webhook_secret.output


def test_listen_refuses_a_proxy_address_that_is_not_one(giftdesk, monkeypatch):
    monkeypatch.setenv("S", initial_secret(1, "acme-sandbox"))
    result = giftdesk(
        "listen", "--port", "0", "--secret-env", "S", "--webhook-secret-env", "S", "--forwarded-allow-ips", "proxy\x1b"
    )
    assert result.exit_code == 2 and "is not an address" in result.output and "\x1b" not in result.output
