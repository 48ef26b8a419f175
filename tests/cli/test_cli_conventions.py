"""The command line's conventions (issue 17): every help has Examples and plain placeholders,
--debug on every command writes a log and says where, GIFTDESK_PROFILE, `profiles path`,
--readonly only where something is written, --wallet as a choice, shell completion.

Run through click's CliRunner against the real simulator (over loopback) and real
files in temporary directories.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tui.cli import COMMANDS, main
from tui.local.storage import RecentOrders

WRITES = {("order", "place"), ("payout", "redeem"), ("notifications", "set")}
# click's own metavars for typed options: the placeholders must be N, ID, CUR, URL, DATE, TEXT, FILE...
CLICK_TYPE_METAVARS = re.compile(r"\b(INTEGER|FLOAT|RANGE|BOOLEAN|DATETIME|FILENAME|PATH|CHOICE)\b")


def invoke(*args: str, env: dict[str, str] | None = None, input: str | None = None):
    return CliRunner().invoke(main, list(args), env=env, input=input, prog_name="giftdesk", catch_exceptions=False)


def every_command() -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """(path, command) for every command and group registered in COMMANDS, depth first."""
    context = click.Context(main, info_name="giftdesk")

    def walk(path: tuple[str, ...], command: click.Command) -> Iterator[tuple[tuple[str, ...], click.Command]]:
        yield path, command
        if isinstance(command, click.Group):
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                assert sub is not None, f"{' '.join(path)} {name} does not load"
                yield from walk((*path, name), sub)

    for name in COMMANDS:
        command = main.get_command(context, name)
        assert command is not None, f"{name} does not load"
        yield from walk((name,), command)


COMMAND_PATHS = [path for path, _ in every_command()]
LEAVES = [path for path, command in every_command() if not isinstance(command, click.Group)]


def examples(help_text: str) -> list[str]:
    """The lines of the help's Examples section."""
    lines = help_text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "Examples:")
    section = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        section.append(line.strip())
    return section


@pytest.mark.parametrize("path", [(), *COMMAND_PATHS], ids=lambda path: " ".join(path) or "giftdesk")
def test_every_help_has_examples_and_plain_placeholders(path):
    result = invoke(*path, "--help")
    assert result.exit_code == 0, result.output
    assert "Examples:" in result.stdout, f"giftdesk {' '.join(path)} --help has no Examples section"
    lines = examples(result.stdout)
    assert 2 <= len(lines) <= 3, lines
    for line in lines:
        assert line.startswith("giftdesk ") or "giftdesk " in line, line
    usage_and_options = result.stdout.split("Options:", 1)[1] + result.stdout.splitlines()[0]
    assert not CLICK_TYPE_METAVARS.search(usage_and_options), usage_and_options


@pytest.mark.parametrize(
    "path",
    [(), *[p for p, c in every_command() if isinstance(c, click.Group)]],
    ids=lambda path: " ".join(path) or "giftdesk",
)
def test_group_listings_show_whole_summaries(path):
    listing = invoke(*path, "--help").stdout.split("Commands:", 1)[1]
    rows = [line for line in listing.splitlines() if line.startswith("  ") and not line.startswith("    ")]
    assert rows
    for row in rows:
        assert not row.rstrip().endswith("..."), f"cut summary in giftdesk {' '.join(path)}: {row}"


def test_every_leaf_command_takes_debug():
    for path in LEAVES:
        assert "--debug" in invoke(*path, "--help").stdout, path


def test_readonly_is_offered_only_where_something_is_written():
    for path in LEAVES:
        if path == ("profiles", "add"):
            continue  # there --readonly is a setting of the new profile, not this run's guard
        shown = "--readonly" in invoke(*path, "--help").stdout
        assert shown == (path in WRITES), path
    assert invoke("accounts", "--readonly").exit_code == 2  # a read has no such option


# --- --debug ----------------------------------------------------------------------------


@pytest.fixture
def sandbox_env(sim, demo_credentials) -> dict[str, str]:
    credential = demo_credentials["acme-sandbox"]
    return {
        "GIFTDESK_BASE_URL": sim.base_url,
        "GIFTDESK_CLIENT_ID": credential.client_id,
        "GIFTDESK_CLIENT_SECRET": credential.client_secret,
    }


