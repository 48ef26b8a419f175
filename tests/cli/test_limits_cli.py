"""The limiter across processes (issue 27): two shells looping `giftdesk order show` on one profile
share its budget, measured by the simulator's request log; a long wait is told on stderr; `catalog --all`
pages at the catalog's rate with its pace and an ETA."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from tui.cli import main
from tui.simulator.rate_limits import PROVIDER_LIMITS

pytestmark = pytest.mark.usefixtures("provider_limits")  # DESIGN's table, as a user has it
GIFTDESK = str(Path(sys.executable).parent / "giftdesk")  # the console script, as a shell runs it
GET_ORDER_LIMIT = (4, 2.0)  # 4 requests in any 2 s: short, so that the test is quick
SHOWS_PER_SHELL = 6


def write_profile(limits: str) -> None:
    """A stored profile "shift" whose secret comes from $SHIFT_SECRET, with limit overrides."""
    path = Path(os.environ["GIFTDESK_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'version = 1\ncurrent = "shift"\n\n[profiles.shift]\nenvironment = "sandbox"\n'
        f'base_url = "{os.environ["SHIFT_URL"]}"\nclient_id = "acme-sandbox-client"\n'
        f'secret = {{ kind = "env", ref = "SHIFT_SECRET" }}\n\n[profiles.shift.limits]\n{limits}\n'
    )


def placed_order(sim, credential) -> str:
    request_id = str(uuid.uuid4())
    body = {"RequestId": request_id, "AccountId": 1001, "Products": [{"ProductId": 201, "Quantity": 1, "Value": 10}]}
    answer = httpx.post(sim.base_url + "/api/integration/v1.0/orders/checkout", json=body, auth=credential.auth)
    assert answer.status_code == 200, answer.text
    return request_id


def shell_loop(request_id: str) -> subprocess.Popen:
    """A runbook's loop: `for i in ...; do giftdesk order show ID; done`, in a process of its own."""
    show = [GIFTDESK, "order", "show", request_id, "--json"]
    script = f"for i in $(seq {SHOWS_PER_SHELL}); do {' '.join(show)} > /dev/null || exit 1; done"
    return subprocess.Popen(["sh", "-c", script], stderr=subprocess.PIPE, text=True)


def test_two_shells_looping_order_show_share_the_profiles_budget(sim_factory, demo_credentials, monkeypatch):
    requests, seconds = GET_ORDER_LIMIT
    sim = sim_factory(limits=(("get_order", requests, seconds), *PROVIDER_LIMITS[1:]))
    credential = demo_credentials["acme-sandbox"]
    monkeypatch.setenv("SHIFT_URL", sim.base_url)
    monkeypatch.setenv("SHIFT_SECRET", credential.client_secret)
    write_profile(f'get_order = "{requests}/{seconds:g}s"')
    request_id = placed_order(sim, credential)

    shells = [shell_loop(request_id) for _ in range(2)]
    errors = [shell.communicate(timeout=120)[1] for shell in shells]
    assert [shell.returncode for shell in shells] == [0, 0], errors

    log = sim.requests("get_order")
    assert [logged.status for logged in log] == [200] * 2 * SHOWS_PER_SHELL  # no 429: the limiter kept the limit
    times = [logged.at for logged in log]
    assert all(later - earlier >= seconds for earlier, later in zip(times, times[requests:], strict=False))


def test_a_wait_over_a_second_is_told_on_stderr(sim_factory, demo_credentials, monkeypatch):
    sim = sim_factory(limits=(("exchange_rates", 1, 3.0),))
    monkeypatch.setenv("SHIFT_URL", sim.base_url)
    monkeypatch.setenv("SHIFT_SECRET", demo_credentials["acme-sandbox"].client_secret)
    write_profile('exchange_rates = "1/3s"')
    runner = CliRunner()
    first, second = (runner.invoke(main, ["rates", "--fresh"], catch_exceptions=False) for _ in range(2))
    assert first.exit_code == second.exit_code == 0, second.stderr
    assert "waiting" not in first.stderr
    assert re.search(r"waiting [23] s for a turn at exchange_rates \(the provider allows 1/3s\)", second.stderr)
    assert [logged.status for logged in sim.requests("exchange_rates")] == [200, 200]


