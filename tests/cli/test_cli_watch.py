"""`giftdesk watch` and the --exit-status of the single watches, against the simulator."""

from __future__ import annotations

import itertools
import json

import pytest
from click.testing import CliRunner
from watch_support import CREDENTIAL, payout_code, place

from tui.cli import main


@pytest.fixture
def giftdesk(monkeypatch, sim):
    monkeypatch.setenv("GIFTDESK_BASE_URL", sim.base_url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", CREDENTIAL.client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", CREDENTIAL.client_secret)
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(main, list(args), input=input, catch_exceptions=False)

    return invoke


def records(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_ndjson_one_line_per_change_and_exit_6_when_one_failed(giftdesk, sim):
    good, bad = place(sim, "10.00"), place(sim, "10.13")
    result = giftdesk("watch", good, bad, "--json", "--exit-status")
    assert result.exit_code == 6, result.stderr
    lines = records(result.stdout)
    assert all(set(line) >= {"kind", "requestId", "status", "final", "at", "cards"} for line in lines)
    last = {line["requestId"]: line for line in lines}
    assert (last[good]["status"], last[good]["final"]) == ("Succeeded", True)
    assert (last[bad]["status"], last[bad]["final"]) == ("Failed", True)
    for request_id in (good, bad):  # one line per change: never the same status twice in a row
        statuses = [line["status"] for line in lines if line["requestId"] == request_id]
        assert all(a != b for a, b in itertools.pairwise(statuses))


def test_without_exit_status_a_bad_ending_exits_0(giftdesk, sim):
    result = giftdesk("watch", place(sim, "10.13"))
    assert result.exit_code == 0, result.stderr
    assert "Failed  final" in result.stdout


def test_payouts_from_a_file_are_masked(giftdesk, sim, tmp_path):
    code = payout_code(sim, "unclaimed@example.com")
    order = place(sim)
    listing = tmp_path / "incident.txt"
    listing.write_text(f"# customer batch\n{order}\n\n{code}\n")
    result = giftdesk("watch", "--from-file", str(listing), "--json", "--exit-status")
    assert result.exit_code == 6, result.stderr
    token = code.rsplit("/", 1)[1]
    assert token[:8] not in result.stdout
    payouts = [line for line in records(result.stdout) if line["kind"] == "payout"]
    assert payouts[-1]["status"] == "Unclaimed" and payouts[-1]["weblink"].startswith("****")
    assert {line["requestId"] for line in records(result.stdout) if line["kind"] == "order"} == {order}


def test_an_unknown_request_id_is_refused(giftdesk):
    result = giftdesk("watch", "W-never-placed", "--json")
    assert result.exit_code == 3
    assert records(result.stdout)[-1]["status"] == "Refused"


def test_nothing_to_watch_is_bad_input(giftdesk):
    result = giftdesk("watch")
    assert result.exit_code == 2 and "nothing to watch" in result.stderr


def test_order_show_and_payout_status_watch_take_exit_status(giftdesk, sim):
    failed = place(sim, "10.13")
    shown = giftdesk("order", "show", failed, "--watch", "--interval", "0.2", "--exit-status", "--json")
    assert shown.exit_code == 6, shown.stderr
    assert json.loads(shown.stdout)["status"] == "Failed"
    assert giftdesk("order", "show", failed, "--watch", "--interval", "0.2").exit_code == 0

    code = payout_code(sim, "reversed@example.com")
    followed = giftdesk("payout", "status", code, "--watch", "--interval", "0.2", "--exit-status")
    # Completed is final for a watch (it may be Reversed later): exit 0 then.
    assert followed.exit_code == 0, followed.stderr
    returned = payout_code(sim, "failed@example.com")
    assert giftdesk("payout", "status", returned, "--watch", "--interval", "0.2", "--exit-status").exit_code == 6