@pytest.mark.parametrize("args", [["--debug", "accounts"], ["accounts", "--debug"]])
def test_debug_writes_a_log_and_says_where(args, sandbox_env, tmp_path):
    result = invoke(*args, env=sandbox_env)
    assert result.exit_code == 0, result.stderr
    said = re.search(r"^debug log: (.+)$", result.stderr, re.MULTILINE)
    assert said, result.stderr
    log_file = tmp_path / "log" / "giftdesk.log"
    assert said.group(1) == str(log_file)
    text = log_file.read_text()
    assert "HTTP Request: GET" in text and "/accounts" in text
    assert sandbox_env["GIFTDESK_CLIENT_SECRET"] not in text
    assert result.stderr.count("debug log:") == 1


def test_debug_on_a_local_command_says_where_its_log_is(tmp_path):
    result = invoke("--debug", "profiles", "path")
    assert result.exit_code == 0
    assert f"debug log: {tmp_path / 'log' / 'giftdesk.log'}" in result.stderr
    assert result.stdout.strip() == str(tmp_path / "config" / "config.toml")


def test_without_debug_nothing_is_said():
    assert "debug log" not in invoke("profiles", "path").stderr


# --- profiles: GIFTDESK_PROFILE and path --------------------------------------------------


@pytest.fixture
def two_profiles(sim, demo_credentials, monkeypatch) -> None:
    """'sbx' (current) on acme-sandbox, 'other' on a client whose secret is wrong (so it fails with 4)."""
    credential = demo_credentials["acme-sandbox"]
    monkeypatch.setenv("SBX_SECRET", credential.client_secret)
    monkeypatch.setenv("WRONG_SECRET", "not-the-secret")
    common = ["--environment", "sandbox", "--base-url", sim.base_url, "--client-id", credential.client_id]
    assert invoke("profiles", "add", "sbx", *common, "--secret-env", "SBX_SECRET").exit_code == 0
    assert invoke("profiles", "add", "other", *common, "--secret-env", "WRONG_SECRET").exit_code == 0


def test_giftdesk_profile_names_the_profile(two_profiles):
    assert invoke("accounts").exit_code == 0  # the current profile
    assert invoke("accounts", env={"GIFTDESK_PROFILE": "other"}).exit_code == 4
    assert invoke("accounts", "--profile", "sbx", env={"GIFTDESK_PROFILE": "other"}).exit_code == 0
    assert invoke("--profile", "sbx", "accounts", env={"GIFTDESK_PROFILE": "other"}).exit_code == 0
    listed = invoke("profiles", "list", env={"GIFTDESK_PROFILE": "other"})
    assert "note: GIFTDESK_PROFILE=other; commands without --profile use it" in listed.stderr
    unknown = invoke("accounts", env={"GIFTDESK_PROFILE": "nope"})
    assert unknown.exit_code == 2 and "no profile named 'nope'" in unknown.stderr


def test_demo_is_not_overruled_by_giftdesk_profile(two_profiles):
    result = invoke("--demo", "accounts", "--json", env={"GIFTDESK_PROFILE": "other"})
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["accounts"]


def test_profiles_path_prints_the_config_file(tmp_path, monkeypatch):
    monkeypatch.setenv("GIFTDESK_CONFIG", str(tmp_path / "elsewhere.toml"))
    result = invoke("profiles", "path")
    assert result.exit_code == 0 and result.stdout == f"{tmp_path / 'elsewhere.toml'}\n"


# --- --wallet -----------------------------------------------------------------------------


def test_wallet_is_shown_as_a_choice_and_a_wrong_case_gets_the_spec_text():
    assert "--wallet [PayPal|Venmo]" in invoke("payout", "check", "--help").stdout
    result = invoke("payout", "check", "--wallet", "paypal", "--email", "ann@example.com")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == "A valid wallet (PayPal or Venmo) is required."
    assert invoke("payout", "check", "--wallet", "PayPal", "--email", "ann@example.com").exit_code == 0


# --- shell completion ---------------------------------------------------------------------


