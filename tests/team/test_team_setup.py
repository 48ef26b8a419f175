"""`giftdesk team init | check` on a real PostgreSQL (a throwaway cluster), and team mode's settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from tui.cli import main
from tui.local.config import ConfigError, team_settings
from tui.local.config_file import ProfileStore
from tui.local.secret_sources import resolve_team_password
from tui.team.database import SCHEMA_VERSION


def giftdesk(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env)


def write_config(text: str) -> Path:
    path = Path(os.environ["GIFTDESK_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_init_creates_the_schema_then_check_says_reachable_and_current(team_url):
    write_config(f'[team]\ndatabase_url = "{team_url}"\n')
    before = giftdesk("team", "check")
    assert before.exit_code == 3 and "schema 0, this giftdesk needs" in before.output and "team init" in before.output

    first = giftdesk("team", "init")
    assert first.exit_code == 0, first.output
    assert f"schema 0 -> {SCHEMA_VERSION}" in first.output
    with psycopg.connect(team_url) as connection:
        tables = {row[0] for row in connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        assert {"audit", "watch_items", "notes", "giftdesk_schema"} <= tables
    again = giftdesk("team", "init")
    assert again.exit_code == 0 and "already current" in again.output
    checked = giftdesk("team", "check")
    assert checked.exit_code == 0 and f"reachable, schema {SCHEMA_VERSION} (current)" in checked.output


def test_the_environment_variable_turns_team_mode_on(team_url):
    result = giftdesk("team", "init", env={"GIFTDESK_DATABASE_URL": team_url})
    assert result.exit_code == 0, result.output


def test_a_database_of_a_newer_giftdesk_is_refused(team_url):
    assert giftdesk("team", "init", env={"GIFTDESK_DATABASE_URL": team_url}).exit_code == 0
    with psycopg.connect(team_url, autocommit=True) as connection:
        connection.execute("UPDATE giftdesk_schema SET version = version + 1")
    for command in ("check", "init"):
        result = giftdesk("team", command, env={"GIFTDESK_DATABASE_URL": team_url})
        assert result.exit_code == 3 and "newer giftdesk" in result.output and "upgrade giftdesk" in result.output


def test_without_team_mode_check_says_how_to_set_it_up():
    result = giftdesk("team", "check")
    assert (
        result.exit_code == 2 and "team mode is not set up" in result.output and "[team] database_url" in result.output
    )


def test_an_unreachable_database_is_said_with_exit_5(pg_cluster):
    closed = f"postgresql://postgres@127.0.0.1:{pg_cluster.port + 1}/postgres"  # nothing listens there
    result = giftdesk("team", "check", env={"GIFTDESK_DATABASE_URL": closed})
    assert result.exit_code == 5 and "unreachable" in result.output and "Traceback" not in result.output


def test_a_password_in_the_files_url_is_refused_and_its_source_is_used():
    write_config('[team]\ndatabase_url = "postgresql://giftdesk:hunter2@db.example.test/giftdesk"\n')
    result = giftdesk("team", "check")
    assert result.exit_code == 2 and "holds a password" in result.output and "hunter2" not in result.output

    write_config(
        'user = "ana"\n[team]\ndatabase_url = "postgresql://giftdesk@db.example.test/giftdesk"\n'
        'password = { kind = "env", ref = "TEAM_DB_PASSWORD" }\n'
    )
    config = ProfileStore().load()
    settings = team_settings(config, {})
    assert settings is not None and config.user == "ana"
    secret = resolve_team_password(settings, {"TEAM_DB_PASSWORD": "s3cret-pass"})
    assert secret is not None and secret.get_secret_value() == "s3cret-pass"
    with pytest.raises(ConfigError, match=r"\[team\] password: environment variable TEAM_DB_PASSWORD is not set"):
        resolve_team_password(settings, {})


def test_saving_profiles_keeps_the_team_table_and_user():
    path = write_config(
        'user = "ana"  # who I am in the team\n\n[team]\n# shared\ndatabase_url = "postgresql://g@db.example.test/g"\n'
    )
    from tui.local.profiles import make_profile

    ProfileStore().add(
        make_profile(
            name="p",
            environment="sandbox",
            base_url="https://api.example.test",
            client_id="c",
            secret={"kind": "env", "ref": "X"},
        )
    )
    text = path.read_text()
    assert 'user = "ana"  # who I am in the team' in text and "# shared" in text
    assert ProfileStore().load().team is not None


def test_team_goes_with_demo():
    result = giftdesk("--team")
    assert result.exit_code == 2 and "--team goes with --demo" in result.output


def test_the_demos_team_database_is_a_throwaway_cluster_or_the_one_named(team_url):
    from tui.team.database import check
    from tui.team.demo import demo_team_database

    with demo_team_database({}) as database:
        assert check(database) == SCHEMA_VERSION and "127.0.0.1" in database.url
        throwaway = database
    with pytest.raises(Exception, match="unreachable"):
        check(throwaway)  # gone with the demo
    with demo_team_database({"GIFTDESK_DATABASE_URL": team_url}) as joined:
        assert joined.url == team_url and check(joined) == SCHEMA_VERSION


def test_giftdesk_inbox_reads_the_teams_inbox(link, team_url):
    from tui.local.inbox import CALLBACK, Delivery
    from tui.team.inbox import TeamInbox

    TeamInbox(link, "env", "sandbox").keep(
        Delivery.accepted_now("callback:REQ-T", CALLBACK, {"requestId": "REQ-T"}, "10.0.0.9")
    )
    env = {
        "GIFTDESK_DATABASE_URL": team_url,
        "GIFTDESK_BASE_URL": "https://api.example.test",
        "GIFTDESK_CLIENT_ID": "c",
        "GIFTDESK_CLIENT_SECRET": "s3cret-value",
    }
    result = giftdesk("inbox", "--json", env=env)
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["eventId"] for line in result.stdout.splitlines()] == ["callback:REQ-T"]


def test_a_throwaway_cluster_goes_with_a_process_killed_before_it_stopped_it(pg_cluster):
    import subprocess
    import sys
    import time

    script = (
        "import os, pathlib\nfrom tui.team.cluster import running_cluster, server_bindir\n"
        "with running_cluster(server_bindir()) as cluster:\n    print(cluster.folder, flush=True)\n    os.kill(os.getpid(), 9)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    folder = Path(done.stdout.strip())
    assert done.returncode == -9 and folder.name.startswith("giftdesk-pg-")
    deadline = time.monotonic() + 90  # a bound on a hang, not a timing: pg_ctl on a loaded machine may take a while
    while folder.exists():  # its watcher stops the server and removes the folder
        assert time.monotonic() < deadline, f"{folder} outlived its process"
        time.sleep(0.2)


def test_a_commands_money_action_is_audited_in_the_team_database_or_not_sent(
    team_url, pg_cluster, sim_factory, demo_credentials
):
    import uuid

    from tui.team.database import TeamDatabase, migrate

    migrate(TeamDatabase(team_url))
    sim = sim_factory()
    credential = demo_credentials["acme-sandbox"]
    env = {
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": credential.client_id,
        "GIFTDESK_CLIENT_SECRET": credential.client_secret,
        "GIFTDESK_DATABASE_URL": team_url,
    }
    placed = str(uuid.uuid4())
    result = giftdesk(
        "order", "place", "--account", "1001", "--product", "101", "--value", "25", "--request-id", placed, env=env
    )
    assert result.exit_code == 0, result.output
    with psycopg.connect(team_url) as connection:
        entries = [json.loads(row[0]) for row in connection.execute("SELECT entry FROM audit ORDER BY id")]
    assert [entry["subject"] for entry in entries] == [placed, placed]  # the attempt, then its outcome
    assert all(entry["host"] and entry["who"] for entry in entries)

    refused = str(uuid.uuid4())
    away = {**env, "GIFTDESK_DATABASE_URL": f"postgresql://postgres@127.0.0.1:{pg_cluster.port + 1}/postgres"}
    result = giftdesk(
        "order", "place", "--account", "1001", "--product", "101", "--value", "25", "--request-id", refused, env=away
    )
    assert result.exit_code != 0 and "nothing was sent" in result.output and "Traceback" not in result.output
    shown = giftdesk("order", "show", refused, env=env)
    assert shown.exit_code == 3  # the service never heard of it


def test_a_money_action_with_the_team_database_away_is_refused_in_one_clear_message(sim_factory):
    # Seen in the walk (a real terminal, no log file without --debug): the pool's retries printed libpq's
    # lines on stderr, and the hint spoke of the data folder. A process of its own: pytest's log capture
    # would hide what Python's last-resort handler prints.
    sim = sim_factory()
    env = {
        **os.environ,
        "GIFTDESK_DATABASE_URL": "postgresql://giftdesk@127.0.0.1:1/giftdesk",
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": "acme-sandbox-client",
        "GIFTDESK_CLIENT_SECRET": "sim-acme-sandbox-secret",
    }
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tui",
            "order",
            "place",
            "--account",
            "1001",
            "--product",
            "201",
            "--value",
            "10.00",
            "--yes",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert (
        "the audit log cannot be written (team database postgresql://giftdesk@127.0.0.1:1/giftdesk unreachable"
        in result.stderr
    )
    assert "giftdesk team check" in result.stderr and "data folder" not in result.stderr
    assert "error connecting" not in result.stderr and "Is the server running" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 2, result.stderr  # the refusal, the hint (no RequestId: not sent)
    assert not [logged for logged in sim.requests() if "checkout" in logged.endpoint]  # nothing was sent
