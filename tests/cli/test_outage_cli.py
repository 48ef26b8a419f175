"""Limits when things go wrong (issue 35), driven from shells as a runbook does: an outage spends none of
the provider's budget (DESIGN rule 11: only a request that reached the service counts), and six
`giftdesk order place` at once on one profile keep Place order's pacing together (0 answers of 429)."""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import uuid
from datetime import date
from pathlib import Path

import pytest

from tui.simulator.rate_limits import PROVIDER_LIMITS

pytestmark = pytest.mark.usefixtures("provider_limits")  # DESIGN's table, as a user has it
GIFTDESK = str(Path(sys.executable).parent / "giftdesk")  # the console script, as a shell runs it


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def shell_env(base_url: str, credential) -> dict[str, str]:
    """An ad-hoc profile from the environment: every shell of it shares the profile's limiter."""
    return {
        **os.environ,
        "GIFTDESK_BASE_URL": base_url,
        "GIFTDESK_CLIENT_ID": credential.client_id,
        "GIFTDESK_CLIENT_SECRET": credential.client_secret,
    }


def giftdesk(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([GIFTDESK, *args], env=env, capture_output=True, text=True, timeout=120)


def test_an_outage_spends_none_of_the_transactions_budget(sim_factory, demo_credentials):
    """The service is down while the transactions are asked (each try retried): when it is back, the
    report answers at once, not "held back by the provider's limits" for the next 59 minutes."""
    port, credential = free_port(), demo_credentials["acme-sandbox"]
    env = shell_env(f"http://127.0.0.1:{port}", credential)
    today = date.today().isoformat()
    for _ in range(2):
        down = giftdesk(env, "transactions", "--from", today, "--to", today, "--fresh")
        assert down.returncode == 5 and "connection failed" in down.stderr, down.stderr

    sim = sim_factory(port=port, limits=PROVIDER_LIMITS)  # the service is back
    back = giftdesk(env, "transactions", "--from", today, "--to", today, "--fresh", "--json")
    assert back.returncode == 0, back.stderr
    assert [logged.status for logged in sim.requests("transactions")] == [200]


def test_a_429_still_moves_the_next_turn(sim_factory, demo_credentials):
    """A request that reached the service and was refused (429) counts: the next shell waits it out."""
    credential = demo_credentials["acme-sandbox"]
    sim = sim_factory(limits=(("exchange_rates", 1, 3.0),))
    env = shell_env(sim.base_url, credential)
    assert giftdesk(env, "rates", "--fresh").returncode == 0
    env["GIFTDESK_LIMITS"] = "exchange_rates=100/s"  # this shell does not know the service's limit
    refused = giftdesk({**env, "GIFTDESK_REQUEST_DEADLINE": "30"}, "rates", "--fresh")
    assert refused.returncode == 0, refused.stderr
    statuses = [logged.status for logged in sim.requests("exchange_rates")]
    assert statuses[-1] == 200 and 429 in statuses
    refused_at = next(logged.at for logged in sim.requests("exchange_rates") if logged.status == 429)
    answered_at = sim.requests("exchange_rates")[-1].at
    assert answered_at - refused_at >= 0.9  # the retry waited for the Retry-After the 429 gave


def test_six_order_places_at_once_meet_no_429(sim_factory, demo_credentials):
    """Six shells place an order each, at once, on one profile, against a simulator enforcing Place order's
    pacing (500 ms apart, 6 orders of a product a minute) and 2/s: every one placed, no answer of 429."""
    credential = demo_credentials["acme-sandbox"]
    sim = sim_factory(limits=PROVIDER_LIMITS, place_limits=True)
    env = shell_env(sim.base_url, credential)
    place = ["order", "place", "--account", "1001", "--product", "201", "--value", "10", "--yes", "--json"]
    shells = [
        subprocess.Popen([GIFTDESK, *place, "--request-id", str(uuid.uuid4())], env=env, stderr=subprocess.PIPE)
        for _ in range(6)
    ]
    errors = [shell.communicate(timeout=120)[1].decode() for shell in shells]
    assert [shell.returncode for shell in shells] == [0] * 6, errors
    log = sim.requests("place_order")
    assert [logged.status for logged in log] == [200] * 6, errors
    times = sorted(logged.at for logged in log)
    assert all(later - earlier >= 0.5 for earlier, later in itertools.pairwise(times))