def complete(words: str) -> list[str]:
    """What bash completion offers for the last word of `words` (click's bash_complete protocol)."""
    parts = words.split(" ")
    result = invoke(env={"_GIFTDESK_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(parts) - 1)})
    assert result.exit_code == 0, result.output
    return [line.split(",", 1)[1] for line in result.stdout.splitlines()]


def test_completion_offers_profile_names(two_profiles):
    assert complete("giftdesk accounts --profile ") == ["other", "sbx"]
    assert complete("giftdesk --profile s") == ["sbx"]
    assert complete("giftdesk profiles use o") == ["other"]


def test_completion_offers_wallets():
    assert complete("giftdesk payout redeem tok --wallet ") == ["PayPal", "Venmo"]
    assert complete("giftdesk payout check --wallet V") == ["Venmo"]


def test_completion_offers_recent_request_ids_newest_first():
    path = RecentOrders().path
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                "sbx": [
                    {"request_id": "other-1", "status": None, "time": "2026-11-23T10:00:02+00:00"},
                    {"request_id": "req-old", "status": "Succeeded", "time": "2026-11-23T10:00:00+00:00"},
                ],
                "live": [
                    {"request_id": "req-new", "status": "Pending", "time": "2026-11-23T10:00:01+00:00"},
                    {"request_id": "other-1", "status": None, "time": "2026-11-22T10:00:00+00:00"},
                ],
            }
        )
    )
    assert complete("giftdesk order show req-") == ["req-new", "req-old"]
    assert complete("giftdesk --order ") == ["other-1", "req-new", "req-old"]


def test_completion_of_commands():
    assert complete("giftdesk pro") == ["profiles"]
    assert "path" in complete("giftdesk profiles ")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts(shell):
    result = invoke("completion", shell)
    assert result.exit_code == 0
    assert "_GIFTDESK_COMPLETE" in result.stdout and f"{shell}_complete" in result.stdout
    assert invoke("completion", "tcsh").exit_code == 2


# --- keyring ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--secret-env", "not a var", "'not a var' is not an environment variable name"),
        ("--secret-command", "   ", "the command is empty"),
    ],
)
def test_a_secret_source_that_cannot_work_is_refused_plainly(flag, value, said):
    result = invoke(
        "profiles",
        "add",
        "p",
        "--environment",
        "sandbox",
        "--base-url",
        "https://p.example.com",
        "--client-id",
        "p",
        flag,
        value,
    )
    assert result.exit_code == 2 and said in result.stderr and "Traceback" not in result.stderr
    assert not Path(invoke("profiles", "path").stdout.strip()).exists()  # nothing written


def test_a_missing_keyring_package_says_what_to_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "keyring", None)  # as if the package were not installed
    result = invoke(
        "profiles",
        "add",
        "k",
        "--environment",
        "sandbox",
        "--base-url",
        "https://k.example.com",
        "--client-id",
        "k",
        "--secret-keyring",
        input="s3cret\n",
    )
    assert result.exit_code == 2
    assert "giftdesk[keyring]" not in result.stderr
    assert "pip install keyring" in result.stderr and "--secret-env" in result.stderr


# --- progress -----------------------------------------------------------------------------


def run_catalog_all(sandbox_env: dict[str, str], stderr_on_terminal: bool) -> tuple[str, str]:
    """`giftdesk catalog --all --json` in a child process: (stdout, stderr), stderr on a pty or a pipe."""
    env = {**os.environ, **sandbox_env, "COLUMNS": "100"}
    args = [sys.executable, "-m", "tui", "catalog", "--all", "--page-size", "10", "--json"]
    if not stderr_on_terminal:
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, check=True)
        return done.stdout, done.stderr
    leader, follower = pty.openpty()
    try:
        with subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=follower, text=True) as child:
            stdout, _ = child.communicate(timeout=120)
            assert child.returncode == 0
        os.close(follower)
        follower = -1
        written = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the child closed its end
                break
            if not chunk:
                break
            written += chunk
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    return stdout, written.decode(errors="replace")


def test_catalog_all_shows_progress_on_a_terminal_only(sandbox_env):
    stdout, on_terminal = run_catalog_all(sandbox_env, stderr_on_terminal=True)
    assert "catalog pages" in on_terminal
    data = json.loads(stdout)
    assert len(data["items"]) == data["count"] > 10  # several pages, all of them on stdout
    stdout, on_pipe = run_catalog_all(sandbox_env, stderr_on_terminal=False)
    assert on_pipe == "" and json.loads(stdout) == data


def test_giftdesk_profile_picks_the_tui_s_profile_too(two_profiles):
    result = invoke(env={"GIFTDESK_PROFILE": "nope"})  # the TUI: refused before any screen
    assert result.exit_code == 2 and "no profile named 'nope'" in result.stderr
    assert "known: sbx, other" in result.stderr