def test_an_override_that_does_not_read_is_a_clear_config_error(monkeypatch, sim):
    monkeypatch.setenv("SHIFT_URL", sim.base_url)
    write_profile('get_order = "lots"')
    result = subprocess.run([GIFTDESK, "accounts"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert (
        "profiles.shift: limits: get_order = 'lots' is not a limit" in result.stderr
        and "e.g. 4/hour, 120/min, 2/s" in result.stderr
    )
    assert "Traceback" not in result.stderr


def test_transactions_say_when_the_answer_is_the_local_copy_and_fresh_asks(sim_factory, demo_credentials, monkeypatch):
    sim = sim_factory(history=40, limits=PROVIDER_LIMITS)
    monkeypatch.setenv("SHIFT_URL", sim.base_url)
    monkeypatch.setenv("SHIFT_SECRET", demo_credentials["acme-sandbox"].client_secret)
    write_profile("")
    runner = CliRunner()

    def transactions(*extra: str):
        result = runner.invoke(
            main, ["transactions", "--from", "7d", "--to", "1d", "--json", *extra], catch_exceptions=False
        )
        assert result.exit_code == 0, result.stderr
        return result

    first, second, fresh = transactions(), transactions(), transactions("--fresh")
    assert "local copy" not in first.stderr and "local copy" not in fresh.stderr
    assert "from the local copy, fetched just now (--fresh asks the service)" in second.stderr
    assert second.stdout == first.stdout == fresh.stdout  # the same days, whoever answered
    assert len(sim.requests("transactions")) == 2


def test_catalog_all_pages_at_the_catalogs_rate_with_its_pace_and_an_eta_on_stderr(
    sim_factory, demo_credentials, monkeypatch, tmp_path
):
    """`catalog --all` on a terminal: it says how long its pages will take, draws a bar with an ETA, and
    asks no faster than the catalog's limit (2 in any second here, short so that the test is quick): 0 429s."""
    import json
    import pty
    import select

    sim = sim_factory(limits=(("catalog_v2", 2, 1.0),), brands=60)
    monkeypatch.setenv("SHIFT_URL", sim.base_url)
    monkeypatch.setenv("SHIFT_SECRET", demo_credentials["acme-sandbox"].client_secret)
    write_profile('catalog_v2 = "2/s"')
    output = tmp_path / "catalog.json"
    leader, follower = pty.openpty()  # stderr is a terminal (the bar is drawn there only); stdout a file
    with output.open("wb") as stdout:
        walk = subprocess.Popen(
            [GIFTDESK, "catalog", "--all", "--page-size", "10", "--json"], stdout=stdout, stderr=follower
        )
    try:
        stderr = b""
        while walk.poll() is None or select.select([leader], [], [], 0.2)[0]:
            if select.select([leader], [], [], 0.2)[0]:
                stderr += os.read(leader, 65536)
    finally:
        walk.kill()
        os.close(leader)
        os.close(follower)
    said = stderr.decode(errors="replace")
    assert walk.returncode == 0, said
    assert len(json.loads(output.read_text())["items"]) == 60
    assert "5 requests at the provider's limit of 2/s: about 2 s" in said
    assert "catalog pages" in said and "ETA" in said and "6/6" in said
    log = sim.requests("catalog_v2")
    assert [logged.status for logged in log] == [200] * 6  # every page once, none refused
    times = [logged.at for logged in log]
    assert all(later - earlier >= 1.0 for earlier, later in zip(times, times[2:], strict=False))  # never 3 in a second


def test_a_limiter_database_that_cannot_be_read_says_which_file(sim, demo_credentials, monkeypatch):
    """The profile's bookings file gone bad: every command that asks the service is said to fail on it
    (exit 2, the file named, what to do), never a traceback."""
    from tui.local.limit_store import profile_database

    credential = demo_credentials["acme-sandbox"]
    monkeypatch.setenv("SHIFT_URL", sim.base_url)
    monkeypatch.setenv("SHIFT_SECRET", credential.client_secret)
    write_profile('get_order = "120/min"')
    path = profile_database("shift", "sandbox")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a database, " * 256)
    result = CliRunner().invoke(main, ["accounts"])
    assert result.exit_code == 2, result.output
    assert str(path) in result.output and "Move the file aside" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
