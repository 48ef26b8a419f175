"""Every command of tui/cli.py COMMANDS against the hostile server's protocol-level attacks (issue 24).

Each attack ends every command with the contract's exit code, without a traceback and
within the (short, in tests) deadlines: 5 whenever the command asked the service, with what
was wrong said on stderr (the field named for absurd numbers). Outside text stays shown,
never obeyed. The quick run (`make test`) walks each command once per attack and a few
commands against the slow drip; GIFTDESK_DEEP_TESTS=1 walks every run of every command
against every attack, a byte a second.
"""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import pytest
from click.testing import CliRunner
from conftest import DEEP, SHORT_LIMITS
from hostile_server import ATTACKS
from hostile_walk import all_runs, final_order, place, raw_controls

from tui.cli import main
from tui.simulator import demo_credential

# The service cannot answer usefully at all under these: every command that asked it exits 5.
BROKEN = (
    "drip",
    "drip_headers",
    "huge",
    "endless",
    "gzip_bomb",
    "deep",
    "deep_unclosed",
    "drop",
    "drop_mid_body",
    "truncated",
    "not_json",
)
# These keep a watch looking (the service may come back): `watch` is walked against them in its own test.
TRANSIENT = ("drip", "drip_headers", "drop", "drop_mid_body")
# Each run takes the command's deadline (or its retries): a few commands in the quick run.
SLOW = ("drip", "drip_headers", "drop", "drop_mid_body")
SLOW_RUNS = {"accounts", "catalog", "payout"}


@pytest.fixture(scope="module")
def walk_data(hostile_upstream):
    failed = place(hostile_upstream, 102, 10.13, 2)
    payout = place(hostile_upstream, 201, 10.0)
    card_code = final_order(hostile_upstream, payout)["items"][0]["cards"][0]["cardCode"]
    redeemed = httpx.post(
        hostile_upstream.base_url + "/api/Integration/v2/payout/redeem/" + card_code.rsplit("/", 1)[-1],
        json={"wallet": "PayPal", "recipientEmail": "walk@example.com"},
        auth=demo_credential("acme-sandbox").auth,
    )
    assert redeemed.status_code in (200, 202), redeemed.text
    final_order(hostile_upstream, failed)
    return {"order": failed, "payout": card_code}


def runs_for(attack: str, walk: dict[str, str]) -> list[list[str]]:
    runs = [args for args, _ in all_runs(walk)]
    if attack in TRANSIENT:
        runs = [args for args in runs if args[0] != "watch"]
    if DEEP:
        return runs
    first_of_each = [args for index, args in enumerate(runs) if args[0] not in {a[0] for a in runs[:index]}]
    if attack in SLOW:
        return [args for args in first_of_each if args[0] in SLOW_RUNS]
    return first_of_each


@pytest.mark.parametrize("attack", ATTACKS)
def test_every_command_ends_with_its_exit_code(hostile_env, walk_data, attack):
    server = hostile_env
    runner = CliRunner()
    for args in runs_for(attack, walk_data):
        server.attack = "none"
        asked_before = server.requests
        server.attack = attack
        started = time.monotonic()
        result = runner.invoke(main, args)
        took = time.monotonic() - started
        where = f"{attack}: giftdesk {' '.join(args)}"
        asked = server.requests > asked_before
        refused = server.upstream_status >= 400  # the service's own refusal (a 4xx: exit 3), with a hostile body
        assert result.exception is None or isinstance(result.exception, SystemExit), f"{where}: {result.exception!r}"
        assert "Traceback" not in result.output, f"{where}: {result.output}"
        assert result.exit_code != 1, f"{where}: {result.output}"
        assert not raw_controls(result.stdout + result.stderr), where
        # A hang guard, not a speed figure: every request and the command itself have deadlines.
        assert took < float(SHORT_LIMITS["GIFTDESK_COMMAND_DEADLINE"]) + 5, f"{where}: {took:.1f} s"
        if asked and attack in BROKEN and not refused:
            assert result.exit_code == 5, f"{where}: exit {result.exit_code}: {result.output}"
        if asked and result.exit_code == 5 and attack in ("absurd_number", "long_number", "absurd_count"):
            assert "field" in result.stderr, f"{where}: {result.stderr}"


@pytest.mark.parametrize(
    "args",
    [
        ["payout", "status", "{payout}"],
        ["payout", "status", "{payout}", "--json"],
        ["watch", "{order}", "--json"],
        ["watch", "--payout", "{payout}", "--json"],
        ["order", "show", "{order}"],
        ["accounts"],
        ["accounts", "--json"],
    ],
)
def test_controls_in_key_names_and_json_never_reach_the_terminal(hostile_env, walk_data, args):
    """Item 11: the service's key names (payout status's extra keys) and every --json line, C1 included."""
    hostile_env.attack = "control_keys"
    result = CliRunner().invoke(main, [arg.format(**walk_data) for arg in args])
    assert result.exit_code in (0, 6), result.output
    assert not raw_controls(result.stdout + result.stderr), result.output
    if args[:2] == ["payout", "status"]:  # its extra keys are shown, as characters
        assert "␛]52;c;aGk=␇" in result.stdout or "\\u001b]52;c;aGk=\\u0007" in result.stdout


def test_a_watch_keeps_looking_each_look_bounded(hostile_env, walk_data, tmp_path):
    """Against a service that drops every answer, `watch` says so and looks again, each look within its deadline."""
    hostile_env.attack = "drop"
    process = subprocess.Popen(
        [sys.executable, "-m", "tui", "watch", walk_data["order"]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    looks: list[str] = []
    try:
        while len(looks) < 2:  # each look ends (its retries within their deadlines) and is said
            line = process.stderr.readline()  # type: ignore[union-attr]
            assert line, f"watch ended: {looks}"
            if "will look again" in line:
                looks.append(line)
    finally:
        process.kill()
        process.wait()
    assert all("connection lost" in line for line in looks), looks
