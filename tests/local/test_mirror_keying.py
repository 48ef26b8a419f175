"""The catalog mirror of the ad-hoc (GIFTDESK_*) profile is keyed by the service as well as the
environment (issue 24 item 13): two services never share a mirror; `catalog changes` keeps its
columns to a bounded width."""

from __future__ import annotations

from click.testing import CliRunner

from tui.commands.output import table
from tui.local.profiles import profile_from_env

ENVIRON = {"GIFTDESK_BASE_URL": "http://127.0.0.1:9001", "GIFTDESK_CLIENT_ID": "acme", "GIFTDESK_CLIENT_SECRET": "s"}


def test_two_services_of_the_environment_have_two_mirrors():
    first = profile_from_env(ENVIRON)
    other_url = profile_from_env({**ENVIRON, "GIFTDESK_BASE_URL": "http://127.0.0.1:9002"})
    other_client = profile_from_env({**ENVIRON, "GIFTDESK_CLIENT_ID": "globex"})
    production = profile_from_env({**ENVIRON, "GIFTDESK_ENVIRONMENT": "production"})
    again = profile_from_env({**ENVIRON, "GIFTDESK_BASE_URL": "http://127.0.0.1:9001/"})
    assert first and other_url and other_client and production and again
    keys = {(p.mirror_name, p.environment) for p in (first, other_url, other_client, production)}
    assert len(keys) == 4
    assert again.mirror_name == first.mirror_name


def test_syncing_a_second_service_leaves_the_first_ones_mirror(sim_factory, monkeypatch, demo_credentials):
    from tui.simulator import SimulatorSettings

    credential = demo_credentials["acme-sandbox"]
    monkeypatch.setenv("GIFTDESK_CLIENT_ID", credential.client_id)
    monkeypatch.setenv("GIFTDESK_CLIENT_SECRET", credential.client_secret)
    runner = CliRunner()
    first, second = sim_factory(SimulatorSettings(brands=12, seed=1)), sim_factory(SimulatorSettings(brands=7, seed=2))
    for sim in (first, second):
        monkeypatch.setenv("GIFTDESK_BASE_URL", sim.base_url)
        result = runner.invoke(main_cli(), ["catalog", "sync"])
        assert result.exit_code == 0, result.output
    monkeypatch.setenv("GIFTDESK_BASE_URL", first.base_url)
    result = runner.invoke(main_cli(), ["catalog", "changes", "--json"])
    assert result.exit_code == 0, result.output
    assert '"removed"' not in result.stdout


def main_cli():
    from tui.cli import main

    return main


def test_a_table_never_pads_every_row_to_a_huge_cell():
    rows = [["a", "x" * 100_000], *(["b", "short"] for _ in range(1000))]
    text = table(["ONE", "TWO"], rows)
    assert max(len(line) for line in text.splitlines()) < 400
    assert len(text) < 200_000
