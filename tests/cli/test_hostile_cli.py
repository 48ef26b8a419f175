"""Every command of `tui/cli.py` COMMANDS against the hostile simulator (issue 12, DESIGN rule 8).

Plain output shows the hostile strings literally (their visible form) and
writes no control character; `--json` is exact JSON of what the service sent,
with hidden characters as escapes. A command registered later without an
entry in RUNS is still run: each of its subcommands with no arguments (a usage
error must not be a crash, and must not echo anything raw either).
"""

from __future__ import annotations

import json

import httpx
import pytest
from click.testing import CliRunner
from hostile_walk import SERVING, all_runs, markers_in, raw_controls

from tui.cli import COMMANDS, main
from tui.simulator import demo_credential
from tui.simulator.hostile import HOSTILE_STRINGS

OSC_CLIPBOARD = HOSTILE_STRINGS[7]


def strings_in(data: object) -> list[str]:
    if isinstance(data, dict):
        return [text for value in data.values() for text in strings_in(value)]
    if isinstance(data, list):
        return [text for value in data for text in strings_in(value)]
    return [data] if isinstance(data, str) else []


@pytest.fixture
def hostile_env(monkeypatch, hostile_sim):
    credential = demo_credential("acme-sandbox")
    monkeypatch.setenv("GIFTDESK_BASE_URL", hostile_sim.base_url)
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", credential.client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", credential.client_secret)


def test_every_command_is_walked_or_said_why_not(walk_data):
    assert {name for name in COMMANDS if name not in SERVING} <= {args[0] for args, _ in all_runs(walk_data)}


def test_every_command_writes_outside_text_literally(hostile_env, walk_data):
    runner = CliRunner()
    for args, shows_outside_text in all_runs(walk_data):
        result = runner.invoke(main, args)
        where = " ".join(args)
        assert result.exception is None or isinstance(result.exception, SystemExit), f"{where}: {result.exception!r}"
        assert result.exit_code != 1, f"{where}: {result.output}"  # 1 is an unexpected error (click's or ours)
        assert not raw_controls(result.stdout), f"{where}: stdout has {raw_controls(result.stdout)}"
        assert not raw_controls(result.stderr), f"{where}: stderr has {raw_controls(result.stderr)}"
        if "--json" in args and result.exit_code == 0:
            data = json.loads(result.stdout)
            if shows_outside_text:
                assert any(text in value for text in HOSTILE_STRINGS for value in strings_in(data)), where
        elif shows_outside_text:
            assert result.exit_code == 0, f"{where}: {result.output}"
            assert markers_in(result.stdout), f"{where}: no hostile text shown in {result.stdout[:300]!r}"


def test_json_is_exactly_what_the_service_sent(hostile_sim, hostile_env):
    runner = CliRunner()
    result = runner.invoke(main, ["catalog", "--json", "--page-size", "7"])
    assert result.exit_code == 0, result.output
    sent = httpx.get(
        hostile_sim.base_url + "/api/integration/v2.0/catalog",
        params={"pageSize": 7},
        auth=demo_credential("acme-sandbox").auth,
    ).json()
    assert json.loads(result.stdout) == sent
